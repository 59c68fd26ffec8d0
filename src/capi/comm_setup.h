// Creating and freeing a communicator: the host part (comm/comm.h), then each layer above it
// (the device backend and binding, the program cache). It sits at the top of the layers so
// that comm/ knows none of those it owns (comm.h's LayerOwned).
#pragma once

#include "comm/comm.h"

namespace weft {

/// Collective over user: creates a communicator. On failure *out is null, nothing is left, and
/// the text is in the thread's last error.
Status CreateComm(MPI_Comm user, Comm** out);
/// Frees comm: its memory windows' ties, cached executables (they own MPI datatypes), the
/// device state (drains the staging streams), then the host part.
Status DestroyComm(Comm* comm);

/// For its lifetime, a call that may wait on comm (a collective, a request's or a plan's
/// wait, test or start): weftCommAbort, perhaps on another thread, makes its waits end
/// (CommLink::abort_requested) and leaves the teardown to the last such call to leave, which
/// then frees the communicator. Null comm: nothing. Calls begun after weftCommAbort returned
/// are the caller's race, as with any freed handle.
class CommCall {
 public:
  explicit CommCall(Comm* comm);
  ~CommCall();
  CommCall(const CommCall&) = delete;
  CommCall& operator=(const CommCall&) = delete;

 private:
  Comm* comm_;
};

/// weftCommAbort: every wait on comm ends (with weftInvalidUsage, the abort named), node peers
/// waiting on this rank end too (the communicator is broken), and comm is freed at once or,
/// while calls of other threads are inside, when the last of them leaves.
void AbortComm(Comm* comm);

}  // namespace weft
