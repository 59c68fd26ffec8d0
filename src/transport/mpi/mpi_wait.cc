#include "transport/mpi/mpi_wait.h"

#include <sched.h>

#include <chrono>

#include "core/params.h"
#include "core/spin_wait.h"
#include "transport/shm/shm_segment.h"

namespace weft {
namespace {

// Polls before the first yield: a message from a busy peer usually lands within a few
// microseconds, and a yield costs a system call.
constexpr uint64_t kSpins = 256;

}  // namespace

Status WaitAllWithin(CommLink& comm, int n, MPI_Request* reqs, const char* what) {
  int err = MPI_SUCCESS;
  int flag = 0;
  auto done = [&] {
    err = PMPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE);
    return err != MPI_SUCCESS || flag != 0;
  };
  if (done()) return err == MPI_SUCCESS ? weftSuccess : comm.FailMpi(err, what);
  const ShmSegment* seg = comm.current_segment();
  int failed = -1;
  uint64_t failure = 0;
  bool exited = false;
  auto hopeless = [&] {
    return comm.abort_requested.load(std::memory_order_relaxed) ||
           (seg != nullptr && seg->FindFailedPeer(&failed, &failure, &exited));
  };
  const int64_t timeout_s = GetParams().WEFT_TIMEOUT_S;
  const uint64_t spins = comm.node_oversubscribed ? 0 : kSpins;
  if (SpinThenYield(done, spins, timeout_s, hopeless)) {
    return err == MPI_SUCCESS ? weftSuccess : comm.FailMpi(err, what);
  }
  CancelAll(n, reqs);
  if (comm.abort_requested.load()) return comm.AbortedWhileWaiting(what);
  if (failed >= 0) {
    comm.Break(weftRemoteError);
    return comm.Fail(weftRemoteError, "%s: node rank %d %s", what, failed,
                     exited ? "exited (a peer died)" : "failed");
  }
  comm.Break(weftTimeout);
  return comm.Fail(weftTimeout,
                   "%s: waited %lld s for a peer's messages: a peer died, left or stopped "
                   "(WEFT_TIMEOUT_S)",
                   what, static_cast<long long>(timeout_s));
}

void CancelAll(int n, MPI_Request* reqs) {
  for (int i = 0; i < n; ++i) {
    if (reqs[i] != MPI_REQUEST_NULL) PMPI_Cancel(&reqs[i]);
  }
  // A cancelled receive completes at once; one already matched completes when its data has
  // arrived. 100 ms of polling lets both finish before anything is freed.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  for (int flag = 0; !flag && std::chrono::steady_clock::now() < until; sched_yield()) {
    if (PMPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS) break;
  }
  for (int i = 0; i < n; ++i) {
    if (reqs[i] != MPI_REQUEST_NULL) PMPI_Request_free(&reqs[i]);
  }
}

}  // namespace weft
