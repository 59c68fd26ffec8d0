// The transport a compiled collective runs over: messages through MPI point-to-point, and,
// when the communicator's ranks share a node segment, node memory and counters through it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transport/comm_link.h"
#include "transport/mpi/mpi_transport.h"
#include "transport/shm/shm_segment.h"

namespace weft {

/// MPI messages + an optional node segment.
class ScheduleTransport final : public Transport {
 public:
  explicit ScheduleTransport(CommLink& comm) : comm_(comm), mpi_(comm) {}
  /// The node segment of the next execution (none: counters and node memory are unavailable).
  void set_shm(std::shared_ptr<ShmSegment> shm) {
    shm_ = std::move(shm);
    for (int c = 0; c < ShmSegment::kCounters; ++c) {
      own_[c] = shm_ ? &shm_->Counter(shm_->rank(), c) : nullptr;
    }
  }
  /// The segment set_shm gave (null: none).
  ShmSegment* shm() const { return shm_.get(); }
  /// The peers' buffers of every execution lie in weftMemAlloc memory (AgreeZeroCopy said so):
  /// PeerPointer finds them. Not otherwise: a buffer that merely starts in such memory may
  /// run past the peer's mapping.
  void set_mapped_peers(bool on) { mapped_peers_ = on; }
  Status Isend(int peer, const void* buf, uint64_t bytes, int tag) override {
    return mpi_.Isend(peer, buf, bytes, tag);
  }
  Status Irecv(int peer, void* buf, uint64_t bytes, int tag) override {
    return mpi_.Irecv(peer, buf, bytes, tag);
  }
  Status Complete(bool blocking, bool* done) override { return mpi_.Complete(blocking, done); }
  Status CompleteOlder(uint64_t keep, bool blocking, bool* done) override {
    return mpi_.CompleteOlder(keep, blocking, done);
  }
  void Cancel() override { mpi_.Cancel(); }
  void BeginExecution(const void* send, const void* recv, uint64_t bank_bytes) override;
  bool SingleCopy() const override { return shm_ != nullptr && comm_.single_copy; }
  Status PeerCopy(int node_rank, int space, uint64_t offset, void* local, uint64_t n, bool write,
                  const char** why) override;
  unsigned char* PeerPointer(int node_rank, int space) override;
  unsigned char* NodeSlot(int node_rank) override;
  uint64_t NodeSlotStride() const override;
  Status Signal(int counter) override;
  Status WaitCounter(int node_peer, int counter, uint64_t value, bool blocking,
                     bool* reached) override;
  void set_slot(uint32_t slot) { mpi_.set_slot(slot); }

 private:
  CommLink& comm_;
  MpiTransport mpi_;
  std::shared_ptr<ShmSegment> shm_;
  uint64_t base_[ShmSegment::kCounters] = {};
  // This rank's counters, looked up once per segment (set_shm), not at every signal.
  std::atomic<uint64_t>* own_[ShmSegment::kCounters] = {};
  std::atomic<uint64_t>& Own(int c) const { return *own_[c]; }
  int bank_ = -1;            // this execution's latency bank (-1: the general slots)
  BankPlacer::Entry entry_;  // the entry wait (counter 0, value 0) of this execution
  // The word a wait on node rank r's counter c for `value` watches: the counter, or, in a
  // banked execution, the stamp of r's bank for counter 0 past the entry value.
  std::atomic<uint64_t>& Watched(int r, int c, uint64_t value) const;
  // PeerPointer's answers in this execution, two per node rank (send, recv); kUnknown: not
  // looked up yet.
  std::vector<unsigned char*> peer_ptr_;
  bool mapped_peers_ = false;
  std::string peer_error_;  // the text behind PeerCopy's *why
};

}  // namespace weft
