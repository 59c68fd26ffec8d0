// How node ranks should hand data over through the segment, measured. Ranks whose cores share a
// cache hand a chunk over cache to cache; across dies or sockets (or, in a VM, on host cores
// that do not share one) a reader can fetch a chunk from the writer's cache far slower than
// from memory, and such nodes write shared slots with non-temporal stores. Which side wins is
// timed, not guessed from a latency: node rank 0 bounces a cache line with every peer (the
// round trip, logged), then times the peer writing a block with plain and with streaming
// stores and itself copying it out (docs/intra-node.md, "Cache distance").
#pragma once

#include <cstdint>

#include "core/status.h"
#include "transport/shm/shm_segment.h"

namespace weft {

/// The probe's outcome.
struct PlacementProbe {
  double max_rtt_ns = 0;  // slowest peer's cache-line round trip with node rank 0
  // The handover (write, signal, read) of the probe block with the peer where streaming stores
  // did best against plain ones: the fastest of kTrials each.
  double plain_ns = 0, stream_ns = 0;
  // Some peer that does not share a cache with node rank 0 (kSharedCacheRttNs) hands over
  // faster with streaming stores (by kStreamMargin).
  bool stream = false;
};

/// Streaming stores are chosen when their handover takes at most this fraction of the plain
/// one's: at a tie plain stores win, since they leave the data in cache for whoever reads it.
inline constexpr double kStreamMargin = 0.9;

/// A peer whose cache-line round trip is under this shares a cache with node rank 0, and its
/// handovers keep plain stores whatever they time. On the AMD VM in that state (96-110 ns) the
/// 64 KiB handover's ratio went 0.71-1.48 between probes of one run, flipping the verdict five
/// times in a weft-bench run of 1-8 MiB allreduces, while allreduce, reduce, allgather and
/// alltoall ran faster with plain stores (allreduce at 1 and 16 MiB 1.45-1.89x native against
/// 1.19-1.58x streamed, reduce 1.49-2.20x against 1.04-1.38x), reduce_scatter and gather about
/// the same, and only bcast and scatter at 16 MiB faster streamed (by 1.0-1.5x): two alternated
/// runs each of WEFT_SHM_STREAM=0 and 1, bench/tuning/regret-epyc/slot-stores. Distant cores
/// measured 377-407 ns there, and 240-370 ns on the Intel VM's mesh, whose handover favours plain
/// stores by itself.
inline constexpr double kSharedCacheRttNs = 200;

/// Collective over the segment's ranks (each must call it at the same execution): node rank 0
/// times round trips and handovers with each peer and publishes the verdict, which every rank
/// returns (the times are measured on node rank 0 only). weftTimeout with *why set when a peer
/// does not answer within timeout_s.
Status ProbePlacement(ShmSegment& seg, int timeout_s, PlacementProbe* out, const char** why);

}  // namespace weft
