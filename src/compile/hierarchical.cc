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
  if (spec.coll == Coll::kAllToAll) {
    return "hierarchical recipes do not serve alltoall (nodea2a is its node-aware schedule)";
  }
  if (NumNodes(spec) < 2 || spec.nodes->nranks != spec.nranks) {
    return "a hierarchical recipe needs ranks on more than one node";
  }
  const Topology& t = *spec.nodes;
  const int L = EqualNodeSize(t), N = t.num_nodes();
  if (L == 0) return "a hierarchical recipe needs nodes of equal size (uneven: flat recipes)";
  if (Reduces(spec.coll) && !Commutative(spec.op) && !t.BlockPlaced()) {
    return "a non-commutative op crosses nodes in rank order only with block placement";
  }
  const GenEnv flat;  // the levels run point-to-point
  const Recipe& node = recipe.levels[0];
  const Recipe& net = recipe.levels[1];
  // The group collectives each level runs (BuildHierarchical's, with the same shapes).
  std::vector<CollSpec> node_parts, net_parts;
  CollSpec rest;
  const uint64_t c = spec.count;
  switch (spec.coll) {
    case Coll::kAllReduce:
      node_parts = {Part(spec, Coll::kReduceScatter, L, c / L, spec.in_place),
                    Part(spec, Coll::kAllGather, L, c / L, true)};
      net_parts = {Part(spec, Coll::kAllReduce, N, c / L, true)};
      rest = Part(spec, Coll::kAllReduce, spec.nranks, c % L, spec.in_place);
      break;
    case Coll::kReduceScatter:
      node_parts = {Part(spec, Coll::kReduceScatter, L, N * c, false)};
      net_parts = {Part(spec, Coll::kReduceScatter, N, c, false)};
      break;
    case Coll::kAllGather:
      node_parts = {Part(spec, Coll::kAllGather, L, N * c, true)};
      net_parts = {Part(spec, Coll::kAllGather, N, c, false)};
      break;
    default:  // bcast and reduce: inside the node at the root's local index, across at its node
      node_parts = {Part(spec, spec.coll, L, c, false)};
      node_parts[0].root = t.LocalRank(spec.root);
      net_parts = {Part(spec, spec.coll, N, c, false)};
      net_parts[0].root = t.node_of_rank[spec.root];
      break;
  }
  std::string why;
  for (const CollSpec& p : node_parts) {
    if (!(why = DeclineRecipe(p, node, flat)).empty()) {
      return "node level " + RecipeText(node) + ": " + why;
    }
  }
  for (const CollSpec& p : net_parts) {
    if (!(why = DeclineRecipe(p, net, flat)).empty()) {
      return "network level " + RecipeText(net) + ": " + why;
    }
  }
  if (rest.count > 0 && !(why = DeclineRecipe(rest, TailRecipe(rest), flat)).empty()) {
    return "the last " + std::to_string(rest.count) + " elements: " + why;
  }
  return "";
}

