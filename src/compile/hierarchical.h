// Hierarchical recipes ("NODE/NET", e.g. rexch:-4,4/ring): a collective over ranks on several
// nodes composed from one recipe per level, each built by its own generator for its group and
// embedded in one Program per rank (sched/passes/embed.h). Multi-leader: every rank of a node
// carries its share across the network, not one leader per node.
//
// allreduce of c elements on N nodes of L ranks each (any placement, equal nodes):
//   1. reduce_scatter inside the node (NODE) of blocks of b = c / L elements: local rank i
//      holds block i summed over its node;
//   2. allreduce of block i across the nodes (NET), among the ranks of local index i;
//   3. allgather inside the node (NODE);
//   and the last c mod L elements, when c does not divide, by a flat allreduce of all ranks.
//   On nodes of unequal sizes the vector is cut into S slices, S the least common multiple of
//   the sizes (at most 64): local rank i of a node of L ranks owns S / L consecutive slices,
//   and each slice crosses the network among its owners, one per node (3 + 1: the lone rank
//   carries all three slices, each with a different partner).
// reduce_scatter: reduce_scatter inside the node of bundles (the blocks for local index l of
// every node), then reduce_scatter of the rank's bundle across nodes.
// allgather: allgather across nodes among equal local indices, then allgather of the bundles
// inside the node. A node level whose messages stay within blocks (the shared-memory ones)
// reads and writes each block at its rank's place; others pack the bundles in scratch first
// (reduce_scatter) or copy each block to its place after (allgather).
// The shapes (groups, slices, seats) are in hierarchical_groups.h; the build per collective in
// hierarchical_build.cc.
// bcast: across nodes among the ranks of the root's local index, then inside each node from
// that rank (one leader per node: the vector crosses each node's link once); reduce: the
// reverse, the node's partial held in scratch.
// A non-commutative op needs block placement (rank order is then node-major) and
// order-preserving generators at both levels. Where every rank's buffers come from weftMemAlloc,
// the node level may be zerocopy (not for reduce): each node part reads its peers' parts where
// their calls hold them (passes::EmbedMap::peer_send).
#pragma once

#include <string>

#include "sched/algos/generator.h"
#include "sched/coll_spec.h"
#include "sched/ir/program.h"
#include "sched/recipe.h"

namespace weft::sched {

/// "" when the hierarchical recipe can build spec; otherwise why not. The node level may run
/// a shared-memory generator where env.node_shared_memory says every node has its segment.
std::string DeclineHierarchical(const CollSpec& spec, const Recipe& recipe, const GenEnv& env);
/// rank's composed Program (after DeclineHierarchical returned "").
ir::Program BuildHierarchical(const CollSpec& spec, const Recipe& recipe, int rank);
/// `recipe` with a node level that runs over the node segment (oneshot, shmpipe, copyin) replaced
/// by a point-to-point one for rank's node (tree:2 for bcast and reduce; else ring, or rexch for a
/// non-commutative op): for a node whose segment failed to grow. The groups and the network
/// level stay, so every network message does and the other nodes keep their node level.
/// Unchanged when the recipe builds without node segments.
Recipe PointToPointNodeLevel(const CollSpec& spec, const Recipe& recipe, int rank);
/// The hierarchical candidates for spec (empty unless its ranks span several nodes; on nodes of
/// unequal size, allreduce, bcast and reduce only).
std::vector<Recipe> HierarchicalCandidates(const CollSpec& spec, const GenEnv& env);

}  // namespace weft::sched
