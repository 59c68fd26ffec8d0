#include "compile/hierarchical.h"

#include <algorithm>
#include <numeric>

#include "compile/compile.h"
#include "sched/algos/builder.h"
#include "sched/passes/chunk.h"
#include "sched/passes/embed.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched {
namespace {

// The group collective a level runs, with the call's type and op.
CollSpec Part(const CollSpec& s, Coll coll, int nranks, uint64_t count, bool in_place,
              int root = 0) {
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

// The most slices a multi-leader allreduce cuts its vector into on nodes of unequal size. A rank
// of the smallest node carries S / L of them across the network, one network allreduce each,
// so a placement whose sizes have a large least common multiple (1 + 31 + 32: 992) is left to
// the single-leader and flat recipes. Equal nodes of any size cut L slices, one a rank.
constexpr int kMaxSlices = 64;

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

// The group collectives of a hierarchical call, in the order the build runs them: those the
// node recipe builds, those the network recipe builds, and allreduce's flat tail (count 0:
// none). Declining and building both read them, so the shapes checked are the shapes built.
struct Groups {
  std::vector<CollSpec> node, net;
  CollSpec tail;
};

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

// Where a rank sits: its node n of N, its local index i of L, its node's ranks.
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
  // The ranks of local index `local`, one per node, in node order.
  std::vector<int> Column(int local) const {
    std::vector<int> column(N);
    for (int m = 0; m < N; ++m) column[m] = t.ranks_of_node[m][local];
    return column;
  }
  // The owners of slice `slice` of S (Slices), one per node, in node order.
  std::vector<int> SliceColumn(int slice, int S) const {
    std::vector<int> column(N);
    for (int m = 0; m < N; ++m) {
      const auto& rs = t.ranks_of_node[m];
      column[m] = rs[static_cast<size_t>(slice) * rs.size() / S];
    }
    return column;
  }
  // Each node's leader for a root of local index root_local (LeaderLocal), in node order.
  std::vector<int> Leaders(int root_local) const {
    std::vector<int> leaders(N);
    for (int m = 0; m < N; ++m) leaders[m] = t.ranks_of_node[m][LeaderLocal(t, m, root_local)];
    return leaders;
  }
};

// Appends the group program a level builds for this rank.
// Its steps follow the steps of the parts before it (passes::Embed), so that a composition
// whose parts number their steps alike on every rank can be pipelined across levels.
void EmbedPart(Builder& out, const ir::Program& part, passes::EmbedMap map) {
  map.step_base = out.program().steps;
  passes::Embed(part, map, &out.program());
}

void Append(Builder& out, const CollSpec& group, const Recipe& level, int group_rank,
            passes::EmbedMap map) {
  EmbedPart(out, BuildProgram(group, level, group_rank), std::move(map));
}

// Appends the node level's program for this rank's node (local index i): it may use the node
// segment (passes::EmbedMap::node).
void AppendNode(Builder& out, const CollSpec& group, const Recipe& level, int i,
                passes::EmbedMap map) {
  map.node = true;
  Append(out, group, level, i, std::move(map));
}

// allreduce: node reduce_scatter, network allreduce of each slice this rank owns among that
// slice's owners, node allgather, flat tail. On equal nodes a rank owns one slice, and the
// owners of a slice are the ranks of one local index.
void BuildAllReduce(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe) {
  const CollSpec& spec = out.spec();
  const int S = Slices(s.t), per = S / s.L;  // slices, and slices a rank of this node owns
  const uint64_t es = ElemBytes(spec), b = g.net[0].count;
  // In place, the call's send buffer is its receive buffer.
  const ir::Ref send = spec.in_place ? RecvAt(0) : SendAt(0);
  const ir::Ref mine = RecvAt(s.i * per * b * es);
  // 1. reduce_scatter inside the node: slices [i per, (i + 1) per) to local rank i (in place:
  //    recv = send + i per b).
  AppendNode(out, g.node[0], recipe.levels[0], s.i, {s.node_ranks, send, mine, 0});
  // 2. allreduce of each slice across nodes among its owners, node by node. Every rank runs
  //    its slices in increasing order, so the lowest unfinished slice always has all its owners.
  for (int k = 0; k < per; ++k) {
    const int slice = s.i * per + k;
    const ir::Ref at = RecvAt(slice * b * es);
    Append(out, g.net[0], recipe.levels[1], s.n, {s.SliceColumn(slice, S), at, at, 0});
  }
  // 3. allgather inside the node (in place: send = recv + i per b).
  AppendNode(out, g.node[1], recipe.levels[0], s.i, {s.node_ranks, mine, RecvAt(0), 0});
  if (g.tail.count > 0) {
    std::vector<int> all(spec.nranks);
    for (int r = 0; r < spec.nranks; ++r) all[r] = r;
    const uint64_t at = S * b * es;
    Append(out, g.tail, TailRecipe(g.tail), out.rank(), {all, Plus(send, at), RecvAt(at), 0});
  }
}

// Single-leader allreduce: reduce inside the node to local rank 0 (into its receive buffer),
// allreduce across nodes among the local ranks 0, bcast inside the node from local rank 0.
void BuildAllReduceLeader(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe) {
  const CollSpec& spec = out.spec();
  const ir::Ref send = spec.in_place ? RecvAt(0) : SendAt(0);
  const uint64_t vec = spec.count * ElemBytes(spec);
  // A rank other than local 0 gets the reduce's receive space in scratch: the group program
  // may stage there, and in place its input is the call's receive buffer.
  const ir::Ref partial = s.i == 0 ? RecvAt(0) : ScratchAt(0);
  const uint64_t base = s.i == 0 ? 0 : vec;
  out.NeedScratch(base);
  AppendNode(out, g.node[0], recipe.levels[0], s.i, {s.node_ranks, send, partial, base});
  if (s.i == 0)
    Append(out, g.net[0], recipe.levels[1], s.n, {s.Column(0), RecvAt(0), RecvAt(0), 0});
  AppendNode(out, g.node[1], recipe.levels[0], s.i, {s.node_ranks, RecvAt(0), RecvAt(0), 0});
}

// Where block l N + m of a node part's bundles is in the call: rank (m, l)'s block of `at`
// (the bundles' order: local index, then node).
std::vector<ir::Ref> BundlePlaces(const Seat& s, ir::Ref at, uint64_t blk) {
  std::vector<ir::Ref> places(static_cast<size_t>(s.L) * s.N);
  for (int l = 0; l < s.L; ++l) {
    for (int m = 0; m < s.N; ++m) places[l * s.N + m] = Plus(at, s.t.ranks_of_node[m][l] * blk);
  }
  return places;
}

// reduce_scatter: node reduce_scatter of the bundles ([l][m]: the blocks for local index l of
// every node), then network reduce_scatter of my bundle among my column. A node part whose
// messages keep within blocks (the shared-memory ones: copies and reduces) reads every block
// from its place in the send buffer; others read a packed copy of the whole buffer.
void BuildReduceScatter(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe) {
  const CollSpec& spec = out.spec();
  const uint64_t blk = spec.count * ElemBytes(spec), bundle = spec.nranks * blk;
  const ir::Program node = BuildProgram(g.node[0], recipe.levels[0], s.i);
  if (blk > 0 && passes::Scatterable(node, ir::Space::kSend, blk)) {
    const uint64_t mine = s.N * blk;
    out.NeedScratch(mine);
    passes::EmbedMap map{s.node_ranks, SendAt(0), ScratchAt(0), mine};
    map.node = true;
    map.block = blk;
    map.send_blocks = BundlePlaces(s, SendAt(0), blk);
    EmbedPart(out, node, std::move(map));
    Append(out, g.net[0], recipe.levels[1], s.n, {s.Column(s.i), ScratchAt(0), RecvAt(0), mine});
    return;
  }
  const uint64_t base = bundle + s.N * blk;  // staging, then the groups' scratch
  out.NeedScratch(base);
  for (int l = 0; l < s.L; ++l) {
    for (int m = 0; m < s.N; ++m) {
      out.Copy(ScratchAt((l * s.N + m) * blk), SendAt(s.t.ranks_of_node[m][l] * blk), blk);
    }
  }
  passes::EmbedMap map{s.node_ranks, ScratchAt(0), ScratchAt(bundle), base};
  map.node = true;
  EmbedPart(out, node, std::move(map));
  Append(out, g.net[0], recipe.levels[1], s.n, {s.Column(s.i), ScratchAt(bundle), RecvAt(0), base});
}

// allgather: network allgather among my column, then node allgather of the bundles ([l][m]).
// A node part whose messages keep within blocks (the shared-memory ones) writes every block
// to its place in the receive buffer, where the network part left my column's blocks; others
// gather the bundles in scratch, and every block is copied to its place after.
void BuildAllGather(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe) {
  const CollSpec& spec = out.spec();
  const uint64_t blk = spec.count * ElemBytes(spec), bundle = s.N * blk;
  const ir::Ref send = spec.in_place ? RecvAt(out.rank() * blk) : SendAt(0);
  const ir::Program node = BuildProgram(g.node[0], recipe.levels[0], s.i);
  if (blk > 0 && passes::Scatterable(node, ir::Space::kRecv, blk)) {
    const std::vector<ir::Ref> places = BundlePlaces(s, RecvAt(0), blk);
    const std::vector<ir::Ref> column(places.begin() + s.i * s.N, places.begin() + (s.i + 1) * s.N);
    const ir::Program net = BuildProgram(g.net[0], recipe.levels[1], s.n);
    uint64_t base = 0;  // the parts' scratch, after the network part's landing place if any
    if (passes::Scatterable(net, ir::Space::kRecv, blk)) {
      passes::EmbedMap map{s.Column(s.i), send, RecvAt(0), 0};
      map.block = blk;
      map.recv_blocks = column;
      EmbedPart(out, net, std::move(map));
    } else {
      base = bundle;
      out.NeedScratch(base);
      EmbedPart(out, net, {s.Column(s.i), send, ScratchAt(0), base});
      for (int m = 0; m < s.N; ++m) out.Copy(column[m], ScratchAt(m * blk), blk);
    }
    // In place: the node part's own bundle is my column's blocks, where they now are.
    passes::EmbedMap map{s.node_ranks, RecvAt(0), RecvAt(0), base};
    map.node = true;
    map.block = blk;
    map.send_blocks = column;
    map.recv_blocks = places;
    EmbedPart(out, node, std::move(map));
    return;
  }
  const uint64_t base = spec.nranks * blk;
  out.NeedScratch(base);
  const ir::Ref mine = ScratchAt(s.i * bundle);
  Append(out, g.net[0], recipe.levels[1], s.n, {s.Column(s.i), send, mine, base});
  passes::EmbedMap map{s.node_ranks, mine, ScratchAt(0), base};
  map.node = true;
  EmbedPart(out, node, std::move(map));
  for (int l = 0; l < s.L; ++l) {
    for (int m = 0; m < s.N; ++m) {
      out.Copy(RecvAt(s.t.ranks_of_node[m][l] * blk), ScratchAt((l * s.N + m) * blk), blk);
    }
  }
}

// bcast: across nodes among the nodes' leaders (the root's local index, or 0 on a node too
// small to have it; the root on its node), then inside every node from its leader. reduce: the
// reverse, with node partials in scratch.
void BuildRooted(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe) {
  const CollSpec& spec = out.spec();
  const int root_local = s.t.LocalRank(spec.root);
  const bool column = s.i == g.node[0].root;  // this rank leads its node
  const ir::Ref send = spec.in_place && out.rank() == spec.root ? RecvAt(0) : SendAt(0);
  if (spec.coll == Coll::kBroadcast) {
    if (column) {
      Append(out, g.net[0], recipe.levels[1], s.n, {s.Leaders(root_local), send, RecvAt(0), 0});
    }
    AppendNode(out, g.node[0], recipe.levels[0], s.i, {s.node_ranks, RecvAt(0), RecvAt(0), 0});
    return;
  }
  const uint64_t vec = spec.count * ElemBytes(spec);
  out.NeedScratch(vec);  // the node's partial, at its rank of the root's local index
  AppendNode(out, g.node[0], recipe.levels[0], s.i, {s.node_ranks, send, ScratchAt(0), vec});
  if (column) {
    Append(out, g.net[0], recipe.levels[1], s.n,
           {s.Leaders(root_local), ScratchAt(0), RecvAt(0), vec});
  }
}

// The shared-memory node level for a node part: oneshot while its largest buffer is within
// the single-node cut-off and oneshot serves the node (at most 64 ranks), else shmpipe. (At
// 8 x 128 and 8 KiB the oneshot part declined and no shared-memory composition was offered:
// selection kept the flat rexch, 32.8 us in weft-sim's replay, against 16.1 us for
// shmpipe/rexch:-4,-2,2,4.)
Recipe NodeSharedMemoryRecipe(const CollSpec& part) {
  const uint64_t largest = std::max(SendBytes(part, part.root), RecvBytes(part, part.root));
  GenEnv node_env;
  node_env.shared_memory = true;
  const Recipe one_shot{"oneshot", {}, 0};
  if (largest <= OneShotMaxBytes(part.coll) && DeclineRecipe(part, one_shot, node_env).empty()) {
    return one_shot;
  }
  return Recipe{"shmpipe", {}, 0};
}

}  // namespace

