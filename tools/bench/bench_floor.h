// The memory-traffic floor of a collective inside one node: every input byte read once and
// every output byte written once, summed over the node's ranks, moved at the node's measured
// copy bandwidth. weft-bench prints the fraction of that floor each weft row reaches
// (docs/benchmarking.md states the byte counts).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "bench_options.h"

namespace bench {

/// The node's copy bandwidth, measured once.
struct NodeCopy {
  int ranks = 1;    // ranks on this rank's node
  double gbps = 0;  // memory traffic (read + write) per second, all node ranks copying at once
};

/// Collective over comm: every rank of each node copies 64 MiB at the same time (best of 5);
/// the node's bandwidth is the sum of its ranks' read + write rates.
NodeCopy MeasureNodeCopy(MPI_Comm comm);

/// Floor bytes for one collective whose per-rank send buffer is `bytes` (the table's size
/// column), over `node_ranks` ranks of one node.
double FloorBytes(Coll coll, size_t bytes, int node_ranks);

}  // namespace bench
