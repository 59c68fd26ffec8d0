// Whether node ranks share a cache, measured: node rank 0 bounces a cache line with every peer
// through the segment and times the round trip. Ranks whose cores share a last-level cache
// hand a line over in tens of nanoseconds; across dies or sockets (or, in a VM, on host cores
// that do not share one) it takes hundreds, and data a peer reads from another die's cache
// arrives far slower than from memory. Such nodes write shared slots with non-temporal stores
// (docs/intra-node.md, "Cache distance").
#pragma once

#include <cstdint>

#include "core/status.h"
#include "transport/shm/shm_segment.h"

namespace weft {

/// The probe's outcome.
struct PlacementProbe {
  double max_rtt_ns = 0;  // slowest peer's cache-line round trip with node rank 0
  bool remote = false;    // max_rtt_ns above kRemoteRttNs
};

/// Round trips (ns) above which a peer counts as not sharing rank 0's cache.
inline constexpr double kRemoteRttNs = 200;

/// Collective over the segment's ranks (each must call it at the same execution): node rank 0
/// times round trips with each peer and publishes the verdict, which every rank returns.
/// weftTimeout with *why set when a peer does not answer within timeout_s.
Status ProbePlacement(ShmSegment& seg, int timeout_s, PlacementProbe* out, const char** why);

}  // namespace weft
