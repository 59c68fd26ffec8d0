// What a schedule is compiled for: the collective, the group size and the call's shape. No
// buffers and no MPI: the schedule compiler, the simulator and the tools share this.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "topo/topology.h"
#include "weft/weft.h"

namespace weft::sched {

/// The collectives that have compiled schedules.
enum class Coll : uint8_t {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kBroadcast,
  kReduce,
  kAllToAll,
  kGather,
  kScatter,
  kScan,   // inclusive prefix reduction: rank r gets in_0 op ... op in_r
  kExScan  // exclusive: rank r > 0 gets in_0 op ... op in_(r-1); rank 0 gets nothing
};
inline constexpr int kNumColls = 10;

/// Lower-case name ("allreduce", "reduce_scatter", ...).
const char* CollName(Coll c);
/// Parses CollName's form (also "reducescatter", "bcast").
bool ParseColl(const std::string& text, Coll* out);
/// True for the collectives that reduce.
inline bool Reduces(Coll c) {
  return c == Coll::kAllReduce || c == Coll::kReduceScatter || c == Coll::kReduce ||
         c == Coll::kScan || c == Coll::kExScan;
}
/// True for the prefix reductions (scan, exscan).
inline bool IsScan(Coll c) { return c == Coll::kScan || c == Coll::kExScan; }
/// True for the collectives with a root.
inline bool HasRoot(Coll c) {
  return c == Coll::kBroadcast || c == Coll::kReduce || c == Coll::kGather || c == Coll::kScatter;
}
/// True when the rank order of operands does not matter (every op of the API; not the
/// simulator's test op kOpMatMul2x2).
bool Commutative(weftRedOp_t op);

/// One collective call's shape. `count` means what the API's count means: the vector for
/// allreduce/reduce/bcast, per rank for allgather and gather, per block for reduce_scatter,
/// alltoall and scatter; the vector for scan and exscan. A root's in-place form (gather: its block
/// already in recv; scatter: its block left in send) sets in_place at the root alone.
struct CollSpec {
  Coll coll = Coll::kAllReduce;
  int nranks = 1;
  uint64_t count = 0;
  weftDataType_t dtype = weftFloat64;
  weftRedOp_t op = weftSum;
  int root = 0;
  bool in_place = false;
  /// Which node each rank is on, when the ranks span more than one node (null: one node, or
  /// placement unknown). Node-aware generators need it; every rank holds the same map.
  std::shared_ptr<const Topology> nodes;
};

/// Nodes the spec's ranks span (1 without a node map).
inline int NumNodes(const CollSpec& s) { return s.nodes ? s.nodes->num_nodes() : 1; }

/// Bytes of one element (TypeSize, and 8 for kOpMatMul2x2's uint64 elements).
uint64_t ElemBytes(const CollSpec& s);
/// Bytes of the send and receive buffers of rank `rank` (bcast: send at the root only).
uint64_t SendBytes(const CollSpec& s, int rank);
uint64_t RecvBytes(const CollSpec& s, int rank);
/// "allreduce P=8 count=1024 double sum root=0 in_place=0", for logs and errors.
std::string SpecText(const CollSpec& s);

}  // namespace weft::sched
