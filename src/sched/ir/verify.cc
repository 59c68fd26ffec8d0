#include "sched/ir/verify.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

#include "core/dtype.h"
#include "sched/ir/text.h"

namespace weft::ir {
namespace {

uint64_t SpaceSize(const Program& p, Space s) {
  switch (s) {
    case Space::kSend:
      return p.send_bytes;
    case Space::kRecv:
      return p.recv_bytes;
    case Space::kPeerSend:
    case Space::kPeerRecv:
      // A peer's buffers may differ in size from this rank's (bcast: only the root sends);
      // VerifyMatching checks these refs against the peer's own program.
      return UINT64_MAX;
    case Space::kScratch:
      return p.scratch_bytes;
    case Space::kShm:
      return p.shm_slot_bytes;
  }
  return 0;
}

bool SameBuffer(const Ref& a, const Ref& b) {
  return a.space == b.space && (!HasRank(a.space) || a.rank == b.rank);
}

bool Overlap(const Ref& a, const Ref& b, uint64_t n) {
  return n > 0 && SameBuffer(a, b) && a.offset < b.offset + n && b.offset < a.offset + n;
}

std::string CheckRef(const Program& p, const Ref& r, uint64_t n) {
  if (HasRank(r.space) && (r.rank < 0 || r.rank >= p.nranks)) {
    return "node rank " + std::to_string(r.rank) + " out of range";
  }
  const uint64_t size = SpaceSize(p, r.space);
  if (r.offset > size || n > size - r.offset) {
    return RefText(r) + " + " + std::to_string(n) + " bytes exceeds the space (" +
           std::to_string(size) + " bytes)";
  }
  return "";
}

std::string CheckInstr(const Program& p, const Instr& in) {
  std::string e;
  switch (in.op) {
    case Opcode::kCopy:
      if (in.srcs.size() != 1) return "copy needs one source";
      if (!(e = CheckRef(p, in.dst, in.bytes)).empty()) return e;
      if (!(e = CheckRef(p, in.srcs[0], in.bytes)).empty()) return e;
      if (Overlap(in.dst, in.srcs[0], in.bytes)) return "copy source and destination overlap";
      return "";
    case Opcode::kReduce: {
      if (in.srcs.empty()) return "reduce needs a source";
      const uint64_t es = TypeSize(p.dtype);
      if (es == 0 || in.bytes % es != 0) return "reduce length is not a whole number of elements";
      if (!(e = CheckRef(p, in.dst, in.bytes)).empty()) return e;
      for (size_t i = 0; i < in.srcs.size(); ++i) {
        if (!(e = CheckRef(p, in.srcs[i], in.bytes)).empty()) return e;
        // Kernels read every source of an element before writing it, so the destination may
        // be any one source exactly; a partial overlap would read results.
        const bool exact_alias = in.dst == in.srcs[i];
        if (!exact_alias && Overlap(in.dst, in.srcs[i], in.bytes)) {
          return "reduce destination partly overlaps source " + std::to_string(i);
        }
      }
      return "";
    }
    case Opcode::kSend:
    case Opcode::kRecv: {
      if (in.peer < 0 || in.peer >= p.nranks) return "peer out of range";
      if (in.peer == p.rank) return "send or receive to this rank itself";
      const Ref& r = in.op == Opcode::kSend ? in.srcs.at(0) : in.dst;
      if (in.op == Opcode::kRecv && (r.space == Space::kSend || r.space == Space::kPeerSend)) {
        return "receive into a send buffer";
      }
      return CheckRef(p, r, in.bytes);
    }
    case Opcode::kSignal:
      return in.counter < 0 ? "negative counter" : "";
    case Opcode::kWait:
      if (in.counter < 0) return "negative counter";
      if (in.peer < 0 || in.peer >= p.nranks) return "peer out of range";
      return "";
    case Opcode::kWaitAll:
    case Opcode::kWaitOlder:
    case Opcode::kFence:
      return "";
  }
  return "unknown opcode";
}

// Buffers of sends and receives started and not yet completed by a waitall (or a waitolder that
// reached them): MPI's rules (and any transport's) forbid touching a receive's destination, or
// writing a send's source, until then.
struct InFlight {
  struct Message {
    Ref ref;
    uint64_t len = 0;
    bool send = false;
  };
  std::vector<Message> started;  // in the order started

