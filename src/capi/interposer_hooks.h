// What weft's MPI interposer (mpi_shim/) needs of the library beyond the public API: its own
// polling waits (MPI_Waitany and MPI_Waitsome over served requests) keep weft's deadline, and
// it serves MPI_Alltoallv only where weft runs a schedule of its own. Not for applications.
#pragma once

#include <cstdint>

#include "weft/weft.h"

namespace weft {

/// A wait of the interposer's that polls request (or plan's execution) has seen nothing complete
/// for WEFT_TIMEOUT_S: breaks its communicator with weftTimeout, as weft's own waits do at
/// their deadline, so that the next test of it completes with the error. `what` names the wait
/// in the error text. No-op on a completed, freed or detached request or plan.
void ExpireRequest(weftRequest_t request, const char* what);
void ExpirePlan(weftPlan_t plan, const char* what);

/// Whether weft adds anything to comm's alltoallv calls of this form: its own schedule (the
/// node-aware alltoallv across nodes, the mailbox one on one node), or a way around a defect of the
/// MPI library's routine (Open MPI 4.1.4's in-place MPI_Ialltoallv, mpi_quirks.h). False where weft
/// would only call the routine, which the interposer then calls itself. The same on every rank:
/// decided per communicator from what all know, and MPI_IN_PLACE is all ranks' or none's for
/// alltoallv.
bool ServesAllToAllV(weftComm_t comm, bool nonblocking, bool in_place);

/// Whether weft compiles comm's allgatherv calls of any counts, gatherv and scatterv (the
/// one-node mailbox schedules, coll/v_mailbox_coll.h); where not, the interposer calls MPI's
/// routine itself. The same on every rank (decided from the node map and agreed knobs).
bool ServesOneNodeV(weftComm_t comm);

/// WEFT_TIMEOUT_S, clamped as weft's waits clamp it.
int64_t WaitTimeoutSeconds();

}  // namespace weft
