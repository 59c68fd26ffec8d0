// The schedule language (ir): a Program is the list of steps one rank performs. Buffers are
// named, never raw pointers: a Ref is (space, node rank for the per-peer spaces, byte
// offset), and lengths are bytes, so a Program can be rescaled for another count of the same
// shape. See docs/ir.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace weft::ir {

/// Opcodes, from opcodes.def.
enum class Opcode : uint8_t {
#define WEFT_OPCODE(name, mnemonic, operands, doc) k##name,
#include "sched/ir/opcodes.def"
#undef WEFT_OPCODE
};

/// Number of opcodes.
inline constexpr int kNumOpcodes = 0
#define WEFT_OPCODE(name, mnemonic, operands, doc) +1
#include "sched/ir/opcodes.def"
#undef WEFT_OPCODE
    ;

/// The mnemonic of an opcode ("copy").
const char* Mnemonic(Opcode op);
/// The operand letters of an opcode ("D S N"; see opcodes.def).
const char* OperandSpec(Opcode op);
/// The one-line meaning of an opcode.
const char* OpcodeDoc(Opcode op);
/// Finds an opcode by mnemonic.
bool ParseMnemonic(const std::string& text, Opcode* out);

/// A reduction weft's API does not offer: 2x2 matrix product over uint64 elements, each holding
/// four uint16 entries (row-major, arithmetic mod 2^16). Associative and not commutative, so
/// the simulator uses it to prove that order-preserving generators reduce in rank order.
inline constexpr weftRedOp_t kOpMatMul2x2 = static_cast<weftRedOp_t>(64);

/// Named buffer spaces.
enum class Space : uint8_t {
  kSend,      // this rank's send buffer
  kRecv,      // this rank's receive buffer
  kScratch,   // this rank's scratch buffer (sized by Program::scratch_bytes)
  kShm,       // slot of node rank `rank` in the node's shared segment
  kPeerSend,  // node peer `rank`'s send buffer (single copy)
  kPeerRecv,  // node peer `rank`'s receive buffer (single copy)
};

/// True for the spaces that name a node peer.
inline bool HasRank(Space s) {
  return s == Space::kShm || s == Space::kPeerSend || s == Space::kPeerRecv;
}

/// A place in a named buffer.
struct Ref {
  Space space = Space::kSend;
  int rank = 0;         // node rank, for kShm / kPeerSend / kPeerRecv
  uint64_t offset = 0;  // bytes
  bool operator==(const Ref& o) const {
    return space == o.space && rank == o.rank && offset == o.offset;
  }
};

/// One step. Fields an opcode does not use stay at their defaults.
struct Instr {
  Opcode op = Opcode::kFence;
  Ref dst;
  std::vector<Ref> srcs;  // one for Copy/Send, k for Reduce
  uint64_t bytes = 0;
  int peer = -1;       // Send/Recv: rank in the communicator; Wait: node rank
  int counter = 0;     // Signal/Wait
  uint64_t value = 0;  // Wait
  weftRedOp_t redop = weftSum;
  int tag = 0;  // Send/Recv
  bool operator==(const Instr& o) const;
};

/// What one rank runs for one collective.
struct Program {
  int rank = 0, nranks = 1;
  weftDataType_t dtype = weftFloat64;
  uint64_t send_bytes = 0, recv_bytes = 0, scratch_bytes = 0, shm_slot_bytes = 0;
  /// Banked (the latency path): the program's shm refs address one of the latency banks that
  /// the transport picks at execution start (the next in turn), and its entry waits (counter 0,
  /// value 0) may target an earlier value or none (bank_placer.h says why that is safe). Its refs
  /// start at byte 8 (the transport's stamp), after its entry wait.
  bool shm_banked = false;
  std::vector<Instr> code;
  /// Pipelining metadata, not part of the text form: the step of each instruction, numbered
  /// alike on every rank (a message's send and receive share a step; a generator's step ends in
  /// at most one waitall, a composition's node level runs its rounds inside one step). Empty
  /// when the generator does not number steps.
  std::vector<int> step;
  /// Steps the generator numbered: 1 + the highest it set, whether or not that step's
  /// instructions were dropped as empty, so the same on every rank of a generator whose step
  /// sequence does not depend on the rank (rexch, ring). 0 without numbered steps.
  int steps = 0;
  bool operator==(const Program& o) const;
};

/// Markdown table of every opcode (docs/ir.md embeds it; a unit test keeps them equal).
std::string OpcodesMarkdown();

}  // namespace weft::ir
