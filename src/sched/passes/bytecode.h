// Bytecode: what the interpreter runs. Fixed-width 40-byte instructions index an operand table
// of refs; a header carries a magic number and format version, the buffer sizes, and the count
// the program was built for with its scale unit, so the program can be rescaled to another
// count of the same shape without running the generator again. Lowering also fuses: a run of
// copies and reduces with no synchronisation between them, all of one length and touching
// each other's data only at identical places, is marked so the interpreter makes one
// cache-blocked pass over it instead of one pass per instruction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/ir/program.h"

namespace weft::sched {

inline constexpr uint32_t kBytecodeMagic = 0x54464557;  // "WEFT" little-endian
inline constexpr uint16_t kBytecodeVersion = 2;

/// One operand.
struct BcRef {
  uint8_t space = 0;  // ir::Space
  uint8_t pad[3] = {0, 0, 0};
  int32_t rank = 0;
  uint64_t offset = 0;
};
static_assert(sizeof(BcRef) == 16);

/// One instruction.
struct BcInstr {
  uint8_t op = 0;  // ir::Opcode
  uint8_t pad0 = 0;
  uint16_t fused = 0;  // on the first instruction of a fused run: its length (>= 2)
  int32_t peer = -1;   // send/recv peer; wait's node peer
  uint32_t ref = 0;    // operand table index: destination (or send's source), then sources
  int32_t aux = 0;     // send/recv tag, signal/wait counter, reduce op
  uint64_t bytes = 0;
  uint64_t value = 0;  // wait's counter value; waitolder's messages left in flight
  uint32_t nsrc = 0;   // sources after the destination (a radix-P reduce has P of them)
  uint32_t pad1 = 0;
};
static_assert(sizeof(BcInstr) == 40);

/// A lowered program.
struct Bytecode {
  uint32_t magic = kBytecodeMagic;
  uint16_t version = kBytecodeVersion;
  int32_t rank = 0, nranks = 1;
  weftDataType_t dtype = weftFloat64;
  uint64_t send_bytes = 0, recv_bytes = 0, scratch_bytes = 0, shm_slot_bytes = 0;
  bool shm_banked = false;  // ir::Program::shm_banked
  uint64_t count = 0;       // the count it was built for
  uint64_t scale_unit = 0;  // counts that are multiples of this rescale exactly (0: never)
  std::vector<BcInstr> code;
  std::vector<BcRef> refs;
  bool operator==(const Bytecode& o) const;
};

/// Lowers a Program built for `count`, fusing where it can.
Bytecode Lower(const ir::Program& p, uint64_t count, uint64_t scale_unit);

/// The same program at new_count: every offset and length scaled by new_count / count. False
/// (out untouched) unless both counts are positive multiples of the scale unit.
bool Rescale(const Bytecode& in, uint64_t new_count, Bytecode* out);

/// Checks the header and every index (what the interpreter assumes).
bool CheckBytecode(const Bytecode& bc, std::string* why);

/// A listing: header, then one line per instruction with its operands ("fused N" marks runs).
std::string DumpBytecode(const Bytecode& bc);

}  // namespace weft::sched
