// The cost model that ranks recipes and that the simulator replays schedules under: per link
// tier (same node, across nodes) a latency and a bandwidth, plus a per-message overhead and
// local copy and reduce rates. Defaults are round numbers of the order measured on the
// development machine (2 cores, shared memory through MPI: a few GB/s, about a microsecond a
// message); weft-sim takes each as a flag.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sched/ir/program.h"
#include "topo/topology.h"

namespace weft::tune {

/// One kind of link.
struct LinkTier {
  double latency_us = 1.0;
  double gbytes_per_s = 5.0;  // GB/s (1e9 bytes)
};

/// Costs of the operations a Program performs.
struct CostModel {
  LinkTier intra{0.5, 8.0};           // ranks on one node
  LinkTier inter{2.0, 12.5};          // one node's link to the others (100 Gbit/s)
  double message_overhead_us = 0.05;  // per message posted, on the sender
  /// Per message a node's network link handles (the inverse of its message rate), shared by
  /// the node's ranks; 0: only bandwidth limits the link.
  double link_message_us = 0.0;
  double counter_wait_us = 0.15;  // a node counter seen from another core (cache line)
  double copy_gbytes_per_s = 10.0;
  double reduce_gbytes_per_s = 6.0;  // bytes read by a reduce
  /// Same for fp16 and bf16, which the kernels widen to fp32 and back (0: reduce_gbytes_per_s).
  double reduce_half_gbytes_per_s = 0.0;
  std::shared_ptr<const Topology> nodes;  // which rank is on which node (null: all on one)

  /// Ranks that share one node's network link: in a round of a symmetric schedule every rank
  /// of the node sends across at once, so each gets this share of inter's bandwidth.
  /// Measured on the namespace cluster (2 hosts x 2 ranks, 10 Gbit/s): rexch:-2,-2,2,2, which
  /// pairs inside the node first and puts S on the link, ran allreduce faster from
  /// 256 KiB (1.1-1.9x in three runs each) than rexch:-4,4 (2S on the link), which the model
  /// preferred without the share.
  int LinkSharers() const { return nodes ? nodes->MaxNodeSize() : 1; }
  const LinkTier& Tier(int a, int b) const {
    return !nodes || nodes->node_of_rank[a] == nodes->node_of_rank[b] ? intra : inter;
  }
  /// Seconds-free helpers: microseconds to move or process `bytes`.
  double WireUs(const LinkTier& t, uint64_t bytes) const { return bytes / (t.gbytes_per_s * 1e3); }
  double CopyUs(uint64_t bytes) const { return bytes / (copy_gbytes_per_s * 1e3); }
  double ReduceUs(uint64_t bytes_read, weftDataType_t t = weftFloat32) const {
    const bool half = t == weftFloat16 || t == weftBfloat16;
    const double rate =
        half && reduce_half_gbytes_per_s > 0 ? reduce_half_gbytes_per_s : reduce_gbytes_per_s;
    return bytes_read / (rate * 1e3);
  }
};

/// A quick estimate of one rank's program alone (no waiting on peers): per round between
/// waitalls, the latency of the slowest message plus the larger of the bytes sent and received
/// over the bandwidth, plus local copies and reduces. Selection ranks recipes by the largest
/// estimate over a few ranks; weft-sim's replay is the full model.
double EstimateProgramUs(const ir::Program& p, const CostModel& m);

}  // namespace weft::tune
