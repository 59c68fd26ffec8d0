#include "compile/hierarchical_groups.h"

#include <numeric>

#include "sched/algos/generator.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched::hier {

// The group collective a level runs, with the call's type and op.
CollSpec Part(const CollSpec& s, Coll coll, int nranks, uint64_t count, bool in_place, int root) {
  CollSpec p;
  p.coll = coll;
  p.nranks = nranks;
  p.count = count;
  p.dtype = s.dtype;
  p.op = s.op;
  p.in_place = in_place;
  p.root = root;
  return p;
}

// Ranks per node when every node has as many, else 0.
int EqualNodeSize(const Topology& t) {
  const size_t l = t.ranks_of_node[0].size();
  for (const auto& rs : t.ranks_of_node) {
    if (rs.size() != l) return 0;
  }
  return static_cast<int>(l);
}

// Slices of a multi-leader allreduce: the least common multiple S of the node sizes, so that
// every node's ranks share the S slices equally (local rank i of a node of L ranks owns slices
// [i S / L, (i + 1) S / L)); L itself on equal nodes, whatever L (the cap once applied there
// too, and made 8 x 128's hierarchical recipes build the flat tail alone). 0 for unequal nodes
// above kMaxSlices.
int Slices(const Topology& t) {
  if (const int L = EqualNodeSize(t); L > 0) return L;
  int64_t s = 1;
  for (const auto& rs : t.ranks_of_node) {
    s = std::lcm(s, static_cast<int64_t>(rs.size()));
    if (s > kMaxSlices) return 0;
  }
  return static_cast<int>(s);
}

// The flat allreduce of the elements a node's blocks leave over.
Recipe TailRecipe(const CollSpec& tail) {
  return Recipe{"rexch", FindGenerator("rexch")->DefaultFactors(tail), 0};
}

// rexch's reduce_scatter and allgather over n ranks in radices up to 4: "-4,-2,2,4".
std::vector<int> SplitFactors(int n) {
  std::vector<int> f;
  const std::vector<int> radices = patterns::RadicesUpTo(n, 4);
  for (int r : radices) f.push_back(-r);
  f.insert(f.end(), radices.rbegin(), radices.rend());
  return f;
}

// An allreduce whose node recipe is rooted (its generator reduces and broadcasts but does not
// reduce_scatter: tree): single leader, one rank per node carries the whole vector across.
bool SingleLeader(const CollSpec& spec, const Recipe& recipe) {
  if (spec.coll != Coll::kAllReduce || recipe.levels.size() != 2) return false;
  const Generator* g = FindGenerator(recipe.levels[0].generator);
  return g != nullptr && g->Serves(Coll::kReduce) && g->Serves(Coll::kBroadcast) &&
         !g->Serves(Coll::kReduceScatter);
}

// A rooted recipe (bcast, reduce, single-leader allreduce): one rank per node carries the
// node's data across, so nodes may differ in size.
bool Rooted(const CollSpec& spec, const Recipe& recipe) {
  return spec.coll == Coll::kBroadcast || spec.coll == Coll::kReduce || SingleLeader(spec, recipe);
}

// The local index of the rank that carries node n's part across nodes in a bcast or reduce: the
// root's own local index where node n has it (on the root's node, the root itself), else 0 (a
// smaller node of an uneven placement).
int LeaderLocal(const Topology& t, int n, int root_local) {
  return root_local < static_cast<int>(t.ranks_of_node[n].size()) ? root_local : 0;
}

// The groups of node n (its size decides the node level's; the network level's are every
// node's). Nodes of unequal size only for rooted recipes (DeclineHierarchical).
Groups GroupsOf(const CollSpec& spec, const Recipe& recipe, int n) {
  const Topology& t = *spec.nodes;
  const int L = static_cast<int>(t.ranks_of_node[n].size()), N = t.num_nodes();
  const uint64_t c = spec.count;
  if (SingleLeader(spec, recipe)) {  // node reduce to local 0, its column's allreduce, bcast
    return {{Part(spec, Coll::kReduce, L, c, spec.in_place, 0),
             Part(spec, Coll::kBroadcast, L, c, false, 0)},
            {Part(spec, Coll::kAllReduce, N, c, true)},
            {}};
  }
  switch (spec.coll) {
    case Coll::kAllReduce: {  // node reduce_scatter, network allreduce per slice, node
                              // allgather, tail
      const int S = Slices(t);
      const uint64_t b = S == 0 ? 0 : c / S, own = b * (S / L);  // a slice, a rank's slices
      return {{Part(spec, Coll::kReduceScatter, L, own, spec.in_place),
               Part(spec, Coll::kAllGather, L, own, true)},
              {Part(spec, Coll::kAllReduce, N, b, true)},
              Part(spec, Coll::kAllReduce, spec.nranks, S == 0 ? c : c % S, spec.in_place)};
    }
    case Coll::kReduceScatter:  // bundles of N blocks inside the node, then a block across
      return {{Part(spec, Coll::kReduceScatter, L, N * c, false)},
              {Part(spec, Coll::kReduceScatter, N, c, false)},
              {}};
    case Coll::kAllGather:  // a block across nodes, then bundles of N blocks inside the node
      return {{Part(spec, Coll::kAllGather, L, N * c, true)},
              {Part(spec, Coll::kAllGather, N, c, false)},
              {}};
    default:  // bcast, reduce: inside the node at its leader, across at the root's node
      return {{Part(spec, spec.coll, L, c, false, LeaderLocal(t, n, t.LocalRank(spec.root)))},
              {Part(spec, spec.coll, N, c, false, t.node_of_rank[spec.root])},
              {}};
  }
}

}  // namespace weft::sched::hier
