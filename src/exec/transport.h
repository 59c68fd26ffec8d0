// What the interpreter needs from the world: point-to-point messages (the MPI transport), and
// later node memory and counters (the shared-memory transport, its own issue).
#pragma once

#include <cstdint>

#include "core/status.h"

namespace weft {

/// Moves the messages of one execution.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Starts sending bytes from buf to peer with tag (buf unchanged until Complete finishes).
  virtual Status Isend(int peer, const void* buf, uint64_t bytes, int tag) = 0;
  /// Starts receiving bytes with tag from peer into buf.
  virtual Status Irecv(int peer, void* buf, uint64_t bytes, int tag) = 0;
  /// Completes every message started: blocking, or one poll (*done says whether all did).
  virtual Status Complete(bool blocking, bool* done) = 0;
  /// Completes every message started but the `keep` started last (waitolder). Completing more
  /// is correct, only slower: the default completes all.
  virtual Status CompleteOlder(uint64_t keep, bool blocking, bool* done) {
    return Complete(blocking, done);
  }
  /// Abandons messages still in flight (after an error).
  virtual void Cancel() = 0;

  // Node memory and counters, from the shared-memory transport (absent: null / NotSupported).
  /// Called at the start of every execution with its user buffers (counter values become
  /// relative to it; with single copy, the buffers are published to the node peers). For a
  /// banked program (ir::Program::shm_banked) bank_bytes is its bank size, else 0.
  virtual void BeginExecution(const void* send, const void* recv, uint64_t bank_bytes) {}
  /// The shm(r) slot of node rank r (of this execution's bank, for a banked program).
  virtual unsigned char* NodeSlot(int node_rank) { return nullptr; }
  /// Slots are evenly spaced: NodeSlot(r) == NodeSlot(0) + r * NodeSlotStride(), so the
  /// interpreter resolves a slot operand without a call per operand.
  virtual uint64_t NodeSlotStride() const { return 0; }
  /// Advances this rank's counter c by one (release: everything written before is visible to
  /// a peer that sees the new value).
  virtual Status Signal(int counter) { return weftNotSupported; }
  /// Whether node peer's counter c has reached the execution's start value + `value`:
  /// blocking waits (spinning, then yielding) up to the deadline, else one look.
  virtual Status WaitCounter(int node_peer, int counter, uint64_t value, bool blocking,
                             bool* reached) {
    return weftNotSupported;
  }
  /// Node peer r's user buffer `space` (ir::Space kPeerSend or kPeerRecv) mapped in this
  /// process (weftMemAlloc memory), or null when it is reachable only by single copy, if at
  /// all. Valid after the peer's first signal of the execution.
  virtual unsigned char* PeerPointer(int node_rank, int space) { return nullptr; }
  /// Reaches node peers' user buffers (the ir's peer_send / peer_recv spaces) by single copy.
  virtual bool SingleCopy() const { return false; }
  /// Single copy of n bytes between `local` and node peer r's user buffer `space` (ir::Space
  /// kPeerSend or kPeerRecv) at offset: read into local, or write local there. The peer's
  /// buffers are those it published at its BeginExecution (wait for its signal first).
  virtual Status PeerCopy(int node_rank, int space, uint64_t offset, void* local, uint64_t n,
                          bool write, const char** why) {
    *why = "this transport has no single copy";
    return weftNotSupported;
  }
};

}  // namespace weft
