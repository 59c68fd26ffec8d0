// Every wait weft makes inside MPI has the same deadline as its shared-memory waits: requests
// are completed by polling MPI_Testall (as NCCL polls its abort flag and Gloo times out each
// pair wait), never by an MPI_Wait that could block for ever on a peer that died or left.
#pragma once

#include <mpi.h>

#include "transport/comm_link.h"

namespace weft {

/// Completes n requests: polls (yielding the core after a short spin) until all complete,
/// WEFT_TIMEOUT_S passes (weftTimeout), or a node peer is seen to have failed or exited
/// (weftRemoteError). Either failure breaks comm and abandons the requests (CancelAll). An MPI
/// error returns weftMpiError. `what` names the wait in error texts.
Status WaitAllWithin(CommLink& comm, int n, MPI_Request* reqs, const char* what);

/// Abandons n requests after a failure: cancels them, gives the cancellations a moment to take
/// (a receive not yet matched is then gone, so no late message lands in a buffer that is reused
/// or freed), and frees what is left (sends, whose buffers MPI only reads).
void CancelAll(int n, MPI_Request* reqs);

}  // namespace weft
