// What a transport needs of the communicator it runs on: its MPI communicator and rank, two
// facts about its node, its current node segment, and where failures go. The communicator
// (comm/comm.h) is one; transport/ sees only this, so the layers point one way.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "core/hot_path.h"
#include "core/status.h"

namespace weft {

class ShmSegment;

/// The communicator as its transports see it.
struct CommLink {
  MPI_Comm mpi = MPI_COMM_NULL;  ///< weft's duplicate: all collective traffic
  int rank = 0;
  /// Node peers' user buffers are reachable by single copy (CMA probed at creation, WEFT_CMA).
  bool single_copy = false;
  /// More ranks on this node than CPUs this process may run on: waits yield at once instead
  /// of spinning first (a spinning waiter holds the core its peer needs).
  bool node_oversubscribed = false;
  /// weftCommAbort was called (perhaps from another thread): every wait on this communicator
  /// ends at its next look at its peers (about once a millisecond) with AbortedWhileWaiting.
  std::atomic<bool> abort_requested{false};

  virtual ~CommLink() = default;
  /// Records a failure's text (for weftGetLastError), logs it at WARN, returns s.
  virtual Status Fail(Status s, const char* fmt, ...) WEFT_COLD
      __attribute__((format(printf, 3, 4))) = 0;
  /// Records an MPI failure of `what` with MPI's own error string; returns weftMpiError.
  virtual Status FailMpi(int mpi_err, const char* what) = 0;
  /// Marks the communicator broken with s: every later call fails fast, and node peers waiting
  /// on this rank end at once.
  virtual void Break(Status s) WEFT_COLD = 0;
  /// The current node segment, or null (no reference taken: for comparing with one held).
  virtual const ShmSegment* current_segment() const = 0;
  /// Where node rank q's address `remote` (inside one of this communicator's weftMemAlloc
  /// allocations) is mapped in this process, or null.
  virtual unsigned char* MappedPeerAddress(int node_rank, uint64_t remote) const = 0;

  /// The error a wait returns once it sees abort_requested (`what` names the wait).
  Status AbortedWhileWaiting(const char* what) {
    return Fail(weftInvalidUsage,
                "%s: the communicator was aborted (weftCommAbort) while this call waited", what);
  }
};

}  // namespace weft
