// Simulator property tests for the node-aware generators: every placement a job can have
// (block, round-robin, uneven nodes, one rank per node, a scrambled placement; up to 4,096 ranks
// as 64 x 64), counts around zero and odd sizes, every type family, in place and not. The
// programs verify, run without deadlock and give every rank the rank-order reference result,
// bitwise (pipelined compositions: node_pipeline_test.cc; selection: node_selection_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <tuple>

#include "compile/compile.h"
#include "compile/hierarchical.h"
#include "sched/ir/verify.h"
#include "sim/sim.h"
#include "sim_families.h"

namespace weft::simtest {
namespace {

using sched::Coll;

// One node-aware recipe family: its recipe for a placement and what it needs.
struct NodeFamily {
  std::string name;
  std::vector<Coll> colls;
  std::function<sched::Recipe(const Topology&)> recipe;
  bool equal_nodes = false;       // declines uneven nodes (selection runs a flat recipe there)
  bool order_preserving = false;  // also checked with a non-commutative op (block placement)
  bool uneven_allreduce = false;  // but serves allreduce there (slices: hierarchical.h)
  bool node_shm = false;          // its node level runs over each node's segment
};

// What a family's levels may use: point-to-point, or the node segments at the node level.
sched::GenEnv EnvOf(const NodeFamily& fam) {
  sched::GenEnv env;
  env.node_shared_memory = fam.node_shm;
  env.zero_copy = fam.node_shm;         // every buffer from weftMemAlloc (only zerocopy asks)
  env.node_single_copy = fam.node_shm;  // and reachable by single copy (only cma asks)
  return env;
}

// The smallest node's size: rexch factors for it fold on the larger nodes of an uneven
// placement, so the node recipe fits every node.
int NodeSize(const Topology& t) {
  size_t l = t.ranks_of_node[0].size();
  for (const auto& rs : t.ranks_of_node) l = std::min(l, rs.size());
  return static_cast<int>(l);
}

// Node levels that read the node peers' buffers where each peer's call holds them
// (passes::EmbedMap::peer_send): zerocopy (weftMemAlloc buffers, mapped) and cma (the user's own,
// each peer's operand read into scratch by single copy before the reduce). Unchunked (slices on
// uneven nodes) and chunk by chunk, whose counter waits count past the earlier chunks' signals
// (passes::Pipeline); a reduce_scatter's or allgather's chunk is a piece of every rank's block
// (passes::PipelinePlaced: chunk c moves bytes [c 64, (c + 1) 64) of each block, its network
// part landing in scratch); a bcast copies from its leader's receive buffer.
std::vector<NodeFamily> PeerLevelFamilies(const std::string& node) {
  const sched::Recipe level{node, {}, 0};
  const std::vector<Coll> levelled = {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather};
  return {
      {"hier_" + node + "_rexch", levelled,
       [level](const Topology& t) {
         return Hierarchical(level, {"rexch", HalvingDoubling(t.num_nodes())});
       },
       true, true, true, true},
      {"hier_pipelined_" + node + "_ring", levelled,
       [level](const Topology&) {
         sched::Recipe h = Hierarchical(level, {"ring", {}});
         h.chunk_bytes = 128;
         return h;
       },
       true, false, false, true},
      {"hier_pipelined_" + node + "_rexch",
       {Coll::kReduceScatter, Coll::kAllGather},
       [level](const Topology& t) {
         sched::Recipe h = Hierarchical(level, {"rexch", HalvingDoubling(t.num_nodes())});
         h.chunk_bytes = 64;
         return h;
       },
       true,
       true,
       false,
       true},
      {"hier_" + node + "_tree2",
       {Coll::kBroadcast},
       [level](const Topology&) {
         return Hierarchical(level, {"tree", {2}});
       },
       false,  // rooted: nodes of any size
       false,
       false,
       true},
  };
}

const std::vector<NodeFamily>& NodeFamilies() {
  static const std::vector<NodeFamily> f = [] {
    std::vector<NodeFamily> v = {
        {"nodea2a_w1",
         {Coll::kAllToAll},
         [](const Topology&) {
           return sched::Recipe{"nodea2a", {1}};
         }},
        {"nodea2a_w4",
         {Coll::kAllToAll},
         [](const Topology&) {
           return sched::Recipe{"nodea2a", {4}};
         }},
        {"nodepair",
         {Coll::kAllToAll},
         [](const Topology&) {
           return sched::Recipe{"nodepair", {}};
         }},
        {"nodepair_k3",  // more lanes than some nodes have ranks (empty lanes)
         {Coll::kAllToAll},
         [](const Topology&) {
           return sched::Recipe{"nodepair", {3}};
         }},
        {"hier_rexch_rexch",
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology& t) {
           return Hierarchical({"rexch", HalvingDoubling(NodeSize(t))},
                               {"rexch", HalvingDoubling(t.num_nodes())});
         },
         true,
         true,
         true},
        {"hier_rexch_tree",
         {Coll::kAllReduce},
         [](const Topology& t) {
           return Hierarchical({"rexch", HalvingDoubling(NodeSize(t))}, {"tree", {2}});
         },
         true,
         true,
         true},
        {"hier_leader_tree2_rexch",  // single leader: node reduce, column allreduce, node bcast
         {Coll::kAllReduce},
         [](const Topology& t) {
           return Hierarchical({"tree", {2}}, {"rexch", HalvingDoubling(t.num_nodes())});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_leader_tree4_tree2",
         {Coll::kAllReduce},
         [](const Topology&) {
           return Hierarchical({"tree", {4}}, {"tree", {2}});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_tree2_tree4",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hierarchical({"tree", {2}}, {"tree", {4}});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_tree_chunked",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hierarchical({"tree", {2}, 256}, {"tree", {2}, 512});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_ring_ring",
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology&) {
           return Hierarchical({"ring", {}}, {"ring", {}});
         },
         true,
         false,
         true},
        {"hier_shift_rexch",
         {Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology& t) {
           return Hierarchical({"shift", {2}}, {"rexch", HalvingDoubling(t.num_nodes())});
         },
         true},
        // Pipelined across levels ([NODE/NET]@SIZE): chunks of 256 and 128 bytes, so the sweep's
        // larger counts run several chunks with the levels of successive ones overlapping.
        {"hier_pipelined_rexch_rexch",
         {Coll::kAllReduce},
         [](const Topology& t) {
           sched::Recipe h = Hierarchical({"rexch", HalvingDoubling(NodeSize(t))},
                                          {"rexch", HalvingDoubling(t.num_nodes())});
           h.chunk_bytes = 256;
           return h;
         },
         true,
         true},
        {"hier_pipelined_rexch_ring",
         {Coll::kAllReduce},
         [](const Topology& t) {
           sched::Recipe h = Hierarchical({"rexch", HalvingDoubling(NodeSize(t))}, {"ring", {}});
           h.chunk_bytes = 128;
           return h;
         },
         true},
        // The node level over each node's segment: its slots name local indices, and the node
        // parts after the first wait past the signals of the ones before (passes::Embed).
        {"hier_oneshot_rexch",
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology& t) {
           return Hierarchical({"oneshot", {}}, {"rexch", HalvingDoubling(t.num_nodes())});
         },
         true,
         true,
         true,
         true},
        {"hier_shmpipe_ring",  // 256-byte steps: the larger counts take several
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology&) {
           return Hierarchical({"shmpipe", {}, 256}, {"ring", {}});
         },
         true,
         false,
         true,
         true},
        {"hier_oneshot_tree2",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hierarchical({"oneshot", {}}, {"tree", {2}});
         },
         false,  // rooted: nodes of any size
         true,
         false,
         true},
        {"hier_shmpipe_tree4",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hierarchical({"shmpipe", {}, 128}, {"tree", {4}});
         },
         false,  // rooted: nodes of any size
         true,
         false,
         true},
        {"hier_shift_rexch_chunked",
         {Coll::kAllReduce},
         [](const Topology& t) {
           return Hierarchical({"shift", {2}}, {"rexch", HalvingDoubling(t.num_nodes()), 1024});
         },
         true,
         false,
         true},
    };
    for (const char* node : {"zerocopy", "cma"}) {
      for (NodeFamily& x : PeerLevelFamilies(node)) v.push_back(std::move(x));
    }
    return v;
  }();
  return f;
}