std::string DeclineHierarchical(const CollSpec& spec, const Recipe& recipe, const GenEnv& env) {
  if (recipe.levels.size() != 2) return "a hierarchical recipe has two levels (NODE/NET)";
  if (spec.coll == Coll::kAllToAll) {
    return "hierarchical recipes do not serve alltoall (nodea2a is its node-aware schedule)";
  }
  if (spec.coll == Coll::kGather || spec.coll == Coll::kScatter) {
    return "hierarchical recipes do not serve gather or scatter (flat tree:K moves whole "
           "subtrees)";
  }
  if (NumNodes(spec) < 2 || spec.nodes->nranks != spec.nranks) {
    return "a hierarchical recipe needs ranks on more than one node";
  }
  const Topology& t = *spec.nodes;
  if (EqualNodeSize(t) == 0 && !Rooted(spec, recipe)) {
    if (spec.coll != Coll::kAllReduce) {
      return "a hierarchical " + std::string(CollName(spec.coll)) +
             " splits the vector by local index and needs nodes of equal size (uneven: flat "
             "recipes)";
    }
    if (Slices(t) == 0) {
      return "the node sizes' least common multiple is over " + std::to_string(kMaxSlices) +
             " slices (uneven: tree:K/NET or flat recipes)";
    }
  }
  if (Reduces(spec.coll) && !Commutative(spec.op) && !t.BlockPlaced()) {
    return "a non-commutative op crosses nodes in rank order only with block placement";
  }
  if (recipe.chunk_bytes != 0) {
    // Chunks pipeline across levels only where every rank numbers the composition's steps
    // alike: the multi-leader allreduce on equal nodes (one slice a rank), with generators whose
    // step sequence does not depend on the rank, unchunked themselves.
    if (spec.coll != Coll::kAllReduce || SingleLeader(spec, recipe) || EqualNodeSize(t) == 0) {
      return "pipelining across levels ([NODE/NET]@SIZE) takes the multi-leader allreduce on "
             "nodes of equal size";
    }
    for (const Recipe& l : recipe.levels) {
      if ((l.generator != "rexch" && l.generator != "ring") || l.chunk_bytes != 0) {
        return "pipelining across levels takes rexch or ring at both levels, without an @size "
               "of their own";
      }
    }
  }
  // The network level runs point-to-point; the node level may run over each node's segment
  // (slots only: a single-copy generator reads the peer's call buffers, not its part's).
  const GenEnv flat;
  GenEnv node_env;
  node_env.shared_memory = env.node_shared_memory;
  const Groups g = GroupsOf(spec, recipe, 0);
  std::string why;
  // The node level's groups of every node (uneven nodes have groups of several sizes).
  for (int n = 0; n < t.num_nodes(); ++n) {
    for (const CollSpec& p : GroupsOf(spec, recipe, n).node) {
      if (!(why = DeclineRecipe(p, recipe.levels[0], node_env)).empty()) {
        return "node level " + RecipeText(recipe.levels[0]) + ": " + why;
      }
    }
  }
  for (const CollSpec& p : g.net) {
    if (!(why = DeclineRecipe(p, recipe.levels[1], flat)).empty()) {
      return "network level " + RecipeText(recipe.levels[1]) + ": " + why;
    }
  }
  if (g.tail.count > 0 && !(why = DeclineRecipe(g.tail, TailRecipe(g.tail), flat)).empty()) {
    return "the last " + std::to_string(g.tail.count) + " elements: " + why;
  }
  return "";
}

