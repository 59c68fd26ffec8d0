// The resumable bytecode interpreter: runs one rank's program over a transport. It can stop at
// a waitall whose messages have not all completed ("in progress") and continue later, so
// blocking calls, persistent plans (Start, then Test/Wait) and, later, non-blocking calls
// share it. Fused runs of copies and reduces make one cache-blocked pass.
#pragma once

#include <cstddef>
#include <vector>

#include "core/status.h"
#include "exec/transport.h"
#include "sched/passes/bytecode.h"

namespace weft {

/// Where this execution's spaces live.
struct ExecBuffers {
  const unsigned char* send = nullptr;
  unsigned char* recv = nullptr;
  unsigned char* scratch = nullptr;
  /// Write the receive buffer with non-temporal stores (a large result the caller will not
  /// find in cache anyway; WEFT_NT_MIN_BYTES).
  bool stream_recv = false;
  /// Write shared slots with non-temporal stores (node peers that do not share this core's
  /// cache read them from memory faster than from this cache; WEFT_SHM_STREAM).
  bool stream_shm = false;
};

/// One execution at a time of one bytecode program.
class Interpreter {
 public:
  /// Begins an execution (the program must outlive it).
  void Start(const sched::Bytecode* bc, const ExecBuffers& bufs);
  /// Runs on: to the end when blocking; else until a waitall would block (*done false).
  /// Errors: what the transport reports; weftInternalError for node memory or counters the
  /// transport does not have, with the reason in *why.
  Status Resume(Transport& t, bool blocking, bool* done, const char** why);
  bool active() const { return active_; }

 private:
  unsigned char* Resolve(const sched::BcRef& r) const;
  // An operand in one of this execution's own spaces (send, recv, scratch, shm).
  unsigned char* Local(const sched::BcRef& r) const {
    return local_base_[r.space] + r.rank * local_stride_[r.space] + r.offset;
  }
  Status RunLocal(size_t first, size_t count, uint64_t offset, uint64_t len, bool* streamed,
                  const char** why);

  const sched::Bytecode* bc_ = nullptr;
  Transport* t_ = nullptr;  // the transport of the current Resume (node slots)
  ExecBuffers bufs_;
  bool fresh_ = false;  // started, not yet resumed: the transport's execution begins
  // This execution's own spaces (send, recv, scratch, shm, in ir::Space order): an operand
  // lies at local_base_[space] + rank * local_stride_[space] + offset (only shm has a stride).
  unsigned char* local_base_[4] = {};
  uint64_t local_stride_[4] = {};
  bool plain_copies_ = false;      // no streaming stores and no peer buffers in this execution
  std::vector<const void*> srcs_;  // a reduce's source pointers (kept: no allocation per call)
  // What the program's operands need, found once per program (not per execution):
  const sched::Bytecode* surveyed_ = nullptr;  // the program surveyed
  bool uses_node_slots_ = false;               // some operand is a shared slot
  bool uses_peer_buffers_ = false;             // some operand is a node peer's user buffer
  size_t pc_ = 0;
  bool active_ = false;
};

}  // namespace weft
