// The first transport: MPI point-to-point on weft's own duplicate communicator, so schedule
// messages never meet the user's. Several compiled collectives may be in flight on one
// communicator at once (persistent plans started together, a blocking call beside them); each
// execution takes the communicator's next slot, the same on every rank because MPI has every
// rank start collectives in the same order, and its tags are kScheduleTagBase + slot *
// kTagsPerSlot + (program tag mod kTagsPerSlot). Program tags only separate pipeline chunks,
// whose rounds are aligned on both ends, so reusing a tag 256 chunks later keeps FIFO order.
// weftSend and weftRecv use a tag below the base. Messages over 1 GiB go as several MPI messages
// (counts are int); MPI's non-overtaking rule keeps the pieces in order.
#pragma once

#include <mpi.h>

#include <vector>

#include "exec/transport.h"
#include "transport/comm_link.h"

namespace weft {

/// Tag of slot 0's tag 0.
inline constexpr int kScheduleTagBase = 0x4000;
/// Executions that can be in flight at once on one communicator without sharing tags.
inline constexpr int kScheduleSlots = 64;
inline constexpr int kTagsPerSlot = 256;  // 0x4000 + 64 * 256 = 32768: MPI's guaranteed bound

/// Isend/Irecv on comm.mpi.
class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(CommLink& comm) : comm_(comm) {}
  ~MpiTransport() override { Cancel(); }
  Status Isend(int peer, const void* buf, uint64_t bytes, int tag) override;
  Status Irecv(int peer, void* buf, uint64_t bytes, int tag) override;
  Status Complete(bool blocking, bool* done) override;
  Status CompleteOlder(uint64_t keep, bool blocking, bool* done) override;
  void Cancel() override;
  /// The slot of the execution about to start.
  void set_slot(uint32_t slot) { slot_ = static_cast<int>(slot % kScheduleSlots); }

 private:
  Status Post(bool send, int peer, void* buf, uint64_t bytes, int tag);
  int Tag(int tag) const { return kScheduleTagBase + slot_ * kTagsPerSlot + tag % kTagsPerSlot; }
  CommLink& comm_;
  int slot_ = 0;
  std::vector<MPI_Request> reqs_;
  std::vector<size_t> starts_;  // per message started, its first request in reqs_
};

}  // namespace weft
