// The optional progress thread (WEFT_PROGRESS_THREAD=1): one background thread per process
// that, while nonblocking executions are in flight, keeps advancing those that need no MPI
// call (shared-memory schedules on one node), so that a collective moves on while the caller
// computes instead of only inside the caller's tests and waits. It takes a communicator's
// progress lock only when free (try_lock), so a caller's wait or test is never held up by
// more than one non-blocking pass; it polls with a yield between passes while anything is in
// flight (it costs a share of a core then) and sleeps on a condition variable otherwise.
// Executions that call MPI (point-to-point schedules across nodes, native programs) stay with
// the caller's thread: MPI may not permit calls from a second thread.
#pragma once

namespace weft {

/// Whether WEFT_PROGRESS_THREAD=1 (read once).
bool ProgressThreadOn();
/// Called when an execution is queued: starts the thread at the first one (when on) and wakes
/// it. One atomic load when off.
void WakeProgressThread();

}  // namespace weft
