// The transport a compiled collective runs over: messages through MPI point-to-point, and,
// when the communicator's ranks share a node segment, node memory and counters through it.
#pragma once

#include <memory>
#include <string>

#include "comm/comm.h"
#include "transport/mpi/mpi_transport.h"
#include "transport/shm/shm_segment.h"

namespace weft {

/// MPI messages + an optional node segment.
class ScheduleTransport final : public Transport {
 public:
  explicit ScheduleTransport(Comm& comm) : comm_(comm), mpi_(comm) {}
  /// The node segment of the next execution (none: counters and node memory are unavailable).
  void set_shm(std::shared_ptr<ShmSegment> shm) { shm_ = std::move(shm); }
  Status Isend(int peer, const void* buf, uint64_t bytes, int tag) override {
    return mpi_.Isend(peer, buf, bytes, tag);
  }
  Status Irecv(int peer, void* buf, uint64_t bytes, int tag) override {
    return mpi_.Irecv(peer, buf, bytes, tag);
  }
  Status Complete(bool blocking, bool* done) override { return mpi_.Complete(blocking, done); }
  void Cancel() override { mpi_.Cancel(); }
  void BeginExecution(const void* send, const void* recv) override;
  bool SingleCopy() const override { return shm_ != nullptr && comm_.single_copy; }
  Status PeerCopy(int node_rank, int space, uint64_t offset, void* local, uint64_t n, bool write,
                  const char** why) override;
  unsigned char* NodeSlot(int node_rank) override { return shm_ ? shm_->Slot(node_rank) : nullptr; }
  Status Signal(int counter) override;
  Status WaitCounter(int node_peer, int counter, uint64_t value, bool blocking,
                     bool* reached) override;
  void set_slot(uint32_t slot) { mpi_.set_slot(slot); }

 private:
  Comm& comm_;
  MpiTransport mpi_;
  std::shared_ptr<ShmSegment> shm_;
  uint64_t base_[ShmSegment::kCounters] = {};
  std::string peer_error_;  // the text behind PeerCopy's *why
};

}  // namespace weft