namespace {

// The ranks of local index i, one per node, in node order.
std::vector<int> Column(const Topology& t, int i) {
  std::vector<int> column(t.num_nodes());
  for (int m = 0; m < t.num_nodes(); ++m) column[m] = t.ranks_of_node[m][i];
  return column;
}

// allreduce: node reduce_scatter, network allreduce of block i, node allgather, flat tail.
ir::Program BuildAllReduce(const CollSpec& spec, const Recipe& recipe, int rank) {
  const Topology& t = *spec.nodes;
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
  const std::vector<int>& node_ranks = t.ranks_of_node[n];
  const int L = static_cast<int>(node_ranks.size());
  const uint64_t es = ElemBytes(spec), b = spec.count / L, tail = spec.count % L;
  // In place, the call's send buffer is its receive buffer.
  const ir::Ref send = spec.in_place ? RecvAt(0) : SendAt(0);
  const ir::Ref mine = RecvAt(i * b * es);
  Builder out(spec, rank);

  // 1. reduce_scatter inside the node: block i to local rank i (in place: recv = send + i*b).
  const CollSpec rs = Part(spec, Coll::kReduceScatter, L, b, spec.in_place);
  passes::Embed(BuildProgram(rs, recipe.levels[0], i), {node_ranks, send, mine, 0}, &out.program());
  // 2. allreduce of block i across nodes, among the ranks of local index i, node by node.
  const CollSpec ar = Part(spec, Coll::kAllReduce, N, b, true);
  passes::Embed(BuildProgram(ar, recipe.levels[1], n), {Column(t, i), mine, mine, 0},
                &out.program());
  // 3. allgather inside the node (in place: send = recv + i*b).
  const CollSpec ag = Part(spec, Coll::kAllGather, L, b, true);
  passes::Embed(BuildProgram(ag, recipe.levels[0], i), {node_ranks, mine, RecvAt(0), 0},
                &out.program());
  if (tail > 0) {
    const CollSpec rest = Part(spec, Coll::kAllReduce, spec.nranks, tail, spec.in_place);
    std::vector<int> all(spec.nranks);
    for (int r = 0; r < spec.nranks; ++r) all[r] = r;
    const uint64_t at = L * b * es;
    passes::Embed(BuildProgram(rest, TailRecipe(rest), rank), {all, Plus(send, at), RecvAt(at), 0},
                  &out.program());
  }
  return out.Take();
}

// reduce_scatter: the blocks for local index l of every node packed together ([l][m]), node
// reduce_scatter of those bundles, then network reduce_scatter of my bundle among my column.
ir::Program BuildReduceScatter(const CollSpec& spec, const Recipe& recipe, int rank) {
  const Topology& t = *spec.nodes;
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
  const std::vector<int>& node_ranks = t.ranks_of_node[n];
  const int L = static_cast<int>(node_ranks.size());
  const uint64_t blk = spec.count * ElemBytes(spec), P = spec.nranks;
  const uint64_t bundle = P * blk, base = bundle + N * blk;  // staging, then the parts' scratch
  Builder out(spec, rank);
  out.NeedScratch(base);
  for (int l = 0; l < L; ++l) {
    for (int m = 0; m < N; ++m) {
      out.Copy(ScratchAt((l * N + m) * blk), SendAt(t.ranks_of_node[m][l] * blk), blk);
    }
  }
  const CollSpec rs1 = Part(spec, Coll::kReduceScatter, L, N * spec.count, false);
  passes::Embed(BuildProgram(rs1, recipe.levels[0], i),
                {node_ranks, ScratchAt(0), ScratchAt(bundle), base}, &out.program());
  const CollSpec rs2 = Part(spec, Coll::kReduceScatter, N, spec.count, false);
  passes::Embed(BuildProgram(rs2, recipe.levels[1], n),
                {Column(t, i), ScratchAt(bundle), RecvAt(0), base}, &out.program());
  return out.Take();
}

// allgather: network allgather among my column into my bundle's place, node allgather of the
// bundles ([l][m]), then every block to its rank's place.
ir::Program BuildAllGather(const CollSpec& spec, const Recipe& recipe, int rank) {
  const Topology& t = *spec.nodes;
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
  const std::vector<int>& node_ranks = t.ranks_of_node[n];
  const int L = static_cast<int>(node_ranks.size());
  const uint64_t blk = spec.count * ElemBytes(spec), base = spec.nranks * blk;
  Builder out(spec, rank);
  out.NeedScratch(base);
  const ir::Ref send = spec.in_place ? RecvAt(rank * blk) : SendAt(0);
  const CollSpec ag1 = Part(spec, Coll::kAllGather, N, spec.count, false);
  passes::Embed(BuildProgram(ag1, recipe.levels[1], n),
                {Column(t, i), send, ScratchAt(i * N * blk), base}, &out.program());
  const CollSpec ag2 = Part(spec, Coll::kAllGather, L, N * spec.count, true);
  passes::Embed(BuildProgram(ag2, recipe.levels[0], i),
                {node_ranks, ScratchAt(i * N * blk), ScratchAt(0), base}, &out.program());
  for (int l = 0; l < L; ++l) {
    for (int m = 0; m < N; ++m) {
      out.Copy(RecvAt(t.ranks_of_node[m][l] * blk), ScratchAt((l * N + m) * blk), blk);
    }
  }
  return out.Take();
}

// bcast: across nodes among the ranks of the root's local index (root: the root's node), then
// inside every node from that rank. reduce: the reverse, with node partials in scratch.
ir::Program BuildRooted(const CollSpec& spec, const Recipe& recipe, int rank) {
  const Topology& t = *spec.nodes;
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank);
  const int root_local = t.LocalRank(spec.root), root_node = t.node_of_rank[spec.root];
  const std::vector<int>& node_ranks = t.ranks_of_node[n];
  const int L = static_cast<int>(node_ranks.size()), N = t.num_nodes();
  const uint64_t vec = spec.count * ElemBytes(spec);
  const ir::Ref send = spec.in_place && rank == spec.root ? RecvAt(0) : SendAt(0);
  CollSpec node = Part(spec, spec.coll, L, spec.count, false);
  node.root = root_local;
  CollSpec net = Part(spec, spec.coll, N, spec.count, false);
  net.root = root_node;
  const std::vector<int> column = Column(t, root_local);
  Builder out(spec, rank);
  if (spec.coll == Coll::kBroadcast) {
    if (i == root_local) {
      passes::Embed(BuildProgram(net, recipe.levels[1], n), {column, send, RecvAt(0), 0},
                    &out.program());
    }
    passes::Embed(BuildProgram(node, recipe.levels[0], i), {node_ranks, RecvAt(0), RecvAt(0), 0},
                  &out.program());
    return out.Take();
  }
  out.NeedScratch(vec);  // the node's partial, at its rank of the root's local index
  passes::Embed(BuildProgram(node, recipe.levels[0], i), {node_ranks, send, ScratchAt(0), vec},
                &out.program());
  if (i == root_local) {
    passes::Embed(BuildProgram(net, recipe.levels[1], n), {column, ScratchAt(0), RecvAt(0), vec},
                  &out.program());
  }
  return out.Take();
}

}  // namespace