ir::Program BuildHierarchical(const CollSpec& spec, const Recipe& recipe, int rank) {
  if (recipe.chunk_bytes != 0) {  // chunk by chunk, each chunk's levels overlapping the next's
    Recipe whole = recipe;
    whole.chunk_bytes = 0;
    return passes::Pipeline(spec, recipe.chunk_bytes, rank, [&](const CollSpec& piece) {
      return BuildHierarchical(piece, whole, rank);
    });
  }
  const Seat seat(*spec.nodes, rank);
  const Groups groups = GroupsOf(spec, recipe, seat.n);
  Builder out(spec, rank);
  switch (spec.coll) {
    case Coll::kReduceScatter:
      BuildReduceScatter(out, seat, groups, recipe);
      break;
    case Coll::kAllGather:
      BuildAllGather(out, seat, groups, recipe);
      break;
    case Coll::kBroadcast:
    case Coll::kReduce:
      BuildRooted(out, seat, groups, recipe);
      break;
    default:
      if (SingleLeader(spec, recipe)) {
        BuildAllReduceLeader(out, seat, groups, recipe);
      } else {
        BuildAllReduce(out, seat, groups, recipe);
      }
      break;
  }
  return out.Take();
}

Recipe PointToPointNodeLevel(const CollSpec& spec, const Recipe& recipe, int rank) {
  // A recipe that builds without node segments runs point-to-point already.
  if (recipe.levels.size() != 2 || !spec.nodes ||
      DeclineHierarchical(spec, recipe, GenEnv{}).empty()) {
    return recipe;
  }
  Recipe out = recipe;
  if (spec.coll == Coll::kBroadcast || spec.coll == Coll::kReduce) {
    out.levels[0] = {"tree", {2}, 0};
  } else if (Commutative(spec.op)) {
    out.levels[0] = {"ring", {}, 0};
  } else {  // order-preserving; this node's size alone (only its ranks build this level)
    const Seat s(*spec.nodes, rank);
    out.levels[0] = {"rexch", SplitFactors(s.L), 0};
  }
  return out;
}

