#include "sched/ir/program.h"

namespace weft::ir {
namespace {

struct OpcodeInfo {
  const char* mnemonic;
  const char* operands;
  const char* doc;
};

constexpr OpcodeInfo kOpcodes[] = {
#define WEFT_OPCODE(name, mnemonic, operands, doc) {mnemonic, operands, doc},
#include "sched/ir/opcodes.def"
#undef WEFT_OPCODE
};

}  // namespace

const char* Mnemonic(Opcode op) { return kOpcodes[static_cast<int>(op)].mnemonic; }
const char* OperandSpec(Opcode op) { return kOpcodes[static_cast<int>(op)].operands; }
const char* OpcodeDoc(Opcode op) { return kOpcodes[static_cast<int>(op)].doc; }

bool ParseMnemonic(const std::string& text, Opcode* out) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    if (text == kOpcodes[i].mnemonic) {
      *out = static_cast<Opcode>(i);
      return true;
    }
  }
  return false;
}

bool Instr::operator==(const Instr& o) const {
  return op == o.op && dst == o.dst && srcs == o.srcs && bytes == o.bytes && peer == o.peer &&
         counter == o.counter && value == o.value && redop == o.redop && tag == o.tag;
}

bool Program::operator==(const Program& o) const {
  return rank == o.rank && nranks == o.nranks && dtype == o.dtype && send_bytes == o.send_bytes &&
         recv_bytes == o.recv_bytes && scratch_bytes == o.scratch_bytes &&
         shm_slot_bytes == o.shm_slot_bytes && shm_banked == o.shm_banked && code == o.code;
}

std::string OpcodesMarkdown() {
  std::string s = "| op | operands | meaning |\n|---|---|---|\n";
  for (const auto& info : kOpcodes) {
    s += std::string("| `") + info.mnemonic + "` | " +
         (*info.operands ? std::string("`") + info.operands + "`" : std::string("(none)")) + " | " +
         info.doc + " |\n";
  }
  return s;
}

}  // namespace weft::ir
