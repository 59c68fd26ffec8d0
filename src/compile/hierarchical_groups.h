// The shapes a hierarchical recipe composes (hierarchical.h): the group collectives each
// level runs, the slices of a multi-leader allreduce, and where a rank sits. Declining,
// offering and building a recipe all read them, so the shapes checked are the shapes built.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/coll_spec.h"
#include "sched/recipe.h"
#include "topo/topology.h"

namespace weft::sched::hier {

/// The most slices a multi-leader allreduce cuts its vector into on nodes of unequal size. A rank
/// of the smallest node carries S / L of them across the network, one network allreduce each,
/// so a placement whose sizes have a large least common multiple (1 + 31 + 32: 992) is left to
/// the single-leader and flat recipes. Equal nodes of any size cut L slices, one a rank.
constexpr int kMaxSlices = 64;

/// The group collectives of a hierarchical call, in the order the build runs them: those the
/// node recipe builds, those the network recipe builds, and allreduce's flat tail (count 0:
/// none). Declining and building both read them, so the shapes checked are the shapes built.
struct Groups {
  std::vector<CollSpec> node, net;
  CollSpec tail;
};

/// The group collective a level runs, with the call's type and op.
CollSpec Part(const CollSpec& s, Coll coll, int nranks, uint64_t count, bool in_place,
              int root = 0);

/// Ranks per node when every node has as many, else 0.
int EqualNodeSize(const Topology& t);

/// Slices of a multi-leader allreduce: the least common multiple S of the node sizes, so that
/// every node's ranks share the S slices equally (local rank i of a node of L ranks owns slices
/// [i S / L, (i + 1) S / L)); L itself on equal nodes, whatever L (the cap once applied there
/// too, and made 8 x 128's hierarchical recipes build the flat tail alone). 0 for unequal nodes
/// above kMaxSlices.
int Slices(const Topology& t);

/// The flat allreduce of the elements a node's blocks leave over.
Recipe TailRecipe(const CollSpec& tail);

/// rexch's reduce_scatter and allgather over n ranks in radices up to 4: "-4,-2,2,4".
std::vector<int> SplitFactors(int n);

/// An allreduce whose node recipe is rooted (its generator reduces and broadcasts but does not
/// reduce_scatter: tree): single leader, one rank per node carries the whole vector across.
bool SingleLeader(const CollSpec& spec, const Recipe& recipe);

/// A rooted recipe (bcast, reduce, single-leader allreduce): one rank per node carries the
/// node's data across, so nodes may differ in size.
bool Rooted(const CollSpec& spec, const Recipe& recipe);

/// The local index of the rank that carries node n's part across nodes in a bcast or reduce: the
/// root's own local index where node n has it (on the root's node, the root itself), else 0 (a
/// smaller node of an uneven placement).
int LeaderLocal(const Topology& t, int n, int root_local);

/// The groups of node n (its size decides the node level's; the network level's are every
/// node's). Nodes of unequal size only for rooted recipes (DeclineHierarchical).
Groups GroupsOf(const CollSpec& spec, const Recipe& recipe, int n);

/// Where a rank sits: its node n of N, its local index i of L, its node's ranks.
struct Seat {
  const Topology& t;
  int n, i, N, L;
  const std::vector<int>& node_ranks;
  Seat(const Topology& topo, int rank)
      : t(topo),
        n(topo.node_of_rank[rank]),
        i(topo.LocalRank(rank)),
        N(topo.num_nodes()),
        L(static_cast<int>(topo.ranks_of_node[n].size())),
        node_ranks(topo.ranks_of_node[n]) {}
  /// The ranks of local index `local`, one per node, in node order.
  std::vector<int> Column(int local) const {
    std::vector<int> column(N);
    for (int m = 0; m < N; ++m) column[m] = t.ranks_of_node[m][local];
    return column;
  }
  /// The owners of slice `slice` of S (Slices), one per node, in node order.
  std::vector<int> SliceColumn(int slice, int S) const {
    std::vector<int> column(N);
    for (int m = 0; m < N; ++m) {
      const auto& rs = t.ranks_of_node[m];
      column[m] = rs[static_cast<size_t>(slice) * rs.size() / S];
    }
    return column;
  }
  /// Each node's leader for a root of local index root_local (LeaderLocal), in node order.
  std::vector<int> Leaders(int root_local) const {
    std::vector<int> leaders(N);
    for (int m = 0; m < N; ++m) leaders[m] = t.ranks_of_node[m][LeaderLocal(t, m, root_local)];
    return leaders;
  }
};
}  // namespace weft::sched::hier
