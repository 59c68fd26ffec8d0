#include "coll/progress.h"

#include <algorithm>
#include <mutex>

#include "core/hot_path.h"

namespace weft {
namespace {

// Removes e from the queue with its result and tells its owner (which may delete it).
void Complete(Comm& comm, Execution* e, Status s) {
  auto it = std::find(comm.in_flight.begin(), comm.in_flight.end(), e);
  if (it != comm.in_flight.end()) comm.in_flight.erase(it);
  comm.in_flight_count.store(static_cast<int>(comm.in_flight.size()), std::memory_order_release);
  e->status = s;
  e->queued = false;
  e->Completed();
}

// A broken communicator's executions cannot finish (a peer failed or timed out): each ends
// with the failure that broke it.
bool FailAllIfBroken(Comm& comm) {
  const int broken = comm.broken.load(std::memory_order_acquire);
  if (broken == weftSuccess) return false;
  while (!comm.in_flight.empty()) {
    Complete(comm, comm.in_flight.front(), static_cast<Status>(broken));
  }
  return true;
}

// Blocks until the oldest queued execution completes.
void WaitOldestLocked(Comm& comm) {
  if (FailAllIfBroken(comm)) return;
  Execution* oldest = comm.in_flight.front();
  Complete(comm, oldest, oldest->program->Wait(comm));
}

// The result of a completed execution, reported once: a later Wait with nothing started
// returns success, as it always did.
Status Take(Execution* e) {
  Status s = e->status;
  e->status = weftSuccess;
  return s;
}

}  // namespace

WEFT_HOT Status StartExecutionLocked(Comm& comm, Execution* e, Executable* program,
                                     const Bind& bind) {
  if (e->queued) {
    return comm.Fail(weftInvalidUsage, "the previous start of this operation is not complete");
  }
  // MPI matches a communicator's collectives by the order ranks issue them. A native execution
  // issues its next step when it sees the previous one complete, which happens at different
  // times on different ranks: were another execution's call issued meanwhile, ranks would
  // issue the two in different orders. So an execution still to issue steps completes before
  // the next starts (oldest first, as every wait here), and only the newest one ever has steps
  // left to issue.
  if (!comm.in_flight.empty() && comm.in_flight.back()->program->IssuesMore()) {
    while (!comm.in_flight.empty()) WaitOldestLocked(comm);  // up to the newest: all
  }
  e->program = program;
  e->status = weftSuccess;
  WEFT_CHECK(program->Start(comm, bind));
  e->queued = true;
  comm.in_flight.push_back(e);
  comm.in_flight_count.store(static_cast<int>(comm.in_flight.size()), std::memory_order_release);
  return weftSuccess;
}

WEFT_HOT Status TestExecution(Comm& comm, Execution* e, bool* done) {
  *done = false;
  std::unique_lock<std::mutex> lk(comm.progress_mu, std::try_to_lock);
  if (!lk.owns_lock()) return weftSuccess;  // another thread is advancing them
  if (e->queued && !FailAllIfBroken(comm)) {
    // Every queued execution, oldest first: a peer may be waiting for this rank's part of any.
    for (size_t i = 0; i < comm.in_flight.size();) {
      Execution* x = comm.in_flight[i];
      bool finished = false;
      Status s = x->program->Test(comm, &finished);
      if (finished || s != weftSuccess) {
        Complete(comm, x, s);  // x leaves the queue: i now names the next one
      } else {
        ++i;
      }
    }
  }
  *done = !e->queued;
  return *done ? Take(e) : weftSuccess;
}

WEFT_HOT Status WaitExecution(Comm& comm, Execution* e) {
  std::lock_guard<std::mutex> lk(comm.progress_mu);
  while (e->queued) WaitOldestLocked(comm);
  return Take(e);
}

Status DrainExecutions(Comm& comm) {
  std::lock_guard<std::mutex> lk(comm.progress_mu);
  while (!comm.in_flight.empty()) WaitOldestLocked(comm);
  return comm.CheckUsable("a blocking collective after nonblocking ones");
}

void AbandonExecutions(Comm& comm) {
  std::lock_guard<std::mutex> lk(comm.progress_mu);
  while (!comm.in_flight.empty()) {
    Execution* e = comm.in_flight.front();
    e->program->Abandon();
    Complete(comm, e, weftInvalidUsage);
  }
}

}  // namespace weft
