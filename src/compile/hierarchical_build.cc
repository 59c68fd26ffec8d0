// Building a hierarchical recipe's Program for one rank (hierarchical.h): each level's group
// program, built by its generator, embedded with its peers renamed and its buffers placed in
// the rank's (passes::Embed), collective by collective.
#include <vector>

#include "compile/compile.h"
#include "compile/hierarchical.h"
#include "compile/hierarchical_groups.h"
#include "sched/algos/builder.h"
#include "sched/passes/chunk.h"
#include "sched/passes/embed.h"

namespace weft::sched {
namespace {

using hier::Groups;
using hier::Seat;

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
  const int S = hier::Slices(s.t), per = S / s.L;  // slices, and slices a rank of this node owns
  const uint64_t es = ElemBytes(spec), b = g.net[0].count;
  // In place, the call's send buffer is its receive buffer.
  const ir::Ref send = spec.in_place ? RecvAt(0) : SendAt(0);
  const ir::Ref mine = RecvAt(s.i * per * b * es);
  // Where each node peer's parts read and write in its own call buffers, for a node level
  // that reaches them (zerocopy): every rank's RS part reads its send buffer and writes its own
  // slices, which its AG part then gives out.
  std::vector<std::vector<ir::Ref>> slices(s.L);
  for (int q = 0; q < s.L; ++q) slices[q] = {RecvAt(q * per * b * es)};
  // 1. reduce_scatter inside the node: slices [i per, (i + 1) per) to local rank i (in place:
  //    recv = send + i per b).
  passes::EmbedMap rs{s.node_ranks, send, mine, 0};
  rs.peer_send.assign(s.L, {send});
  rs.peer_recv = slices;
  // Until they signal the end of this part, peers read only their own slices' ranges of this
  // rank's send buffer (or their slots); the network part below touches only this rank's slice
  // and scratch, and the allgather part's entry wait asks again before anything shared is
  // written: so the network's messages need not wait for the node's slowest reduce.
  rs.drop_exit_waits = true;
  AppendNode(out, g.node[0], recipe.levels[0], s.i, std::move(rs));
  // 2. allreduce of each slice across nodes among its owners, node by node. Every rank runs
  //    its slices in increasing order, so the lowest unfinished slice always has all its owners.
  for (int k = 0; k < per; ++k) {
    const int slice = s.i * per + k;
    const ir::Ref at = RecvAt(slice * b * es);
    Append(out, g.net[0], recipe.levels[1], s.n, {s.SliceColumn(slice, S), at, at, 0});
  }
  // 3. allgather inside the node (in place: send = recv + i per b).
  passes::EmbedMap ag{s.node_ranks, mine, RecvAt(0), 0};
  ag.peer_send = std::move(slices);
  ag.peer_recv.assign(s.L, {RecvAt(0)});
  AppendNode(out, g.node[1], recipe.levels[0], s.i, std::move(ag));
  if (g.tail.count > 0) {
    std::vector<int> all(spec.nranks);
    for (int r = 0; r < spec.nranks; ++r) all[r] = r;
    const uint64_t at = S * b * es;
    Append(out, g.tail, hier::TailRecipe(g.tail), out.rank(), {all, Plus(send, at), RecvAt(at), 0});
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

// Where the blocks a reduce_scatter or allgather program moves lie in the call's buffers: each
// rank's block of the call is `stride` bytes, and the program moves bytes [offset, offset + its
// count's) of every block: the whole call (offset 0, stride its own block), or one chunk of a
// call pipelined across levels (its blocks shorter than the stride), whose network part then
// always lands in scratch and is copied out in a step of its own, so that every rank numbers
// the same steps.
struct BlockView {
  uint64_t stride = 0, offset = 0;
  bool Chunk(uint64_t blk) const { return blk != stride; }
};

// reduce_scatter: node reduce_scatter of the bundles ([l][m]: the blocks for local index l of
// every node), then network reduce_scatter of my bundle among my column. A node part whose
// messages keep within blocks (the shared-memory ones: copies and reduces) reads every block
// from its place in the send buffer; others read a packed copy of the whole buffer.
void BuildReduceScatter(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe,
                        const BlockView& v) {
  const CollSpec& spec = out.spec();
  const uint64_t blk = spec.count * ElemBytes(spec), bundle = s.N * blk;
  const ir::Program node = BuildProgram(g.node[0], recipe.levels[0], s.i);
  const std::vector<ir::Ref> places = BundlePlaces(s, SendAt(v.offset), v.stride);
  const ir::Ref mine = RecvAt(v.offset);
  if (blk > 0 && passes::Scatterable(node, ir::Space::kSend, blk)) {
    out.NeedScratch(bundle);
    passes::EmbedMap map{s.node_ranks, SendAt(0), ScratchAt(0), bundle};
    map.node = true;
    map.block = blk;
    map.send_blocks = places;
    map.peer_send.assign(s.L, places);  // every rank's send buffer holds the blocks alike
    EmbedPart(out, node, std::move(map));
    Append(out, g.net[0], recipe.levels[1], s.n, {s.Column(s.i), ScratchAt(0), mine, bundle});
    return;
  }
  const uint64_t packed = spec.nranks * blk, base = packed + bundle;  // staging, my bundle
  out.NeedScratch(base);
  // Chunked, the packing copies share the node part's step (passes::Embed: one step).
  for (size_t k = 0; k < places.size(); ++k) out.Copy(ScratchAt(k * blk), places[k], blk);
  passes::EmbedMap map{s.node_ranks, ScratchAt(0), ScratchAt(packed), base};
  map.node = true;
  EmbedPart(out, node, std::move(map));
  Append(out, g.net[0], recipe.levels[1], s.n, {s.Column(s.i), ScratchAt(packed), mine, base});
}

// allgather: network allgather among my column, then node allgather of the bundles ([l][m]).
// A node part whose messages keep within blocks (the shared-memory ones) writes every block
// to its place in the receive buffer, where the network part left my column's blocks; others
// gather the bundles in scratch, and every block is copied to its place after.
void BuildAllGather(Builder& out, const Seat& s, const Groups& g, const Recipe& recipe,
                    const BlockView& v) {
  const CollSpec& spec = out.spec();
  const uint64_t blk = spec.count * ElemBytes(spec), bundle = s.N * blk;
  const ir::Ref send = spec.in_place ? RecvAt(out.rank() * v.stride + v.offset) : SendAt(v.offset);
  const ir::Program node = BuildProgram(g.node[0], recipe.levels[0], s.i);
  const std::vector<ir::Ref> places = BundlePlaces(s, RecvAt(v.offset), v.stride);
  if (blk > 0 && passes::Scatterable(node, ir::Space::kRecv, blk)) {
    const std::vector<ir::Ref> column(places.begin() + s.i * s.N, places.begin() + (s.i + 1) * s.N);
    const ir::Program net = BuildProgram(g.net[0], recipe.levels[1], s.n);
    uint64_t base = 0;  // the parts' scratch, after the network part's landing place if any
    if (!v.Chunk(blk) && passes::Scatterable(net, ir::Space::kRecv, blk)) {
      passes::EmbedMap map{s.Column(s.i), send, RecvAt(0), 0};
      map.block = blk;
      map.recv_blocks = column;
      EmbedPart(out, net, std::move(map));
    } else {
      base = bundle;
      out.NeedScratch(base);
      EmbedPart(out, net, {s.Column(s.i), send, ScratchAt(0), base});
      if (v.Chunk(blk)) out.SetStep(out.program().steps);  // after the network part's steps
      for (int m = 0; m < s.N; ++m) out.Copy(column[m], ScratchAt(m * blk), blk);
    }
    // In place: the node part's own bundle is my column's blocks, where they now are.
    passes::EmbedMap map{s.node_ranks, RecvAt(0), RecvAt(0), base};
    map.node = true;
    map.block = blk;
    map.send_blocks = column;
    map.recv_blocks = places;
    for (int q = 0; q < s.L; ++q) {  // local rank q's bundle: its column, in its receive buffer
      map.peer_send.emplace_back(places.begin() + q * s.N, places.begin() + (q + 1) * s.N);
    }
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
  if (v.Chunk(blk)) out.SetStep(out.program().steps);  // after the node part's step
  for (size_t k = 0; k < places.size(); ++k) out.Copy(places[k], ScratchAt(k * blk), blk);
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
    passes::EmbedMap map{s.node_ranks, RecvAt(0), RecvAt(0), 0};
    map.peer_send.assign(s.L, {RecvAt(0)});  // the leader's vector, where the network left it
    AppendNode(out, g.node[0], recipe.levels[0], s.i, std::move(map));
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

ir::Program Build(const CollSpec& spec, const Recipe& recipe, int rank, const BlockView& v) {
  const Seat seat(*spec.nodes, rank);
  const Groups groups = hier::GroupsOf(spec, recipe, seat.n);
  Builder out(spec, rank);
  switch (spec.coll) {
    case Coll::kReduceScatter:
      BuildReduceScatter(out, seat, groups, recipe, v);
      break;
    case Coll::kAllGather:
      BuildAllGather(out, seat, groups, recipe, v);
      break;
    case Coll::kBroadcast:
    case Coll::kReduce:
      BuildRooted(out, seat, groups, recipe);
      break;
    default:
      if (hier::SingleLeader(spec, recipe)) {
        BuildAllReduceLeader(out, seat, groups, recipe);
      } else {
        BuildAllReduce(out, seat, groups, recipe);
      }
      break;
  }
  return out.Take();
}

}  // namespace

ir::Program BuildHierarchical(const CollSpec& spec, const Recipe& recipe, int rank) {
  const uint64_t block = spec.count * ElemBytes(spec);
  if (recipe.chunk_bytes == 0) return Build(spec, recipe, rank, {block, 0});
  // Chunk by chunk, each chunk's levels overlapping the next's.
  Recipe whole = recipe;
  whole.chunk_bytes = 0;
  if (spec.coll == Coll::kAllReduce) {  // a chunk is a range of the vector: Pipeline moves it
    return passes::Pipeline(spec, recipe.chunk_bytes, rank,
                            [&](const CollSpec& piece) { return Build(piece, whole, rank, {}); });
  }
  // reduce_scatter, allgather: a chunk is a piece of every rank's block.
  return passes::PipelinePlaced(
      spec, recipe.chunk_bytes, rank, [&](const CollSpec& piece, uint64_t first) {
        return Build(piece, whole, rank, {block, first * ElemBytes(spec)});
      });
}

}  // namespace weft::sched