std::vector<Recipe> HierarchicalCandidates(const CollSpec& spec, const GenEnv& env) {
  std::vector<Recipe> out;
  if (NumNodes(spec) < 2 || spec.coll == Coll::kAllToAll || spec.coll == Coll::kGather ||
      spec.coll == Coll::kScatter) {
    return out;
  }
  const Topology& t = *spec.nodes;
  const int L = EqualNodeSize(t), N = t.num_nodes();
  auto offer = [&](Recipe node, Recipe net) {
    Recipe h{kHierarchical, {}, 0, {std::move(node), std::move(net)}};
    if (DeclineHierarchical(spec, h, env).empty()) out.push_back(std::move(h));
  };
  // Over the node segments, the node level is the shared-memory schedule the single-node rule
  // names for node 0's first part (compile.cc: measured there to beat the point-to-point ones
  // at every size), in place of the point-to-point node recipes below.
  const bool node_shm = env.node_shared_memory;
  const Recipe node_shm_recipe = NodeSharedMemoryRecipe(GroupsOf(spec, Recipe(), 0).node[0]);
  if (spec.coll == Coll::kBroadcast || spec.coll == Coll::kReduce) {
    for (int k : {2, 4}) {
      offer(node_shm ? node_shm_recipe : Recipe{"tree", {k}, 0}, {"tree", {k}, 0});
    }
    return out;
  }
  // Single leader (small vectors: three latency-bound steps, each rank sends the vector once);
  // on nodes of unequal size the only hierarchical allreduce.
  auto offer_leader = [&] {
    if (spec.coll != Coll::kAllReduce) return;
    const CollSpec whole = Part(spec, Coll::kAllReduce, N, spec.count, true);
    const std::vector<int> radix2(patterns::RadicesUpTo(N, 2).size(), 2);
    for (int k : {2, 4}) {
      offer({"tree", {k}, 0}, {"rexch", FindGenerator("rexch")->DefaultFactors(whole), 0});
      offer({"tree", {k}, 0}, {"rexch", radix2, 0});
    }
  };
  if (L == 0) {  // uneven nodes: allreduce only, with node recipes that fit every node size
    if (spec.coll == Coll::kAllReduce) {
      const CollSpec net = GroupsOf(spec, Recipe(), 0).net[0];
      const Recipe net_rexch{"rexch", FindGenerator("rexch")->DefaultFactors(net), 0};
      size_t smallest = t.ranks_of_node[0].size();
      for (const auto& rs : t.ranks_of_node) smallest = std::min(smallest, rs.size());
      if (node_shm) {
        offer(node_shm_recipe, net_rexch);
      } else {
        offer({"ring", {}, 0}, net_rexch);
        if (smallest > 1) offer({"rexch", SplitFactors(static_cast<int>(smallest)), 0}, net_rexch);
      }
    }
    offer_leader();
    return out;
  }
  const CollSpec net = GroupsOf(spec, Recipe(), 0).net[0];  // a copy: the Groups is a temporary
  const Recipe node_rexch{"rexch", SplitFactors(L), 0};
  const Recipe net_rexch{
      "rexch",
      net.coll == Coll::kAllReduce ? FindGenerator("rexch")->DefaultFactors(net) : SplitFactors(N),
      0};
  if (node_shm) {
    offer(node_shm_recipe, net_rexch);
  } else {
    offer(node_rexch, net_rexch);
    offer({"ring", {}, 0}, net_rexch);
  }
  offer_leader();
  // A ring across nodes only where each of its N pieces holds a 64-byte line: with empty pieces
  // a rank's own program looks cheap to the one-rank estimate while it waits on the whole chain.
  // At 32 x 64 and 8 KiB selection took rexch:-4,-4,-4,4,4,4/ring, for which `weft-sim
  // allreduce -n 1K --topology 32x64 --recipe rexch:-4,-4,-4,4,4,4/ring` predicts 156 us
  // against 30 us for rexch:-4,-4,-4,4,4,4/rexch:-4,-4,-2,2,4,4.
  if (net.count * ElemBytes(spec) >= static_cast<uint64_t>(N) * 64) {
    offer(node_shm ? node_shm_recipe : node_rexch, {"ring", {}, 0});
  }
  return out;
}

}  // namespace weft::sched