  bool Hits(bool sends, const Ref& r, uint64_t n) const {
    for (const Message& m : started) {
      if (m.send == sends && SameBuffer(m.ref, r) && n > 0 && m.len > 0 &&
          m.ref.offset < r.offset + n && r.offset < m.ref.offset + m.len) {
        return true;
      }
    }
    return false;
  }
  std::string CheckRead(const Ref& r, uint64_t n) const {
    return Hits(false, r, n) ? "reads " + RefText(r) + " while a receive into it is in flight" : "";
  }
  std::string CheckWrite(const Ref& r, uint64_t n) const {
    if (Hits(false, r, n)) return "writes " + RefText(r) + " while a receive into it is in flight";
    if (Hits(true, r, n)) return "writes " + RefText(r) + " while a send from it is in flight";
    return "";
  }
  std::string Step(const Instr& in) {
    std::string e;
    switch (in.op) {
      case Opcode::kCopy:
      case Opcode::kReduce:
        for (const Ref& r : in.srcs) {
          if (!(e = CheckRead(r, in.bytes)).empty()) return e;
        }
        return CheckWrite(in.dst, in.bytes);
      case Opcode::kSend:
        if (!(e = CheckRead(in.srcs[0], in.bytes)).empty()) return e;
        started.push_back({in.srcs[0], in.bytes, true});
        return "";
      case Opcode::kRecv:
        if (!(e = CheckWrite(in.dst, in.bytes)).empty()) return e;
        started.push_back({in.dst, in.bytes, false});
        return "";
      case Opcode::kWaitAll:
        started.clear();
        return "";
      case Opcode::kWaitOlder:
        started.erase(started.begin(), started.end() - static_cast<ptrdiff_t>(std::min<uint64_t>(
                                                           in.value, started.size())));
        return "";
      default:
        return "";
    }
  }
  bool Empty() const { return started.empty(); }
};

// The buffer refs an instruction touches (its destination where it has one, and its sources).
std::vector<const Ref*> TouchedRefs(const Instr& in) {
  std::vector<const Ref*> refs;
  if (in.op == Opcode::kCopy || in.op == Opcode::kReduce || in.op == Opcode::kRecv) {
    refs.push_back(&in.dst);
  }
  for (const Ref& x : in.srcs) refs.push_back(&x);
  return refs;
}

// A banked program's bank is safe to write only after its entry wait on every peer (whose
// target the transport may relax, shm_segment.h), and the bank's first 8 bytes are the
// transport's stamp.
bool VerifyBanked(const Program& p, std::string* why) {
  std::vector<bool> waited(p.nranks, false);
  waited[p.rank] = true;
  bool entered = false;
  for (const Instr& in : p.code) {
    if (in.op == Opcode::kWait && in.counter == 0 && in.value == 0 && in.peer >= 0 &&
        in.peer < p.nranks) {
      waited[in.peer] = true;
    }
    for (const Ref* r : TouchedRefs(in)) {
      if (r->space != Space::kShm) continue;
      if (r->offset < 8) {
        *why = "rank " + std::to_string(p.rank) + ": a banked program's shm refs start at byte " +
               "8 (the first 8 bytes of a bank are the transport's stamp)";
        return false;
      }
      entered = true;
    }
    for (int q = 0; entered && q < p.nranks; ++q) {
      if (!waited[q]) {
        *why = "rank " + std::to_string(p.rank) + ": a banked program touches its bank before " +
               "its entry wait on node rank " + std::to_string(q);
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool VerifyProgram(const Program& p, std::string* why) {
  if (p.nranks < 1 || p.rank < 0 || p.rank >= p.nranks) {
    *why = "rank " + std::to_string(p.rank) + " of " + std::to_string(p.nranks) + " is invalid";
    return false;
  }
  InFlight flight;
  for (size_t i = 0; i < p.code.size(); ++i) {
    std::string e = CheckInstr(p, p.code[i]);
    if (e.empty()) e = flight.Step(p.code[i]);
    if (!e.empty()) {
      *why = "rank " + std::to_string(p.rank) + " instr " + std::to_string(i) + " (" +
             InstrText(p.code[i]) + "): " + e;
      return false;
    }
  }
  if (!flight.Empty()) {
    *why = "rank " + std::to_string(p.rank) + ": sends or receives left without a final waitall";
    return false;
  }
  return p.shm_banked ? VerifyBanked(p, why) : true;
}

bool VerifyMatching(const std::vector<Program>& programs, std::string* why) {
  const int P = static_cast<int>(programs.size());
  using Key = std::tuple<int, int, int>;              // (from, to, tag)
  std::map<Key, std::vector<uint64_t>> sends, recvs;  // sizes in order
  for (int r = 0; r < P; ++r) {
    const Program& p = programs[r];
    if (p.rank != r || p.nranks != P) {
      *why = "program " + std::to_string(r) + " says rank " + std::to_string(p.rank) + " of " +
             std::to_string(p.nranks);
      return false;
    }
    if (!VerifyProgram(p, why)) return false;
  }
  for (int r = 0; r < P; ++r) {
    const Program& p = programs[r];
    for (const Instr& in : p.code) {
      for (const Ref* x : TouchedRefs(in)) {
        if (x->space != Space::kPeerSend && x->space != Space::kPeerRecv) continue;
        if (in.op != Opcode::kCopy && in.op != Opcode::kReduce) continue;
        const Program& peer = programs[x->rank];
        const uint64_t size = x->space == Space::kPeerSend ? peer.send_bytes : peer.recv_bytes;
        if (x->offset > size || in.bytes > size - x->offset) {
          *why = "rank " + std::to_string(r) + ": " + RefText(*x) + " + " +
                 std::to_string(in.bytes) + " bytes exceeds that peer's buffer (" +
                 std::to_string(size) + " bytes)";
          return false;
        }
      }
      if (in.op == Opcode::kSend) sends[{r, in.peer, in.tag}].push_back(in.bytes);
      if (in.op == Opcode::kRecv) recvs[{in.peer, r, in.tag}].push_back(in.bytes);
    }
  }
  auto describe = [](const Key& k) {
    return std::to_string(std::get<0>(k)) + " -> " + std::to_string(std::get<1>(k)) + " tag " +
           std::to_string(std::get<2>(k));
  };
  for (const auto& [key, sizes] : sends) {
    const auto it = recvs.find(key);
    const size_t got = it == recvs.end() ? 0 : it->second.size();
    if (got != sizes.size()) {
      *why = "messages " + describe(key) + ": " + std::to_string(sizes.size()) + " sent, " +
             std::to_string(got) + " received";
      return false;
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] != it->second[i]) {
        *why = "message " + std::to_string(i) + " " + describe(key) + ": " +
               std::to_string(sizes[i]) + " bytes sent, " + std::to_string(it->second[i]) +
               " expected";
        return false;
      }
    }
  }
  for (const auto& [key, sizes] : recvs) {
    if (sends.find(key) == sends.end()) {
      *why =
          "messages " + describe(key) + ": 0 sent, " + std::to_string(sizes.size()) + " received";
      return false;
    }
  }
  return true;
}

}  // namespace weft::ir
