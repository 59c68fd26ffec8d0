// Who forwards for whom in the node-aware alltoall and alltoallv (node_alltoall.cc,
// node_alltoallv.cc): for a destination y on another node, the rank of the source node with
// local index local(y) mod the source node's size sends y one message holding the blocks of
// every rank of its node for y.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/algos/builder.h"
#include "topo/topology.h"

namespace weft::sched {

/// The destinations on other nodes that local rank `i` of node `n` sends to, by node then
/// local index.
inline std::vector<int> ServedBy(const Topology& t, int n, int i) {
  const int ln = static_cast<int>(t.ranks_of_node[n].size());
  std::vector<int> out;
  for (int m = 0; m < t.num_nodes(); ++m) {
    if (m == n) continue;
    const std::vector<int>& rm = t.ranks_of_node[m];
    for (int j = i; j < static_cast<int>(rm.size()); j += ln) out.push_back(rm[j]);
  }
  return out;
}

/// The rank of node `from` that forwards its node's blocks to `rank` (on another node).
inline int SenderFor(const Topology& t, int from, int rank) {
  const std::vector<int>& rf = t.ranks_of_node[from];
  return rf[t.LocalRank(rank) % static_cast<int>(rf.size())];
}

/// Scratch handed out in order, the program's need growing with it.
class ScratchTop {
 public:
  explicit ScratchTop(Builder* b) : b_(b) {}
  /// The offset of `bytes` more scratch.
  uint64_t Take(uint64_t bytes) {
    const uint64_t at = top_;
    top_ += bytes;
    b_->NeedScratch(top_);
    return at;
  }

 private:
  Builder* b_;
  uint64_t top_ = 0;
};

/// The start of a node-aware alltoall: the blocks to send (a scratch copy of them in place) once
/// this rank's own block is in its place.
inline ir::Ref StartAllToAll(Builder& b, const CollSpec& spec, int rank, uint64_t blk,
                             ScratchTop& scratch) {
  ir::Ref src = SendAt(0);
  if (spec.in_place) {
    src = ScratchAt(scratch.Take(spec.nranks * blk));
    b.Copy(src, SendAt(0), spec.nranks * blk);
  }
  b.Copy(RecvAt(rank * blk), Plus(src, rank * blk), blk);
  return src;
}

/// The node's ranks are consecutive (its blocks lie side by side in rank order).
inline bool Consecutive(const std::vector<int>& ranks) {
  return ranks.back() - ranks.front() + 1 == static_cast<int>(ranks.size());
}

/// Copies the blocks of `ranks` (a node's ranks, in local order) lying side by side at `from` to
/// their places in the receive buffer: one copy where the ranks are consecutive.
inline void PlaceNodeBlocks(Builder& b, const std::vector<int>& ranks, ir::Ref from, uint64_t blk) {
  if (Consecutive(ranks)) {
    b.Copy(RecvAt(ranks.front() * blk), from, ranks.size() * blk);
    return;
  }
  for (size_t s = 0; s < ranks.size(); ++s) {
    b.Copy(RecvAt(ranks[s] * blk), Plus(from, s * blk), blk);
  }
}

}  // namespace weft::sched