std::vector<std::shared_ptr<const Topology>> Placements() {
  std::vector<std::shared_ptr<const Topology>> v;
  for (const char* s : {"2x1", "2x2", "2x3", "3x2", "2x2:rr", "2x3:rr", "4x3:rr", "3+1", "1+3",
                        "1+2+3", "5+1+2", "4x4", "8x2:rr", "7x3", "3x7:rr", "16x1"}) {
    v.push_back(Shape(s));
  }
  v.push_back(Scrambled(11, 1));
  v.push_back(Scrambled(23, 2));
  return v;
}

std::string RunCase(const NodeFamily& fam, const sched::Recipe& recipe,
                    const sched::CollSpec& spec) {
  return SimulateCase(spec, recipe, EnvOf(fam));
}

class NodeSweep : public ::testing::TestWithParam<size_t> {};

bool EqualNodes(const Topology& t) {
  for (const auto& rs : t.ranks_of_node) {
    if (rs.size() != t.ranks_of_node[0].size()) return false;
  }
  return true;
}

bool NeedsEqualNodes(const NodeFamily& fam, Coll coll) {
  return fam.equal_nodes && !(fam.uneven_allreduce && coll == Coll::kAllReduce);
}

TEST_P(NodeSweep, EveryPlacementCountAndType) {
  const NodeFamily& fam = NodeFamilies()[GetParam()];
  int i = 0;
  for (Coll coll : fam.colls) {
    for (const auto& nodes : Placements()) {
      const sched::Recipe recipe = fam.recipe(*nodes);
      for (uint64_t count : {0, 1, 3, 17, 64, 1000}) {
        ++i;
        sched::CollSpec spec;
        spec.coll = coll;
        spec.nranks = nodes->nranks;
        spec.nodes = nodes;
        spec.count = count;
        spec.dtype = kTypes[i % 10];
        spec.op = kOps[(i / 10) % 4];
        spec.in_place = i % 3 == 0;
        spec.root = i % spec.nranks;
        if (NeedsEqualNodes(fam, coll) && !EqualNodes(*nodes)) {
          // Declined with a reason; selection then runs a flat recipe.
          EXPECT_NE(sched::DeclineRecipe(spec, recipe, EnvOf(fam)), "") << nodes->ToText();
          continue;
        }
        EXPECT_EQ(RunCase(fam, recipe, spec), "");
        if (fam.order_preserving && sched::Reduces(coll) && nodes->BlockPlaced()) {
          spec.op = ir::kOpMatMul2x2;
          spec.dtype = weftUint64;
          EXPECT_EQ(RunCase(fam, recipe, spec), "") << "non-commutative";
        }
      }
    }
  }
}

