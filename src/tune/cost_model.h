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

/// A rate that falls as the bytes a transfer touches outgrow the caches: `cached` up to
/// cached_bytes, `memory` from 16 MiB, log-linearly between (cached_bytes or cached 0: `memory`
/// at every size).
double CacheAwareRate(double bytes, double cached_bytes, double cached, double memory);

/// One kind of link.
struct LinkTier {
  double latency_us = 1.0;
  double gbytes_per_s = 5.0;  // GB/s (1e9 bytes)
  /// MPI sends messages above this many bytes by rendezvous: the data leaves only once the
  /// receive is posted, after a handshake costing rendezvous_us more (0: every message eager).
  /// Calibrated: Open MPI's shared-memory path here went from 0.5 us at 2 KiB to about 4 us
  /// at 4 KiB in a ping-pong (weft-tune).
  double eager_bytes = 0;
  double rendezvous_us = 0;
  /// Messages up to cached_bytes move at cached_gbytes_per_s (the buffers stay in cache);
  /// from 16 MiB at gbytes_per_s (from memory); between, log-linearly (0: gbytes_per_s for
  /// all). Calibrated on the development machine: 15-18 GB/s exchanged up to 2 MiB, 12 at
  /// 4 MiB, 9 at 8 MiB, 6.6 at 16 MiB (MPI shared memory, both directions at once).
  double cached_bytes = 0;
  double cached_gbytes_per_s = 0;
  /// Messages up to eager_bytes move at this rate (copied into and out of the MPI library's
  /// fragments; 0: by the rates above). Calibrated on the Xeon VM: Open MPI's 2 KiB message
  /// costs about 1.2 us more than 8 B, where the cached rate (13-16 GB/s) says 0.15.
  double eager_gbytes_per_s = 0;
  /// LogGP's receiver overhead o_r: per message received over this tier, on the receiver's
  /// core, which takes its arrivals one after another as it waits (0: a received message costs
  /// its receiver only the wait).
  double recv_overhead_us = 0;
  bool Rendezvous(uint64_t bytes) const { return eager_bytes > 0 && bytes > eager_bytes; }
  /// GB/s for a message of `bytes`.
  double Rate(uint64_t bytes) const;
};

