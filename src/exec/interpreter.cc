#include "exec/interpreter.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/dtype.h"
#include "core/hot_path.h"
#include "exec/kway_reduce.h"
#include "exec/stream_copy.h"

namespace weft {
namespace {

// Block of a fused pass: the run's operands for one block stay in L1/L2 between instructions.
constexpr uint64_t kFuseBlockBytes = 16 << 10;

}  // namespace

WEFT_HOT void Interpreter::Start(const sched::Bytecode* bc, const ExecBuffers& bufs) {
  bc_ = bc;
  bufs_ = bufs;
  pc_ = 0;
  active_ = true;
  fresh_ = true;
}

static_assert(static_cast<int>(ir::Space::kSend) == 0 && static_cast<int>(ir::Space::kRecv) == 1 &&
                  static_cast<int>(ir::Space::kScratch) == 2 &&
                  static_cast<int>(ir::Space::kShm) == 3,
              "local_base_ is indexed by the local spaces' values");

WEFT_HOT unsigned char* Interpreter::Resolve(const sched::BcRef& r) const {
  if (r.space <= static_cast<uint8_t>(ir::Space::kShm)) {  // this rank's own spaces
    const bool no_node_memory =
        r.space == static_cast<uint8_t>(ir::Space::kShm) && local_base_[r.space] == nullptr;
    return no_node_memory ? nullptr : Local(r);
  }
  // A peer's user buffer: mapped here (weftMemAlloc), or single copy only.
  unsigned char* peer = t_->PeerPointer(r.rank, r.space);
  return peer == nullptr ? nullptr : peer + r.offset;
}

namespace {
// Shared-slot writes shorter than this stay plain stores (a streamed line costs a full write to
// memory; latency-path messages are read at once by a peer).
constexpr uint64_t kStreamShmMin = 4096;

bool IsPeer(uint8_t space) {
  return space == static_cast<uint8_t>(ir::Space::kPeerSend) ||
         space == static_cast<uint8_t>(ir::Space::kPeerRecv);
}
}  // namespace

// Runs instructions [first, first + count) on bytes [offset, offset + len) of their operands.
// *streamed: non-temporal stores were used (the caller fences).
WEFT_HOT Status Interpreter::RunLocal(size_t first, size_t count, uint64_t offset, uint64_t len,
                                      bool* streamed, const char** why) {
  const size_t es = TypeSize(bc_->dtype);
  for (size_t i = first; i < first + count; ++i) {
    const sched::BcInstr& in = bc_->code[i];
    const sched::BcRef& dref = bc_->refs[in.ref];
    const auto dspace = static_cast<ir::Space>(dref.space);
    const bool stream = (bufs_.stream_recv && dspace == ir::Space::kRecv) ||
                        (bufs_.stream_shm && dspace == ir::Space::kShm && len >= kStreamShmMin);
    if (in.op == static_cast<uint8_t>(ir::Opcode::kCopy)) {
      const sched::BcRef& sref = bc_->refs[in.ref + 1];
      unsigned char* dst = Resolve(dref);
      const unsigned char* src = Resolve(sref);
      if (dst == nullptr || src == nullptr) {  // a node peer's unmapped buffer: single copy
        const bool write = IsPeer(dref.space);
        const sched::BcRef& peer = write ? dref : sref;
        unsigned char* local = Resolve(write ? sref : dref) + offset;
        Status s =
            t_->PeerCopy(peer.rank, peer.space, peer.offset + offset, local, len, write, why);
        if (s != weftSuccess) return s;
        continue;
      }
      dst += offset;
      src += offset;
      if (src == dst) continue;  // in place: the same bytes
      // Overlap only arises in place (the verifier keeps a copy's operands disjoint).
      const bool overlap = src < dst + len && dst < src + len;
      if (stream && !overlap) {
        StreamCopy(dst, src, len);
      } else {
        std::memmove(dst, src, len);
      }
      *streamed |= stream && !overlap;
    } else {
      srcs_.resize(in.nsrc);
      for (uint32_t j = 0; j < in.nsrc; ++j) srcs_[j] = Resolve(bc_->refs[in.ref + 1 + j]) + offset;
      KWayReduce(Resolve(dref) + offset, srcs_.data(), static_cast<int>(in.nsrc), len / es,
                 bc_->dtype, static_cast<weftRedOp_t>(in.aux), stream);
      *streamed |= stream;
    }
  }
  return weftSuccess;
}

WEFT_HOT Status Interpreter::Resume(Transport& t, bool blocking, bool* done, const char** why) {
  *done = false;
  t_ = &t;
  if (fresh_) {
    t.BeginExecution(bufs_.send, bufs_.recv, bc_->shm_banked ? bc_->shm_slot_bytes : 0);
    if (surveyed_ != bc_) {
      uses_node_slots_ = uses_peer_buffers_ = false;
      for (const sched::BcRef& r : bc_->refs) {
        uses_node_slots_ |= r.space == static_cast<uint8_t>(ir::Space::kShm);
        uses_peer_buffers_ |= IsPeer(r.space);
      }
      surveyed_ = bc_;
    }
    // Node memory is there for every rank's slot or for none (checked per execution, not per
    // operand: the latency path runs few instructions and this check was a visible part).
    // shm(r) lies r slot strides past shm(0).
    local_base_[0] = const_cast<unsigned char*>(bufs_.send);
    local_base_[1] = bufs_.recv;
    local_base_[2] = bufs_.scratch;
    local_base_[3] = t.NodeSlot(0);
    local_stride_[3] = t.NodeSlotStride();
    plain_copies_ = !bufs_.stream_recv && !bufs_.stream_shm && !uses_peer_buffers_;
    fresh_ = false;
    if (uses_node_slots_ && local_base_[3] == nullptr) {
      *why = "the program uses node memory this transport lacks";
      active_ = false;
      return weftInternalError;
    }
  }
  // The program does not change during an execution: its code is read through locals, not
  // reloaded through bc_ after every call into the transport.
  const sched::BcInstr* const code = bc_->code.data();
  const sched::BcRef* const refs = bc_->refs.data();
  const size_t ninstr = bc_->code.size();
  while (pc_ < ninstr) {
    const sched::BcInstr& in = code[pc_];
    const auto op = static_cast<ir::Opcode>(in.op);
    switch (op) {
      case ir::Opcode::kCopy:
      case ir::Opcode::kReduce: {
        const size_t run = in.fused ? in.fused : 1;
        if (run == 1 && plain_copies_) {
          // The latency path's usual steps (one copy or reduce between this rank's buffers and
          // node slots, plain stores) without RunLocal's general operand handling: 1155 -> 918
          // instructions for an 8-byte bcast root (scripts/count-call-path.sh, RANK=0).
          unsigned char* dst = Local(refs[in.ref]);
          if (op == ir::Opcode::kCopy) {
            const unsigned char* src = Local(refs[in.ref + 1]);
            if (dst != src) std::memmove(dst, src, in.bytes);  // equal: in place
          } else {
            srcs_.resize(in.nsrc);
            for (uint32_t j = 0; j < in.nsrc; ++j) srcs_[j] = Local(refs[in.ref + 1 + j]);
            KWayReduce(dst, srcs_.data(), static_cast<int>(in.nsrc),
                       in.bytes / TypeSize(bc_->dtype), bc_->dtype,
                       static_cast<weftRedOp_t>(in.aux), false);
          }
          ++pc_;
          continue;
        }
        // A peer's buffer is checked where it is used: its address is published by the peer's
        // own execution, which an earlier wait of the program has seen begin.
        for (size_t i = pc_; uses_peer_buffers_ && i < pc_ + run; ++i) {
          const sched::BcInstr& x = code[i];
          for (size_t j = 0; j <= x.nsrc; ++j) {
            const sched::BcRef& r = bc_->refs[x.ref + j];
            const auto space = static_cast<ir::Space>(r.space);
            if (space == ir::Space::kSend || space == ir::Space::kRecv ||
                space == ir::Space::kScratch || space == ir::Space::kShm) {
              continue;  // always resolvable (node slots checked at the start)
            }
            // A peer's buffer is reached by the transport's single copy, by copies only.
            const bool peer_ok = IsPeer(r.space) && t.SingleCopy() &&
                                 x.op == static_cast<uint8_t>(ir::Opcode::kCopy);
            if (!peer_ok && Resolve(r) == nullptr) {
              *why = "the program uses a peer's buffer this transport lacks";
              active_ = false;
              return weftInternalError;
            }
          }
        }
        bool streamed = false;
        Status s = weftSuccess;
        if (run == 1) {
          s = RunLocal(pc_, run, 0, in.bytes, &streamed, why);
        } else {
          const size_t es = TypeSize(bc_->dtype);
          const uint64_t block = std::max<uint64_t>(es, kFuseBlockBytes / es * es);
          for (uint64_t o = 0; o < in.bytes && s == weftSuccess; o += block) {
            s = RunLocal(pc_, run, o, std::min(block, in.bytes - o), &streamed, why);
          }
        }
        if (s != weftSuccess) {
          t.Cancel();
          active_ = false;
          return s;
        }
        // Non-temporal stores are weakly ordered: complete them before any later signal.
        if (streamed) StreamFence();
        pc_ += run;
        continue;
      }
      case ir::Opcode::kSend:
      case ir::Opcode::kRecv: {
        unsigned char* p = Resolve(bc_->refs[in.ref]);
        if (p == nullptr) {
          *why = "a message from node memory needs the shared-memory transport";
          active_ = false;
          return weftInternalError;
        }
        Status s = op == ir::Opcode::kSend ? t.Isend(in.peer, p, in.bytes, in.aux)
                                           : t.Irecv(in.peer, p, in.bytes, in.aux);
        if (s != weftSuccess) {
          t.Cancel();
          active_ = false;
          return s;
        }
        break;
      }
      case ir::Opcode::kWaitAll:
      case ir::Opcode::kWaitOlder: {
        bool all = false;
        Status s = op == ir::Opcode::kWaitAll ? t.Complete(blocking, &all)
                                              : t.CompleteOlder(in.value, blocking, &all);
        if (s != weftSuccess) {
          t.Cancel();
          active_ = false;
          return s;
        }
        if (!all) return weftSuccess;  // in progress: resume here later
        break;
      }
      case ir::Opcode::kSignal:
      case ir::Opcode::kWait: {
        bool reached = true;
        Status s = op == ir::Opcode::kSignal
                       ? t.Signal(in.aux)
                       : t.WaitCounter(in.peer, in.aux, in.value, blocking, &reached);
        if (s == weftNotSupported) {
          *why = "node counters need the shared-memory transport";
          s = weftInternalError;
        }
        if (s != weftSuccess) {
          t.Cancel();
          active_ = false;
          return s;
        }
        if (!reached) return weftSuccess;  // in progress: resume at this wait
        break;
      }
      case ir::Opcode::kFence:
        std::atomic_thread_fence(std::memory_order_seq_cst);
        break;
    }
    ++pc_;
  }
  active_ = false;
  *done = true;
  return weftSuccess;
}

}  // namespace weft
