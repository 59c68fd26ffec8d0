#include "coll/progress.h"

#include <algorithm>
#include <mutex>

#include "coll/progress_thread.h"
#include "core/hot_path.h"
#include "core/wait_hook.h"
#include "native/mpi_progress.h"

namespace weft {
namespace {

// Executions queued on all communicators: the wait hook has nothing to do while it is zero.
std::atomic<int> g_queued{0};

void AdvanceQueued(Comm& comm, bool without_mpi = false);

// The wait hook (core/wait_hook.h): a wait on one communicator advances the executions queued
// on the others, as a test would, never blocking (another thread advancing one keeps it).
void AdvanceOtherComms() {
  thread_local bool inside = false;  // a test below never waits, but never recurse
  if (inside) return;
  struct Inside {  // cleared however the pass ends
    Inside() { inside = true; }
    ~Inside() { inside = false; }
  } mark;
  PokeMpiProgress();
  if (g_queued.load(std::memory_order_acquire) == 0) return;
  ForEachLiveComm([](Comm& comm) {
    if (&comm == BusyOn::current() || comm.in_flight_count.load(std::memory_order_acquire) == 0 ||
        comm.abort_requested.load(std::memory_order_relaxed)) {
      return;
    }
    std::unique_lock<std::mutex> lk(comm.progress_mu, std::try_to_lock);
    if (!lk.owns_lock()) return;
    BusyOn busy(comm);
    AdvanceQueued(comm);
  });
}

const bool kHookSet = [] {
  WaitHookSlot().store(&AdvanceOtherComms, std::memory_order_release);
  return true;
}();

// Removes e from the queue with its result and tells its owner (which may delete it).
void Complete(Comm& comm, Execution* e, Status s) {
  auto it = std::find(comm.in_flight.begin(), comm.in_flight.end(), e);
  if (it != comm.in_flight.end()) {
    comm.in_flight.erase(it);
    g_queued.fetch_sub(1, std::memory_order_release);
  }
  comm.in_flight_count.store(static_cast<int>(comm.in_flight.size()), std::memory_order_release);
  e->program->set_deferred(false);
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

// Whether the deferred execution at position i of the queue may begin now: every earlier one
// has begun and issued all its calls (MPI matches a communicator's calls by issue order), and
// it need not wait for one to finish.
bool MayBegin(const Comm& comm, size_t i) {
  if (i > 0) {
    const Execution* before = comm.in_flight[i - 1];
    if (!before->begun || before->program->IssuesMore()) return false;
  }
  return comm.in_flight[i]->program->StartsWithoutWaiting(comm);
}

// Begins a deferred execution (the oldest not begun); false if its start failed, which
// completes it with the failure.
bool Begin(Comm& comm, Execution* e) {
  e->begun = true;
  e->program->set_deferred(false);
  const Status s = e->program->Start(comm, e->bind);
  if (s == weftSuccess) return true;
  Complete(comm, e, s);
  return false;
}

// Advances every queued execution of comm, oldest first, without blocking (progress lock held):
// a peer may be waiting for this rank's part of any. Deferred ones begin in order as they may.
// without_mpi (the progress thread): only what calls no MPI routine is begun or tested.
void AdvanceQueued(Comm& comm, bool without_mpi) {
  if (FailAllIfBroken(comm)) return;
  for (size_t i = 0; i < comm.in_flight.size();) {
    Execution* x = comm.in_flight[i];
    if (!x->begun) {
      // The later ones are deferred too.
      if (!MayBegin(comm, i) || (without_mpi && !x->program->BeginsWithoutMpi(comm))) return;
      if (!Begin(comm, x)) continue;  // x left the queue: i names the next one
    }
    if (without_mpi && x->program->MayCallMpi()) {
      ++i;
      continue;
    }
    bool finished = false;
    Status s = x->program->Test(comm, &finished);
    if (finished || s != weftSuccess) {
      Complete(comm, x, s);  // x leaves the queue: i now names the next one
    } else {
      ++i;
    }
  }
}

// Blocks until the oldest queued execution completes.
void WaitOldestLocked(Comm& comm) {
  if (FailAllIfBroken(comm)) return;
  Execution* oldest = comm.in_flight.front();
  if (!oldest->begun && !Begin(comm, oldest)) return;  // nothing earlier left to wait for
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

thread_local const Comm* BusyOn::current_ = nullptr;

WEFT_HOT Status StartExecutionLocked(Comm& comm, Execution* e, Executable* program,
                                     const Bind& bind) {
  BusyOn busy(comm);
  if (e->queued) {
    return comm.Fail(weftInvalidUsage, "the previous start of this operation is not complete");
  }
  e->program = program;
  e->status = weftSuccess;
  e->bind = bind;
  e->begun = false;
  auto enqueue = [&] {
    e->queued = true;
    comm.in_flight.push_back(e);
    g_queued.fetch_add(1, std::memory_order_release);
    comm.in_flight_count.store(static_cast<int>(comm.in_flight.size()), std::memory_order_release);
    WakeProgressThread();
  };
  // MPI matches a communicator's collectives by the order ranks issue them, and a native
  // execution issues its next call when it sees the previous one complete (at different times
  // on different ranks): so one begins only after the execution before it has issued all its
  // calls. A compiled one begins only after the executions it reuses resources of finished.
  // Otherwise it waits in the queue, deferred, and the test or wait that frees it begins it.
  const bool behind = !comm.in_flight.empty() && (!comm.in_flight.back()->begun ||
                                                  comm.in_flight.back()->program->IssuesMore());
  if (behind || !program->StartsWithoutWaiting(comm)) {
    program->set_deferred(true);
    enqueue();
    AdvanceQueued(comm);  // the earlier ones may be done by now
    return weftSuccess;
  }
  WEFT_CHECK(program->Start(comm, bind));
  e->begun = true;
  enqueue();
  return weftSuccess;
}

WEFT_HOT Status TestExecution(Comm& comm, Execution* e, bool* done) {
  *done = false;
  std::unique_lock<std::mutex> lk(comm.progress_mu, std::try_to_lock);
  if (!lk.owns_lock()) return weftSuccess;  // another thread is advancing them
  BusyOn busy(comm);
  if (e->queued) AdvanceQueued(comm);
  *done = !e->queued;
  return *done ? Take(e) : weftSuccess;
}

WEFT_HOT Status WaitExecution(Comm& comm, Execution* e) {
  std::lock_guard<std::mutex> lk(comm.progress_mu);
  BusyOn busy(comm);
  while (e->queued) WaitOldestLocked(comm);
  return Take(e);
}

Status DrainExecutions(Comm& comm) {
  std::lock_guard<std::mutex> lk(comm.progress_mu);
  BusyOn busy(comm);
  while (!comm.in_flight.empty()) WaitOldestLocked(comm);
  return comm.CheckUsable("a blocking collective after nonblocking ones");
}

void AdvanceWithoutMpi(Comm& comm) { AdvanceQueued(comm, true); }

int QueuedExecutions() { return g_queued.load(std::memory_order_acquire); }

void AbandonExecutions(Comm& comm) {
  std::lock_guard<std::mutex> lk(comm.progress_mu);
  BusyOn busy(comm);
  while (!comm.in_flight.empty()) {
    Execution* e = comm.in_flight.front();
    e->program->Abandon();
    Complete(comm, e, weftInvalidUsage);
  }
}

}  // namespace weft