/// Costs of the operations a Program performs.
struct CostModel {
  LinkTier intra{0.5, 8.0};   // ranks on one node
  LinkTier inter{2.0, 12.5};  // one node's link to the others (100 Gbit/s)
  /// LogGP's sender overhead o_s: per message posted, on the sender (its injection side).
  double message_overhead_us = 0.05;
  /// The NIC's gap across nodes: the time a node's network link spends on each message beside
  /// its bytes (the inverse of the NIC's message rate), shared by the node's ranks (0: only
  /// bandwidth limits the link). Added to the bytes' time, not LogGP's larger of the two: on
  /// HAN's cluster (32 x 64 ranks, 200 Gbit/s) Open MPI's flat alltoall of 1 KiB blocks sends
  /// 131,008 messages out of each node in 30,685 us, HAN's of 1 B blocks 1,984 in 302 us, so a
  /// message costs at most 0.15 us beside its bytes; with 0.15 added weft-sim replays the flat
  /// row at 0.79x of measured, where the larger of 0.15 and the bytes would give about 0.64x
  /// (bench/hierarchy-sim/loggp-han).
  double link_message_us = 0.0;
  /// The link's time for one message across nodes of `bytes` at tier t.
  double LinkMessageUs(const LinkTier& t, uint64_t bytes) const {
    return WireUs(t, bytes) + link_message_us;
  }
  double counter_wait_us = 0.15;  // a node counter seen from another core (cache line)
  /// Per call on every rank: what a call costs beyond the messages, copies and reduces of its
  /// program (starting the execution, the interpreter, completion); 0 uncalibrated. Measured
  /// on the Xeon VM: 0.30-0.34 us at 2 ranks (bench/tuning/call-overhead), where the model
  /// had put every 8-byte exchange collective at 0.4-0.6x its measured time
  /// (bench/tuning/regret-xeon, sim-vs-measured.txt).
  double call_overhead_us = 0.0;
  double copy_gbytes_per_s = 10.0;   // buffers from memory
  double reduce_gbytes_per_s = 6.0;  // bytes read by a reduce, buffers from memory
  /// Same for fp16 and bf16, which the kernels widen to fp32 and back (0: reduce_gbytes_per_s).
  /// Compute-bound (1-2 GB/s measured), so the same in cache.
  double reduce_half_gbytes_per_s = 0.0;
  /// A call whose buffers (the program's working set: send, receive, scratch and its own slot)
  /// fit in compute_cached_bytes reduces at reduce_cached_gbytes_per_s, and copies between
  /// cores at handover_gbytes_per_s; from 16 MiB both at the rates above; log-linearly between
  /// (0: the rates above at every size). Measured on the Xeon VM (both ranks at once): memcpy
  /// 32-36 GB/s to a 1 MiB working set, 22 at 2 MiB, 12-13 at 4-32 MiB
  /// (bench/tuning/model-cache/probes/copy_sweep); weft's fp32 reduce 40-68 in cache, 10
  /// out (weft-tune, the wisdom files there and in -model-loop). A copy inside one rank's cache
  /// stays at copy_gbytes_per_s: pricing those at the cached memcpy rate put the point-to-point
  /// schedules further below their measured times at 2 ranks (an intermediate build: 128 of 200
  /// rows within 1.5x, against 144 without; bench/tuning/model-cache).
  double compute_cached_bytes = 0;
  double reduce_cached_gbytes_per_s = 0;
  /// Copies and reduces that touch memory another rank touches in the call (a slot of the node
  /// segment, a node peer's buffer, or a range this rank sends to a node peer) move their cache
  /// lines between cores, at this rate in cache (0: no such term). Measured on the Xeon VM, a
  /// slot written by one rank and copied out by the other in turns: 11-15 GB/s a copy at 64 and
  /// 256 KiB.
  double handover_gbytes_per_s = 0;
  /// Per copy from a node peer's buffer (single copy: one process_vm_readv), beyond its bytes.
  /// Measured on the Xeon VM: about 1 us, where the model had put every cma row up to 2 KiB at
  /// a quarter of its measured time; the default since a cma node level joined the candidates
  /// across nodes (with 0, the one that reads 127 peers' 64-byte pieces at 8 x 128 and 8 KiB
  /// ranked first).
  double single_copy_us = 1.0;
  /// The call's buffers are mapped in every node peer (weftMemAlloc): peer spaces are read with
  /// memcpy, without single_copy_us or the single-copy rate.
  bool peer_buffers_mapped = false;
  /// A single copy's rate out of cache (process_vm_readv from a node peer's buffer; log-linear
  /// from handover_gbytes_per_s in cache where that is calibrated, else at every size; 0:
  /// copy_gbytes_per_s). Measured on the Xeon VM: 5.1-6.0 GB/s from 16 MiB in two runs, where
  /// memcpy ran 12-21 on one core (bench/tuning/wake/probes/cma_read); the default since the
  /// cma node level (with the copy rate, the model put [cma/rexch:-2,2]@128K first at 2 x 2
  /// ranks, 10 Gbit/s and 2 MiB; measured at 4 ranks there and on 2 virtual nodes, pipelined
  /// cma ran 0.49-0.97x native from 256 KiB where shmpipe/rexch:-2,2 ran 0.86-1.57x:
  /// bench/hierarchy/cma-node-level).
  double single_copy_gbytes_per_s = 5.0;
  /// When a machine's ranks outnumber its cores: what a rank that blocked (waiting on a peer's
  /// message or counter) waits, after what it waited for has come, for a core to run on again
  /// (0: every rank has a core, the value weft-tune writes there). Calibrated as an 8-byte
  /// exchange loop with every pair of the machine's ranks at once against one pair alone:
  /// 1.5-3.1 us at 4 ranks on the 2-core Xeon VM, where the model without it put the 4-rank
  /// point-to-point rows at 0.2-0.5x their measured time (bench/tuning/wake).
  double wake_us = 0;
  std::shared_ptr<const Topology> nodes;  // which rank is on which node (null: all on one)

