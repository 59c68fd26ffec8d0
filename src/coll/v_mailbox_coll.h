// The one-node v-collectives as compiled programs (sched/algos/v_mailbox.h has the schedule):
// alltoallv, allgatherv, gatherv, scatterv and reduce_scatterv, each rank's program built from
// its own count arrays alone, so no count exchange runs first, and kept in the program cache
// under those arrays (a loop with the same counts builds once).
#pragma once

#include <memory>

#include "call/coll_args.h"
#include "coll/compiled_coll.h"

namespace weft {

/// Whether calls of this kind on comm run the mailbox schedule: AllToAllV, AllGatherV, GatherV,
/// ScatterV or ReduceScatterV, every rank on one node with the node segment, schedules on, and for
/// AllToAllV WEFT_ALLTOALLV auto (agreed). The same on every rank.
bool CommUsesVMailbox(const Comm& comm, CollKind kind);

/// Builds the program of a validated call of such a kind into *out. Without a usable node
/// segment (it could not be made or grown) every block between ranks is a message.
Status BuildVMailbox(Comm& comm, const CollArgs& args, std::unique_ptr<CompiledColl>* out);

}  // namespace weft
