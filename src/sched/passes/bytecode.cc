#include "sched/passes/bytecode.h"

#include <cstdio>
#include <cstring>

#include "sched/ir/text.h"

namespace weft::sched {
namespace {

BcRef ToBc(const ir::Ref& r) {
  BcRef b;
  b.space = static_cast<uint8_t>(r.space);
  b.rank = r.rank;
  b.offset = r.offset;
  return b;
}

ir::Ref FromBc(const BcRef& b) { return {static_cast<ir::Space>(b.space), b.rank, b.offset}; }

bool IsLocal(ir::Opcode op) { return op == ir::Opcode::kCopy || op == ir::Opcode::kReduce; }

bool SameBuffer(const ir::Ref& a, const ir::Ref& b) {
  return a.space == b.space && (!ir::HasRank(a.space) || a.rank == b.rank);
}

// Whether b may join a fused run ending in the instructions `run`: same length, and wherever
// b touches what a run member writes (or writes what it reads) the two refs are identical, so
// block i of b depends only on block i of the run.
bool Fusable(const std::vector<const ir::Instr*>& run, const ir::Instr& b) {
  if (run.front()->bytes != b.bytes || b.bytes == 0) return false;
  const uint64_t n = b.bytes;
  auto clash = [n](const ir::Ref& x, const ir::Ref& y) {
    if (!SameBuffer(x, y) || x.offset == y.offset) return false;
    return x.offset < y.offset + n && y.offset < x.offset + n;
  };
  for (const ir::Instr* a : run) {
    if (clash(a->dst, b.dst)) return false;
    for (const ir::Ref& s : b.srcs) {
      if (clash(a->dst, s)) return false;
    }
    for (const ir::Ref& s : a->srcs) {
      if (clash(s, b.dst)) return false;
    }
  }
  return true;
}

}  // namespace

bool Bytecode::operator==(const Bytecode& o) const {
  return magic == o.magic && version == o.version && rank == o.rank && nranks == o.nranks &&
         dtype == o.dtype && send_bytes == o.send_bytes && recv_bytes == o.recv_bytes &&
         scratch_bytes == o.scratch_bytes && shm_slot_bytes == o.shm_slot_bytes &&
         shm_banked == o.shm_banked && count == o.count && scale_unit == o.scale_unit &&
         code.size() == o.code.size() && refs.size() == o.refs.size() &&
         std::memcmp(code.data(), o.code.data(), code.size() * sizeof(BcInstr)) == 0 &&
         std::memcmp(refs.data(), o.refs.data(), refs.size() * sizeof(BcRef)) == 0;
}

Bytecode Lower(const ir::Program& p, uint64_t count, uint64_t scale_unit) {
  Bytecode bc;
  bc.rank = p.rank;
  bc.nranks = p.nranks;
  bc.dtype = p.dtype;
  bc.send_bytes = p.send_bytes;
  bc.recv_bytes = p.recv_bytes;
  bc.scratch_bytes = p.scratch_bytes;
  bc.shm_slot_bytes = p.shm_slot_bytes;
  bc.shm_banked = p.shm_banked;
  bc.count = count;
  bc.scale_unit = scale_unit;
  bc.code.reserve(p.code.size());
  for (const ir::Instr& in : p.code) {
    BcInstr b;
    b.op = static_cast<uint8_t>(in.op);
    b.peer = in.peer;
    b.bytes = in.bytes;
    b.ref = static_cast<uint32_t>(bc.refs.size());
    switch (in.op) {
      case ir::Opcode::kCopy:
      case ir::Opcode::kReduce:
        bc.refs.push_back(ToBc(in.dst));
        for (const ir::Ref& r : in.srcs) bc.refs.push_back(ToBc(r));
        b.nsrc = static_cast<uint32_t>(in.srcs.size());
        b.aux = static_cast<int32_t>(in.redop);
        break;
      case ir::Opcode::kSend:
        bc.refs.push_back(ToBc(in.srcs[0]));
        b.aux = in.tag;
        break;
      case ir::Opcode::kRecv:
        bc.refs.push_back(ToBc(in.dst));
        b.aux = in.tag;
        break;
      case ir::Opcode::kSignal:
      case ir::Opcode::kWait:
        b.aux = in.counter;
        b.value = in.value;
        break;
      case ir::Opcode::kWaitOlder:
        b.value = in.value;
        break;
      default:
        break;
    }
    bc.code.push_back(b);
  }
  // Fusion: greedy runs of local instructions.
  for (size_t i = 0; i < p.code.size();) {
    size_t j = i;
    std::vector<const ir::Instr*> run;
    while (j < p.code.size() && IsLocal(p.code[j].op) && j - i < 0xffff &&
           (run.empty() || Fusable(run, p.code[j]))) {
      run.push_back(&p.code[j]);
      ++j;
    }
    if (run.size() >= 2) bc.code[i].fused = static_cast<uint16_t>(run.size());
    i = run.empty() ? i + 1 : j;
  }
  return bc;
}

bool Rescale(const Bytecode& in, uint64_t new_count, Bytecode* out) {
  const uint64_t u = in.scale_unit, c = in.count;
  if (u == 0 || c == 0 || new_count == 0 || c % u != 0 || new_count % u != 0) return false;
  auto scale = [&](uint64_t v, uint64_t* r) {
    const unsigned __int128 x = static_cast<unsigned __int128>(v) * new_count;
    if (x % c != 0) return false;
    *r = static_cast<uint64_t>(x / c);
    return true;
  };
  Bytecode b = in;
  b.count = new_count;
  bool ok = scale(in.send_bytes, &b.send_bytes) && scale(in.recv_bytes, &b.recv_bytes) &&
            scale(in.scratch_bytes, &b.scratch_bytes) &&
            scale(in.shm_slot_bytes, &b.shm_slot_bytes);
  for (BcInstr& i : b.code) {
    if (i.op != static_cast<uint8_t>(ir::Opcode::kWait)) ok = ok && scale(i.bytes, &i.bytes);
  }
  for (BcRef& r : b.refs) ok = ok && scale(r.offset, &r.offset);
  if (!ok) return false;
  *out = std::move(b);
  return true;
}

bool CheckBytecode(const Bytecode& bc, std::string* why) {
  if (bc.magic != kBytecodeMagic || bc.version != kBytecodeVersion) {
    *why = "not weft bytecode of version " + std::to_string(kBytecodeVersion);
    return false;
  }
  for (size_t i = 0; i < bc.code.size(); ++i) {
    const BcInstr& b = bc.code[i];
    if (b.op >= ir::kNumOpcodes) {
      *why = "instr " + std::to_string(i) + ": bad opcode";
      return false;
    }
    const auto op = static_cast<ir::Opcode>(b.op);
    const size_t nref = IsLocal(op)                                            ? 1 + b.nsrc
                        : (op == ir::Opcode::kSend || op == ir::Opcode::kRecv) ? 1
                                                                               : 0;
    if (b.ref + nref > bc.refs.size()) {
      *why = "instr " + std::to_string(i) + ": operand index out of range";
      return false;
    }
    if (b.fused && i + b.fused > bc.code.size()) {
      *why = "instr " + std::to_string(i) + ": fused run past the end";
      return false;
    }
  }
  return true;
}

std::string DumpBytecode(const Bytecode& bc) {
  std::string s = "bytecode v" + std::to_string(bc.version) + " rank " + std::to_string(bc.rank) +
                  " nranks " + std::to_string(bc.nranks) + " count " + std::to_string(bc.count) +
                  " scale_unit " + std::to_string(bc.scale_unit) +
                  (bc.shm_banked ? " banked" : "") + " instrs " + std::to_string(bc.code.size()) +
                  " (" + std::to_string(bc.code.size() * sizeof(BcInstr)) + " bytes) refs " +
                  std::to_string(bc.refs.size()) + "\n";
  for (size_t i = 0; i < bc.code.size(); ++i) {
    const BcInstr& b = bc.code[i];
    const auto op = static_cast<ir::Opcode>(b.op);
    char head[96];
    std::snprintf(head, sizeof head, "  %04zu %-7s peer=%d aux=%d bytes=%llu", i, ir::Mnemonic(op),
                  b.peer, b.aux, static_cast<unsigned long long>(b.bytes));
    s += head;
    const size_t nref = IsLocal(op)                                            ? 1 + b.nsrc
                        : (op == ir::Opcode::kSend || op == ir::Opcode::kRecv) ? 1
                                                                               : 0;
    for (size_t k = 0; k < nref; ++k)
      s += " [" + std::to_string(b.ref + k) + "]" + ir::RefText(FromBc(bc.refs[b.ref + k]));
    if (op == ir::Opcode::kWait || op == ir::Opcode::kWaitOlder)
      s += " value=" + std::to_string(b.value);
    if (b.fused) s += "  fused " + std::to_string(b.fused);
    s += "\n";
  }
  return s;
}

}  // namespace weft::sched
