#include "coll/zero_copy_agreement.h"

#include <cstdint>

#include "coll/run_blocking.h"
#include "comm/mem_window.h"
#include "core/dtype.h"

namespace weft {

Status AgreeZeroCopyShared(Comm& comm, CollArgs* a) {
  // Only compiled schedules use zero copy; the other kinds' counts may differ by rank.
  const size_t es = TypeSize(a->type);
  if (!comm.mem_shared || !HasSchedule(a->kind) || a->count * es < kZeroCopyMinBytes)
    return weftSuccess;
  Extents e;
  int32_t mine = ComputeExtents(comm, *a, es, &e) && InSharedWindow(comm, a->send, e.send) &&
                 InSharedWindow(comm, a->recv, e.recv);
  int32_t all = 0;
  // On weft's own latency path: weftMemAlloc memory is shared, so the communicator has a node
  // segment and this 4-byte allreduce runs the one-shot schedule through it. The MPI_Allreduce
  // it replaces hung when a peer had died (mp.dead_peer_agree); this one ends in weftTimeout at
  // the deadline like any shared-memory wait. Timed, the two cost the same (docs/intra-node.md).
  CollArgs agree = MakeArgs(CollKind::kAllReduce, &mine, &all, 1, weftInt32, weftMin, 0);
  WEFT_CHECK(RunHostBlocking(comm, agree));
  a->zero_copy = all != 0;
  return weftSuccess;
}

}  // namespace weft
