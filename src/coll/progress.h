// Progress of a communicator's nonblocking executions: requests (weftIAllReduce, ...) and plan
// starts join the communicator's queue in the order they start, which MPI's rules make the
// same on every rank. A test advances every queued execution in that order without blocking;
// a wait completes the oldest first, then the next, until the one it waits for is done.
//
// Why oldest first: ranks may wait for their requests in different orders. The oldest
// execution not yet complete everywhere is, on every rank that has not finished it, the oldest
// one queued, so every rank that waits works on it and it completes; by induction every
// execution does, and no rank blocks on a later one while a peer needs it to advance an earlier
// one (which a wait on one execution alone would: each rank blocked on a different request).
//
// A start never waits for a peer (MPI makes nonblocking and persistent starts local): an
// execution that must first let an earlier one finish (the node segment's previous user, the
// execution 64 back in its tag slot, a native execution still issuing calls) is queued
// deferred, and begins, in order, in the test or wait that finds it free to.
#pragma once

#include "coll/executable.h"

namespace weft {

/// One nonblocking execution of a program, from its start until it completes.
struct Execution {
  virtual ~Execution() = default;
  /// Called once it completes, under the communicator's progress lock, by whichever call
  /// noticed (a freed request deletes itself here). Must not call back into progress.
  virtual void Completed() {}

  Executable* program = nullptr;
  /// Its result: set when it leaves the queue, reported by the next Test/Wait on it.
  Status status = weftSuccess;
  /// Started and not yet complete: in the communicator's in_flight queue.
  bool queued = false;
  /// Its program has begun (false while deferred behind earlier executions).
  bool begun = false;
  /// The buffers it runs on (kept for a deferred begin).
  Bind bind;
};

/// Marks, for a scope, the communicator this thread advances or runs a blocking call on (its
/// progress lock held, or its program running): while this thread waits, the wait hook
/// (core/wait_hook.h), which advances the executions queued on the other communicators,
/// leaves this one alone.
class BusyOn {
 public:
  explicit BusyOn(const Comm& comm) : prev_(current_) { current_ = &comm; }
  ~BusyOn() { current_ = prev_; }
  BusyOn(const BusyOn&) = delete;
  BusyOn& operator=(const BusyOn&) = delete;
  /// The innermost communicator marked on this thread, or null.
  static const Comm* current() { return current_; }

 private:
  static thread_local const Comm* current_;
  const Comm* prev_;
};

/// Starts program on these buffers as execution e and queues it. Call with comm.progress_mu
/// held (the caller may pick and build the program under the same lock).
Status StartExecutionLocked(Comm& comm, Execution* e, Executable* program, const Bind& bind);
/// Advances every queued execution of comm in start order without blocking; *done once e has
/// completed (its status is returned then). Returns at once (not done) if another thread is
/// advancing this communicator.
Status TestExecution(Comm& comm, Execution* e, bool* done);
/// Completes e, completing the executions started before it first.
Status WaitExecution(Comm& comm, Execution* e);
/// Completes every queued execution (blocking collectives do this first, so a blocking call
/// never waits on a peer that waits for this rank to advance an earlier nonblocking one).
Status DrainExecutions(Comm& comm);
/// For the progress thread (coll/progress_thread.h), with comm.progress_mu held: advances, in
/// start order and without blocking, the begun executions of comm whose programs call no MPI
/// routine (MPI may not allow calls from a second thread), beginning deferred ones in order
/// where their start calls none either (no segment growth or placement probe due); stops at
/// the first it may not begin.
void AdvanceWithoutMpi(Comm& comm);
/// Executions queued on all communicators (0: nothing in flight anywhere).
int QueuedExecutions();
/// weftCommAbort: drops every queued execution without waiting (each program abandoned; they
/// complete with weftInvalidUsage).
void AbandonExecutions(Comm& comm);

}  // namespace weft