ir::Program BuildHierarchical(const CollSpec& spec, const Recipe& recipe, int rank) {
  switch (spec.coll) {
    case Coll::kReduceScatter:
      return BuildReduceScatter(spec, recipe, rank);
    case Coll::kAllGather:
      return BuildAllGather(spec, recipe, rank);
    case Coll::kBroadcast:
    case Coll::kReduce:
      return BuildRooted(spec, recipe, rank);
    default:
      return BuildAllReduce(spec, recipe, rank);
  }
}

std::vector<Recipe> HierarchicalCandidates(const CollSpec& spec) {
  std::vector<Recipe> out;
  if (NumNodes(spec) < 2) return out;
  const Topology& t = *spec.nodes;
  const int L = EqualNodeSize(t), N = t.num_nodes();
  if (L == 0) return out;
  if (spec.coll == Coll::kBroadcast || spec.coll == Coll::kReduce) {
    for (int k : {2, 4}) {
      Recipe h{kHierarchical, {}, 0, {Recipe{"tree", {k}, 0}, Recipe{"tree", {k}, 0}}};
      if (DeclineHierarchical(spec, h).empty()) out.push_back(h);
    }
    return out;
  }
  const bool ar = spec.coll == Coll::kAllReduce;
  const CollSpec net = Part(spec, spec.coll, N, ar ? spec.count / L : spec.count, ar);
  const Recipe node_rexch{"rexch", SplitFactors(L), 0};
  const Recipe net_rexch{"rexch",
                         ar ? FindGenerator("rexch")->DefaultFactors(net) : SplitFactors(N), 0};
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
