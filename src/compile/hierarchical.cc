#include "compile/hierarchical.h"

#include "compile/compile.h"
#include "sched/algos/builder.h"
#include "sched/passes/embed.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched {
namespace {

// The group collective a level runs, with the call's type and op.
CollSpec Part(const CollSpec& s, Coll coll, int nranks, uint64_t count, bool in_place) {
  CollSpec p;
  p.coll = coll;
  p.nranks = nranks;
  p.count = count;
  p.dtype = s.dtype;
  p.op = s.op;
  p.in_place = in_place;
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

}  // namespace

std::string DeclineHierarchical(const CollSpec& spec, const Recipe& recipe) {
  if (recipe.levels.size() != 2) return "a hierarchical recipe has two levels (NODE/NET)";
  if (spec.coll != Coll::kAllReduce) {
    return "hierarchical recipes serve allreduce (the other collectives run flat recipes)";
  }
  if (NumNodes(spec) < 2 || spec.nodes->nranks != spec.nranks) {
    return "a hierarchical recipe needs ranks on more than one node";
  }
  const Topology& t = *spec.nodes;
  const int L = EqualNodeSize(t), N = t.num_nodes();
  if (L == 0) return "a hierarchical recipe needs nodes of equal size (uneven: flat recipes)";
  if (!Commutative(spec.op) && !t.BlockPlaced()) {
    return "a non-commutative op crosses nodes in rank order only with block placement";
  }
  const uint64_t b = spec.count / L, tail = spec.count % L;
  const GenEnv flat;  // the levels run point-to-point
  std::string why;
  const Recipe& node = recipe.levels[0];
  const Recipe& net = recipe.levels[1];
  if (!(why = DeclineRecipe(Part(spec, Coll::kReduceScatter, L, b, spec.in_place), node, flat))
           .empty() ||
      !(why = DeclineRecipe(Part(spec, Coll::kAllGather, L, b, true), node, flat)).empty()) {
    return "node level " + RecipeText(node) + ": " + why;
  }
  if (!(why = DeclineRecipe(Part(spec, Coll::kAllReduce, N, b, true), net, flat)).empty()) {
    return "network level " + RecipeText(net) + ": " + why;
  }
  const CollSpec rest = Part(spec, Coll::kAllReduce, spec.nranks, tail, spec.in_place);
  if (tail > 0 && !(why = DeclineRecipe(rest, TailRecipe(rest), flat)).empty()) {
    return "the last " + std::to_string(tail) + " elements: " + why;
  }
  return "";
}

ir::Program BuildHierarchical(const CollSpec& spec, const Recipe& recipe, int rank) {
  const Topology& t = *spec.nodes;
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
  const std::vector<int>& node_ranks = t.ranks_of_node[n];
  const int L = static_cast<int>(node_ranks.size());
  const uint64_t es = ElemBytes(spec), b = spec.count / L, tail = spec.count % L;
  // In place, the call's send buffer is its receive buffer.
  const ir::Ref send = spec.in_place ? RecvAt(0) : SendAt(0);
  const ir::Ref mine = RecvAt(i * b * es);
  ir::Program out = Builder(spec, rank).Take();

  // 1. reduce_scatter inside the node: block i to local rank i (in place: recv = send + i*b).
  const CollSpec rs = Part(spec, Coll::kReduceScatter, L, b, spec.in_place);
  passes::Embed(BuildProgram(rs, recipe.levels[0], i), {node_ranks, send, mine, 0}, &out);
  // 2. allreduce of block i across nodes, among the ranks of local index i, node by node.
  std::vector<int> column(N);
  for (int m = 0; m < N; ++m) column[m] = t.ranks_of_node[m][i];
  const CollSpec ar = Part(spec, Coll::kAllReduce, N, b, true);
  passes::Embed(BuildProgram(ar, recipe.levels[1], n), {column, mine, mine, 0}, &out);
  // 3. allgather inside the node (in place: send = recv + i*b).
  const CollSpec ag = Part(spec, Coll::kAllGather, L, b, true);
  passes::Embed(BuildProgram(ag, recipe.levels[0], i), {node_ranks, mine, RecvAt(0), 0}, &out);
  if (tail > 0) {
    const CollSpec rest = Part(spec, Coll::kAllReduce, spec.nranks, tail, spec.in_place);
    std::vector<int> all(spec.nranks);
    for (int r = 0; r < spec.nranks; ++r) all[r] = r;
    const uint64_t at = L * b * es;
    passes::Embed(BuildProgram(rest, TailRecipe(rest), rank), {all, Plus(send, at), RecvAt(at), 0},
                  &out);
  }
  return out;
}

std::vector<Recipe> HierarchicalCandidates(const CollSpec& spec) {
  std::vector<Recipe> out;
  if (spec.coll != Coll::kAllReduce || NumNodes(spec) < 2) return out;
  const Topology& t = *spec.nodes;
  const int L = EqualNodeSize(t), N = t.num_nodes();
  if (L == 0) return out;
  const CollSpec net = Part(spec, Coll::kAllReduce, N, spec.count / L, true);
  const Recipe node_rexch{"rexch", SplitFactors(L), 0};
  const Recipe net_rexch{"rexch", FindGenerator("rexch")->DefaultFactors(net), 0};
  std::vector<std::pair<Recipe, Recipe>> levels = {{node_rexch, net_rexch},
                                                   {Recipe{"ring", {}, 0}, net_rexch}};
  // A ring across nodes only where each of its N pieces holds a 64-byte line: with empty
  // pieces a rank's own program looks cheap to the estimate while it waits on the whole
  // chain (at 32 x 64 and 8 KiB the estimate said 22 us, the simulator 156 us).
  if (net.count * ElemBytes(spec) >= static_cast<uint64_t>(N) * 64) {
    levels.push_back({node_rexch, Recipe{"ring", {}, 0}});
  }
  for (const auto& [node, across] : levels) {
    Recipe h{kHierarchical, {}, 0, {node, across}};
    if (DeclineHierarchical(spec, h).empty()) out.push_back(h);
  }
  return out;
}

}  // namespace weft::sched