TEST_P(NodeSweep, LargeShapes) {
  const NodeFamily& fam = NodeFamilies()[GetParam()];
  for (Coll coll : fam.colls) {
    for (const char* shape : {"16x16", "32x8:rr", "1+31+32", "64x64"}) {
      // 4,096 ranks for the collectives whose count is the whole vector (a block per rank of
      // reduce_scatter, allgather or alltoall would hold 4,096 x 300 elements on every rank).
      if (std::string(shape) == "64x64" &&
          (coll == Coll::kReduceScatter || coll == Coll::kAllGather || coll == Coll::kAllToAll)) {
        continue;
      }
      sched::CollSpec spec;
      spec.coll = coll;
      spec.nodes = Shape(shape);
      spec.nranks = spec.nodes->nranks;
      spec.count = 300;
      spec.dtype = weftFloat32;
      if (NeedsEqualNodes(fam, coll) && !EqualNodes(*spec.nodes)) continue;
      // 1 + 31 + 32 would take 992 slices (hierarchical.h): declined, with the reason.
      const sched::Recipe recipe = fam.recipe(*spec.nodes);
      if (fam.uneven_allreduce && coll == Coll::kAllReduce && !EqualNodes(*spec.nodes)) {
        EXPECT_NE(sched::DeclineRecipe(spec, recipe, EnvOf(fam)).find("least common"),
                  std::string::npos);
        continue;
      }
      EXPECT_EQ(RunCase(fam, recipe, spec), "");
    }
  }
}

TEST(NodeAware, NonCommutativeNeedsBlockPlacement) {
  sched::CollSpec spec;
  spec.coll = Coll::kAllReduce;
  spec.nodes = Shape("2x2:rr");
  spec.nranks = 4;
  spec.count = 100;
  spec.dtype = weftUint64;
  spec.op = ir::kOpMatMul2x2;
  const sched::Recipe h = Hierarchical({"rexch", {-2, 2}}, {"rexch", {-2, 2}});
  EXPECT_NE(sched::DeclineRecipe(spec, h, sched::GenEnv{}).find("block placement"),
            std::string::npos);
  spec.op = weftSum;
  EXPECT_EQ(sched::DeclineRecipe(spec, h, sched::GenEnv{}), "");
}

TEST(NodeAware, HierarchicalRecipeTextRoundTrips) {
  for (const char* text : {"rexch:-4,-2,2,4/rexch:-2,2", "ring/tree:2@64K", "shift:2/ring"}) {
    sched::Recipe r;
    std::string why;
    ASSERT_TRUE(sched::ParseRecipe(text, &r, &why)) << why;
    EXPECT_EQ(r.generator, sched::kHierarchical);
    EXPECT_EQ(sched::RecipeText(r), text);
  }
  sched::Recipe r;
  std::string why;
  EXPECT_FALSE(sched::ParseRecipe("ring/ring/ring", &r, &why));
  EXPECT_FALSE(sched::ParseRecipe("ring/", &r, &why));
  EXPECT_NE(why.find("network level"), std::string::npos) << why;
  EXPECT_FALSE(sched::ParseRecipe("/ring", &r, &why));
  EXPECT_NE(why.find("node level"), std::string::npos) << why;
}

TEST(NodeAware, DeclinedWithoutANodeMap) {
  sched::CollSpec spec;
  spec.coll = Coll::kAllToAll;
  spec.nranks = 4;
  spec.count = 8;
  EXPECT_NE(sched::DeclineRecipe(spec, {"nodea2a", {4}, 0}, sched::GenEnv{}), "");
}

std::string FamilyName(const ::testing::TestParamInfo<size_t>& info) {
  return NodeFamilies()[info.param].name;
}

INSTANTIATE_TEST_SUITE_P(NodeAware, NodeSweep, ::testing::Range<size_t>(0, NodeFamilies().size()),
                         FamilyName);

}  // namespace
}  // namespace weft::simtest
