// The v-collectives' arguments (AllGatherV, AllToAllV, GatherV, ScatterV, ReduceScatterV):
// count arrays copied at the call, the extents they span, their in-place forms, and, with
// WEFT_CHECK_ARGS=1, the check that the ranks' counts fit together.
#pragma once

#include <memory>

#include "call/coll_args.h"

namespace weft {

/// Copies n entries of each non-null array into a new VCounts (an array passed as NULL stays
/// empty; ValidateArgs reports it where this rank needs it).
std::shared_ptr<const VCounts> CopyVCounts(int n, const size_t* send_counts,
                                           const size_t* send_displs, const size_t* recv_counts,
                                           const size_t* recv_displs);

/// CopyVCounts for a call on comm, or comm's last arrays where these equal them (a loop with the
/// same counts allocates, hashes and validates its arrays once).
std::shared_ptr<const VCounts> VCountsFor(Comm& comm, const size_t* send_counts,
                                          const size_t* send_displs, const size_t* recv_counts,
                                          const size_t* recv_displs);

/// Checks what only the arrays can tell: every array this rank needs is given, every count and
/// displacement is below 2^31 elements (MPI's int counts), this rank's own block agrees with
/// its scalar count, and no two blocks a rank receives overlap. Sets a->count for
/// ReduceScatterV (this rank's recvcounts entry). Returns weftInvalidArgument with the reason
/// recorded on comm.
Status ValidateVArrays(Comm& comm, CollArgs* a);
/// This rank's byte extents of a validated v-call; false on overflow or past 2^48 bytes.
bool ComputeVExtents(const Comm& comm, const CollArgs& a, size_t es, Extents* e);
/// The in-place form of a v-call: its own block of recvbuff is sendbuff (AllGatherV, GatherV's
/// root), its block of sendbuff is recvbuff (ScatterV's root, ReduceScatterV), or sendbuff ==
/// recvbuff with equal send and receive arrays (AllToAllV).
bool IsInPlaceVForm(const Comm& comm, const CollArgs& a, size_t es);
/// WEFT_CHECK_ARGS=1: collective check that what each rank sends is what its peers expect
/// (sendcount against the receivers' recvcounts, or equal arrays for ReduceScatterV); every
/// rank fails alike, the ones that see a mismatch with its text, the others with
/// weftRemoteError.
Status CheckVCountsAgree(Comm& comm, const CollArgs& a);

}  // namespace weft
