#include "compile/hierarchical.h"

#include <algorithm>

#include "compile/compile.h"
#include "compile/hierarchical_groups.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched {
namespace {

using hier::Groups;
using hier::Seat;

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

// Chunks smaller than this are not offered for pipelining across levels. It was 64 KiB while
// every round of a pipeline ended in a waitall (at 32 x 64 and 64 KiB of doubles
// [zerocopy/rexch:-32,32]@32K replayed 60.6 us against 45.2 unchunked); with each chunk waiting
// only for its own messages (waitolder), @16K replays 20.2 us there, unchunked 28.4, and the
// estimate ranks them alike (20.5 and 27.0).
constexpr uint64_t kMinPipelinedChunk = 4u << 10;

// Node levels that read their peers' buffers in place (zerocopy: mapped by weftMemAlloc; cma:
// by single copy): one step each, every rank's part buffers placed where its call holds them.
bool ReadsPeerBuffers(const Recipe& node) {
  return node.generator == "zerocopy" || node.generator == "cma";
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
  if (IsScan(spec.coll)) {
    return "hierarchical recipes do not serve scan or exscan (doubling is their schedule at "
           "any placement)";
  }
  if (NumNodes(spec) < 2 || spec.nodes->nranks != spec.nranks) {
    return "a hierarchical recipe needs ranks on more than one node";
  }
  const Topology& t = *spec.nodes;
  if (hier::EqualNodeSize(t) == 0 && !hier::Rooted(spec, recipe)) {
    if (spec.coll != Coll::kAllReduce) {
      return "a hierarchical " + std::string(CollName(spec.coll)) +
             " splits the vector by local index and needs nodes of equal size (uneven: flat "
             "recipes)";
    }
    if (hier::Slices(t) == 0) {
      return "the node sizes' least common multiple is over " + std::to_string(hier::kMaxSlices) +
             " slices (uneven: tree:K/NET or flat recipes)";
    }
  }
  if (Reduces(spec.coll) && !Commutative(spec.op) && !t.BlockPlaced()) {
    return "a non-commutative op crosses nodes in rank order only with block placement";
  }
  if (recipe.chunk_bytes != 0) {
    // Chunks pipeline across levels only where every rank numbers the composition's steps
    // alike: the multi-leader allreduce on equal nodes (one slice a rank), with generators whose
    // step sequence does not depend on the rank, unchunked themselves; a reduce_scatter or
    // allgather with a zerocopy node level (a point-to-point one may pack or land its blocks
    // through scratch on some ranks and not others).
    const bool by_blocks = spec.coll == Coll::kReduceScatter || spec.coll == Coll::kAllGather;
    if ((spec.coll != Coll::kAllReduce && !by_blocks) || hier::SingleLeader(spec, recipe) ||
        hier::EqualNodeSize(t) == 0) {
      return "pipelining across levels ([NODE/NET]@SIZE) takes the multi-leader allreduce, "
             "reduce_scatter and allgather on nodes of equal size";
    }
    if (by_blocks && !ReadsPeerBuffers(recipe.levels[0])) {
      return "a reduce_scatter or allgather pipelines across levels with a zerocopy or cma node "
             "level";
    }
    for (size_t k = 0; k < recipe.levels.size(); ++k) {
      const Recipe& l = recipe.levels[k];
      const bool steps_alike =
          l.generator == "rexch" || l.generator == "ring" || (k == 0 && ReadsPeerBuffers(l));
      if (!steps_alike || l.chunk_bytes != 0) {
        return "pipelining across levels takes rexch, ring or (node level) zerocopy or cma, "
               "without an @size of their own";
      }
    }
  }
  // A zerocopy or cma node part reads its peers' part buffers where each peer's call holds them
  // (hierarchical_build.cc places them): not a reduce's, whose node partial is in the leader's
  // scratch, which peers cannot reach (and a non-root's receive buffer may be none).
  if (ReadsPeerBuffers(recipe.levels[0]) &&
      (spec.coll == Coll::kReduce || hier::SingleLeader(spec, recipe))) {
    return recipe.levels[0].generator +
           " as a node level serves the multi-leader allreduce, reduce_scatter, allgather and "
           "bcast (a reduce's node partial is in scratch its peers cannot reach)";
  }
  // The network level runs point-to-point; the node level may run over each node's segment,
  // or straight from the peers' buffers where every rank's are mapped in its node peers (zero
  // copy; not single copy, whose generator reads the peers' whole call buffers).
  const GenEnv flat;
  GenEnv node_env;
  node_env.shared_memory = env.node_shared_memory;
  node_env.zero_copy = env.node_shared_memory && env.zero_copy;
  node_env.single_copy = env.node_shared_memory && env.node_single_copy;
  const Groups g = hier::GroupsOf(spec, recipe, 0);
  std::string why;
  // The node level's groups of every node (uneven nodes have groups of several sizes).
  for (int n = 0; n < t.num_nodes(); ++n) {
    for (const CollSpec& p : hier::GroupsOf(spec, recipe, n).node) {
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
  if (g.tail.count > 0 && !(why = DeclineRecipe(g.tail, hier::TailRecipe(g.tail), flat)).empty()) {
    return "the last " + std::to_string(g.tail.count) + " elements: " + why;
  }
  return "";
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
    out.levels[0] = {"rexch", hier::SplitFactors(s.L), 0};
  }
  return out;
}

std::vector<Recipe> HierarchicalCandidates(const CollSpec& spec, const GenEnv& env) {
  std::vector<Recipe> out;
  if (NumNodes(spec) < 2 || spec.coll == Coll::kAllToAll || spec.coll == Coll::kGather ||
      spec.coll == Coll::kScatter || IsScan(spec.coll)) {
    return out;
  }
  const Topology& t = *spec.nodes;
  const int L = hier::EqualNodeSize(t), N = t.num_nodes();
  auto offer = [&](Recipe node, Recipe net, uint64_t chunk = 0) {
    Recipe h{kHierarchical, {}, chunk, {std::move(node), std::move(net)}};
    if (DeclineHierarchical(spec, h, env).empty()) out.push_back(std::move(h));
  };
  // Over the node segments, the node level is the shared-memory schedule the single-node rule
  // names for node 0's first part (compile.cc: measured there to beat the point-to-point ones
  // at every size), in place of the point-to-point node recipes below.
  const bool node_shm = env.node_shared_memory;
  const Recipe node_shm_recipe = NodeSharedMemoryRecipe(hier::GroupsOf(spec, Recipe(), 0).node[0]);
  if (spec.coll == Coll::kBroadcast || spec.coll == Coll::kReduce) {
    for (int k : {2, 4}) {
      offer(node_shm ? node_shm_recipe : Recipe{"tree", {k}, 0}, {"tree", {k}, 0});
      // weftMemAlloc buffers: each rank copies the vector from its leader's buffer; the user's
      // own, by single copy.
      if (node_shm && spec.coll == Coll::kBroadcast) {
        if (env.zero_copy) {
          offer({"zerocopy", {}, 0}, {"tree", {k}, 0});
        } else if (env.node_single_copy) {
          offer({"cma", {}, 0}, {"tree", {k}, 0});
        }
      }
    }
    return out;
  }
  // Single leader (small vectors: three latency-bound steps, each rank sends the vector once);
  // on nodes of unequal size the only hierarchical allreduce.
  auto offer_leader = [&] {
    if (spec.coll != Coll::kAllReduce) return;
    const CollSpec whole = hier::Part(spec, Coll::kAllReduce, N, spec.count, true);
    const std::vector<int> radix2(patterns::RadicesUpTo(N, 2).size(), 2);
    for (int k : {2, 4}) {
      offer({"tree", {k}, 0}, {"rexch", FindGenerator("rexch")->DefaultFactors(whole), 0});
      offer({"tree", {k}, 0}, {"rexch", radix2, 0});
    }
  };
  if (L == 0) {  // uneven nodes: allreduce only, with node recipes that fit every node size
    if (spec.coll == Coll::kAllReduce) {
      const CollSpec net = hier::GroupsOf(spec, Recipe(), 0).net[0];
      const Recipe net_rexch{"rexch", FindGenerator("rexch")->DefaultFactors(net), 0};
      size_t smallest = t.ranks_of_node[0].size();
      for (const auto& rs : t.ranks_of_node) smallest = std::min(smallest, rs.size());
      if (node_shm) {
        offer(node_shm_recipe, net_rexch);
      } else {
        offer({"ring", {}, 0}, net_rexch);
        if (smallest > 1)
          offer({"rexch", hier::SplitFactors(static_cast<int>(smallest)), 0}, net_rexch);
      }
    }
    offer_leader();
    return out;
  }
  const CollSpec net =
      hier::GroupsOf(spec, Recipe(), 0).net[0];  // a copy: the Groups is a temporary
  const Recipe node_rexch{"rexch", hier::SplitFactors(L), 0};
  const Recipe net_rexch{"rexch",
                         net.coll == Coll::kAllReduce ? FindGenerator("rexch")->DefaultFactors(net)
                                                      : hier::SplitFactors(N),
                         0};
  if (node_shm) {
    offer(node_shm_recipe, net_rexch);
  } else {
    offer(node_rexch, net_rexch);
    offer({"ring", {}, 0}, net_rexch);
  }
  offer_leader();
  // Buffers from weftMemAlloc on every rank: the node level reduces and gathers straight from
  // the peers' buffers (zerocopy), with each network recipe offered for the segment's node level
  // (zero_copy_node below); the allreduce also by one direct exchange (rexch:-N,N, the fewest
  // rounds to pipeline through), and chunk by chunk (chunk c + 1's node reduce runs during chunk
  // c's network rounds). weft-sim at 32 x 64, 1 MiB of doubles: 311 us for
  // [zerocopy/rexch:-32,32]@128K, 485 for zerocopy/rexch:-4,-4,-2,2,4,4, 592 for shmpipe/same.
  // Chunked, only with the direct exchange where there is one: with the radix-4 chain (six
  // rounds a chunk at 32 nodes) the replay runs past the estimate (32 x 64, 1 MiB, @128K: 377 us
  // against 325, where the direct exchange replays 311 against 330, so the estimate took the
  // slower); at 8 nodes the two replay within 1% of each other and of their estimates.
  // A reduce_scatter or allgather is chunked by pieces of every rank's block, a chunk moving P
  // such pieces through every rank: at 32 x 64 with 32 KiB blocks (int8), weft-sim replays
  // [zerocopy/rexch:-32,32]@4K at 12.8 ms for the reduce_scatter (16.7 unchunked; the flat ring
  // 31.9) and @2K at 8.4 ms for the allgather (12.0 unchunked; the flat ring 9.5).
  // The user's own buffers where single copy works on every node: the same compositions with
  // a cma node level, each peer's operand read (process_vm_readv) into scratch before the reduce.
  const bool zero_copy_node = node_shm && env.zero_copy;
  const bool peer_node = zero_copy_node || (node_shm && env.node_single_copy);
  const Recipe peer_level{zero_copy_node ? "zerocopy" : "cma", {}, 0};
  if (peer_node) {
    offer(peer_level, net_rexch);
    Recipe pipelined = net_rexch;
    if (N > 2 && N <= 64) {
      pipelined = {"rexch", {-N, N}, 0};
      offer(peer_level, pipelined);
    }
    const bool by_blocks = spec.coll != Coll::kAllReduce;
    const uint64_t bytes = spec.count * ElemBytes(spec);
    // Two and four chunks too: at 32 x 64, four replay best at 64 KiB, four or eight at 1 MiB.
    for (uint64_t pieces : {2, 4, 8, 16}) {
      // Whole pages of the vector, or whole lines of a block: a readable recipe.
      const uint64_t chunk = by_blocks ? bytes / pieces / 64 * 64 : bytes / pieces / 4096 * 4096;
      const uint64_t moved = by_blocks ? chunk * static_cast<uint64_t>(spec.nranks) : chunk;
      // Chunked only with zerocopy: [cma/rexch:-2,2]@64K ran 0.49-0.97x native at 4 ranks from
      // 256 KiB to 4 MiB, on the namespace cluster (10 Gbit/s) and on 2 virtual nodes, where the
      // unchunked one ran 0.82-1.28x; at 32 x 64 weft-sim puts the cma level behind shmpipe at
      // every size (bench/hierarchy/cma-node-level).
      if (chunk > 0 && moved >= kMinPipelinedChunk && !env.oversubscribed && zero_copy_node) {
        offer(peer_level, pipelined, chunk);
      }
    }
  }
  // A ring across nodes only where each of its N pieces holds a 64-byte line: with empty pieces
  // a rank's own program looks cheap to the one-rank estimate while it waits on the whole chain.
  // At 32 x 64 and 8 KiB selection took rexch:-4,-4,-4,4,4,4/ring, for which `weft-sim
  // allreduce -n 1K --topology 32x64 --recipe rexch:-4,-4,-4,4,4,4/ring` predicts 156 us
  // against 30 us for rexch:-4,-4,-4,4,4,4/rexch:-4,-4,-2,2,4,4.
  if (net.count * ElemBytes(spec) >= static_cast<uint64_t>(N) * 64) {
    offer(node_shm ? node_shm_recipe : node_rexch, {"ring", {}, 0});
    if (peer_node) offer(peer_level, {"ring", {}, 0});
  }
  return out;
}

}  // namespace weft::sched
