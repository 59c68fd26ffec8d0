// The floors weft-bench divides its times into. Inside one node, the memory-traffic floor:
// every input byte read once and every output byte written once, summed over the node's
// ranks, moved at the node's measured copy bandwidth. Across hosts, the network floor: the
// bytes that must cross the busiest host link in one direction, at the link's rate
// (--link-gbps). docs/benchmarking.md states the byte counts.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "bench_options.h"

namespace bench {

/// The node's copy bandwidth, measured once.
struct NodeCopy {
  int ranks = 1;      // ranks on this rank's node
  int hosts = 1;      // nodes (hosts) the communicator spans
  int max_ranks = 1;  // ranks on the fullest host
  double gbps = 0;    // memory traffic (read + write) per second, all node ranks copying at once
};

/// Collective over comm: every rank of each node copies 64 MiB at the same time (best of 5);
/// the node's bandwidth is the sum of its ranks' read + write rates.
NodeCopy MeasureNodeCopy(MPI_Comm comm);

/// Floor bytes for one collective whose per-rank send buffer is `bytes` (the table's size
/// column), over `node_ranks` ranks of one node.
double FloorBytes(Coll coll, size_t bytes, int node_ranks);

/// Network floor bytes: what must cross the busiest host link in one direction for one
/// collective whose per-rank send buffer is `bytes`, over `hosts` hosts of `ranks_per_host`
/// ranks (lower bounds whatever the algorithm: a host's contributions pre-reduced at home).
double NetworkFloorBytes(Coll coll, size_t bytes, int hosts, int ranks_per_host);

}  // namespace bench