  /// The ranks of `rank`'s node whose message at the same offset (peer - rank, modulo the
  /// ranks) crosses nodes, at least 1: the node link's sharers for a message from rank to
  /// peer in a round where every rank sends at that offset, each getting this share of
  /// inter's bandwidth. A column exchange between nodes has every rank of the node on the link
  /// (L); a ring, one (the node's last rank). Measured on the namespace cluster (2 hosts x 2
  /// ranks, 10 Gbit/s): rexch:-2,-2,2,2, which pairs inside the node first and puts S on the
  /// link, ran allreduce faster from 256 KiB (1.1-1.9x in three runs each) than rexch:-4,4 (2S
  /// on the link), which the model preferred without a share. The whole node's count, the
  /// share before, put a ring's message on a 64-rank node at 64 times its bytes, so selection
  /// at 32 x 64 never took the flat ring for allgather, which weft-sim's replay (booking each
  /// node's link, so that a message crossing alone gets all of it) had at 0.48x the time of
  /// the hierarchical recipe at 32 KiB blocks.
  int CrossingSharers(int rank, int peer) const;
  const LinkTier& Tier(int a, int b) const {
    return !nodes || nodes->node_of_rank[a] == nodes->node_of_rank[b] ? intra : inter;
  }
  /// Seconds-free helpers: microseconds to move or process `bytes`.
  double WireUs(const LinkTier& t, uint64_t bytes) const { return bytes / (t.Rate(bytes) * 1e3); }
  double CopyUs(uint64_t bytes) const { return bytes / (copy_gbytes_per_s * 1e3); }
  /// `working_set`: the bytes the call touches (WorkingSetBytes), which decide the cache rate.
  double ReduceUs(uint64_t bytes_read, weftDataType_t t, uint64_t working_set) const {
    const bool half = t == weftFloat16 || t == weftBfloat16;
    const double rate = half && reduce_half_gbytes_per_s > 0
                            ? reduce_half_gbytes_per_s
                            : CacheAwareRate(static_cast<double>(working_set), compute_cached_bytes,
                                             reduce_cached_gbytes_per_s, reduce_gbytes_per_s);
    return bytes_read / (rate * 1e3);
  }
};

/// Prices one rank's copies and reduces: at the local rates for the program's working set, and
/// no faster than the handover rate where cache lines move between cores: an operand in shared
/// memory (a slot, a node peer's buffer), or a destination that the program also sends to a
/// node peer (in a loop of calls the peer read those lines last time, by single copy or through
/// MPI's shared memory, so each write takes them back). A copy from a peer's buffer adds
/// single_copy_us. Measured on the Xeon VM (bench/tuning/model-cache/probes/
/// exchange_after_copy): an MPI exchange of 64 KiB took 8.2 us clean, 20.9 with a memcpy into
/// its send buffer timed with it, 12.7 with that memcpy done before.
class ComputePricer {
 public:
  ComputePricer(const CostModel& m, const ir::Program& p);
  /// Microseconds for `in`, a copy or reduce of the program.
  double Us(const ir::Instr& in) const;

 private:
  bool SentToNodePeer(const ir::Ref& r, uint64_t bytes) const;
  const CostModel* m_;
  weftDataType_t type_;
  uint64_t working_set_;
  // Per private space (send, receive, scratch): merged [begin, end) byte ranges sent to node
  // peers.
  std::vector<std::pair<uint64_t, uint64_t>> sent_[3];
};

/// The bytes one rank's call touches: its send, receive and scratch buffers and its own slot.
uint64_t WorkingSetBytes(const ir::Program& p);

/// A quick estimate of one rank's program alone (no waiting on peers): per round (up to a
/// waitall, or a waitolder for the messages it completes), the later of its sends and its
/// receives, each direction its slowest latency plus its bytes over the bandwidth, counted from
/// the round's first message's start, against the local copies and reduces posted while they
/// fly. Selection ranks recipes by the largest estimate over a few ranks; weft-sim's replay is
/// the full model.
double EstimateProgramUs(const ir::Program& p, const CostModel& m);

}  // namespace weft::tune
