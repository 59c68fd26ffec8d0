// The requests the interposer serves, in one table that the MPI completion calls
// (shim_completion.cc: Wait/Test and their -all/-any/-some forms, MPI_Request_free) read to
// complete arrays that mix them with native requests.
//   - A persistent collective weft serves is a real, never-started native persistent request
//     paired with a weft plan (shim_persistent.cc).
//   - A nonblocking collective weft serves is a generalized request (MPI_Grequest_start) paired
//     with a weft request: when weft's part completes, the generalized request is completed and
//     the native completion call frees it and reports its status, so every array form keeps
//     MPI's own semantics for it.
// A program that never has a served request pays one atomic load per completion call.
#pragma once

#include <mpi.h>

#include <memory>

#include "shim_colls.h"
#include "weft/weft.h"

namespace weft::shim {

/// Registers a persistent request weft serves under its native handle.
void AddPersistent(MPI_Request handle, weftPlan_t plan, std::shared_ptr<Buffers> buf);
/// MPI_Start of a served persistent request: true if handle is one (*rc its result).
bool StartPersistent(MPI_Request handle, int* rc);
/// A nonblocking call weft runs as request (buf's After runs once it completes): makes the
/// generalized request the user holds into *handle.
int AddNonblocking(weftRequest_t request, std::shared_ptr<Buffers> buf, MPI_Comm comm,
                   MPI_Request* handle);
/// A generalized request that is already complete (a served call with nothing to move).
int CompletedRequest(MPI_Request* handle);
/// True while a served nonblocking call runs (one atomic load).
bool NonblockingRunning();
/// Waits for a native request while advancing the served nonblocking calls (n of them in
/// reqs for WaitallProgressing).
int WaitProgressing(MPI_Request* req, MPI_Status* status);
int WaitallProgressing(int n, MPI_Request reqs[], MPI_Status statuses[]);
/// Advances the served nonblocking calls once without blocking (for polling loops of blocking
/// calls that have no request to wait on, such as MPI_Probe).
void ProgressServed();
/// A served request's table entry.
struct Served;
/// True while the table has an entry (one atomic load): completion calls check it first.
bool AnyServed();
/// The served persistent request under handle, or null.
Served* FindPersistent(MPI_Request handle);
/// Whether a served persistent request was started and not yet completed.
bool PersistentActive(const Served* s);
/// Completes a served persistent request's plan and runs its fix-up. MPI error code.
int CompletePersistent(Served* s);
/// Polls a served persistent request: true once complete (fix-up done), its result in *rc
/// (MPI_ERR_OTHER when weft's part failed, as when a deadline passed).
bool TestPersistent(Served* s, int* rc);
/// Completes weft's part of handle if it is a served nonblocking call (its generalized request
/// is then complete, for the native completion call to report).
void WaitNonblocking(MPI_Request handle);
/// Breaks, with weftTimeout, the communicators of the served requests in reqs that still run
/// (a polling wait saw nothing complete for WEFT_TIMEOUT_S); each completes with the error at
/// the next poll.
void ExpireServed(int n, const MPI_Request reqs[], const char* what);
/// MPI_Request_free of any request: a served one leaves the table (a running nonblocking call
/// goes on and is completed by later completion calls; a plan is freed).
int FreeServed(MPI_Request* handle);
/// At MPI_Finalize, with MPI still working: the persistent requests the program never freed
/// give up their plans and buffers (as MPI's own do), before weft's communicators go.
void ReleasePersistentAtFinalize();
/// The empty status of a completed collective, with error.
void EmptyStatus(MPI_Status* status, int error);
/// Before a blocking collective on comm that weft does not serve (the native routine cannot
/// advance weft's calls): completes the served nonblocking calls on comm. Every rank of comm
/// started the same ones before this collective, so every rank can complete them here.
void CompleteServedOn(MPI_Comm comm);

}  // namespace weft::shim
