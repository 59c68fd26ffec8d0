// Simulator property tests for the node-aware generators: every placement a job can have
// (block, round-robin, uneven nodes, one rank per node, a scrambled placement; up to 4,096 ranks
// as 64 x 64), counts around zero and odd sizes, every type family, in place and not. The
// programs verify, run without deadlock and give every rank the rank-order reference result,
// bitwise; and the selection across nodes picks a node-aware recipe where the model says so.
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

// rexch over n ranks: reduce_scatter in radices up to 4, then the mirrored allgather.
std::vector<int> Split(int n) {
  std::vector<int> f;
  for (int c = 1; c * 2 <= n; c *= 2) f.push_back(-2);
  const size_t k = f.size();
  for (size_t j = 0; j < k; ++j) f.push_back(2);
  return f;
}

sched::Recipe Hier(sched::Recipe node, sched::Recipe net) {
  return {sched::kHierarchical, {}, 0, {std::move(node), std::move(net)}};
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
         return Hier(level, {"rexch", Split(t.num_nodes())});
       },
       true, true, true, true},
      {"hier_pipelined_" + node + "_ring", levelled,
       [level](const Topology&) {
         sched::Recipe h = Hier(level, {"ring", {}});
         h.chunk_bytes = 128;
         return h;
       },
       true, false, false, true},
      {"hier_pipelined_" + node + "_rexch",
       {Coll::kReduceScatter, Coll::kAllGather},
       [level](const Topology& t) {
         sched::Recipe h = Hier(level, {"rexch", Split(t.num_nodes())});
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
         return Hier(level, {"tree", {2}});
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
        {"hier_rexch_rexch",
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology& t) {
           return Hier({"rexch", Split(NodeSize(t))}, {"rexch", Split(t.num_nodes())});
         },
         true,
         true,
         true},
        {"hier_rexch_tree",
         {Coll::kAllReduce},
         [](const Topology& t) {
           return Hier({"rexch", Split(NodeSize(t))}, {"tree", {2}});
         },
         true,
         true,
         true},
        {"hier_leader_tree2_rexch",  // single leader: node reduce, column allreduce, node bcast
         {Coll::kAllReduce},
         [](const Topology& t) {
           return Hier({"tree", {2}}, {"rexch", Split(t.num_nodes())});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_leader_tree4_tree2",
         {Coll::kAllReduce},
         [](const Topology&) {
           return Hier({"tree", {4}}, {"tree", {2}});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_tree2_tree4",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hier({"tree", {2}}, {"tree", {4}});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_tree_chunked",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hier({"tree", {2}, 256}, {"tree", {2}, 512});
         },
         false,  // rooted: nodes of any size
         true},
        {"hier_ring_ring",
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology&) {
           return Hier({"ring", {}}, {"ring", {}});
         },
         true,
         false,
         true},
        {"hier_shift_rexch",
         {Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology& t) {
           return Hier({"shift", {2}}, {"rexch", Split(t.num_nodes())});
         },
         true},
        // Pipelined across levels ([NODE/NET]@SIZE): chunks of 256 and 128 bytes, so the sweep's
        // larger counts run several chunks with the levels of successive ones overlapping.
        {"hier_pipelined_rexch_rexch",
         {Coll::kAllReduce},
         [](const Topology& t) {
           sched::Recipe h = Hier({"rexch", Split(NodeSize(t))}, {"rexch", Split(t.num_nodes())});
           h.chunk_bytes = 256;
           return h;
         },
         true,
         true},
        {"hier_pipelined_rexch_ring",
         {Coll::kAllReduce},
         [](const Topology& t) {
           sched::Recipe h = Hier({"rexch", Split(NodeSize(t))}, {"ring", {}});
           h.chunk_bytes = 128;
           return h;
         },
         true},
        // The node level over each node's segment: its slots name local indices, and the node
        // parts after the first wait past the signals of the ones before (passes::Embed).
        {"hier_oneshot_rexch",
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology& t) {
           return Hier({"oneshot", {}}, {"rexch", Split(t.num_nodes())});
         },
         true,
         true,
         true,
         true},
        {"hier_shmpipe_ring",  // 256-byte steps: the larger counts take several
         {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather},
         [](const Topology&) {
           return Hier({"shmpipe", {}, 256}, {"ring", {}});
         },
         true,
         false,
         true,
         true},
        {"hier_oneshot_tree2",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hier({"oneshot", {}}, {"tree", {2}});
         },
         false,  // rooted: nodes of any size
         true,
         false,
         true},
        {"hier_shmpipe_tree4",
         {Coll::kBroadcast, Coll::kReduce},
         [](const Topology&) {
           return Hier({"shmpipe", {}, 128}, {"tree", {4}});
         },
         false,  // rooted: nodes of any size
         true,
         false,
         true},
        {"hier_shift_rexch_chunked",
         {Coll::kAllReduce},
         [](const Topology& t) {
           return Hier({"shift", {2}}, {"rexch", Split(t.num_nodes()), 1024});
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

// Whether every message's send and receive carry the same step in the programs of every rank
// (the chunking pass's premise: a message's two ends run in the same round).
bool StepsAlign(const std::vector<ir::Program>& ps, std::string* why) {
  // (src, dst, tag, n-th such message) -> step, from the senders; then checked at receivers.
  std::map<std::tuple<int, int, int, int>, int> sent;
  std::map<std::tuple<int, int, int>, int> nth;
  for (const ir::Program& p : ps) {
    if (p.step.size() != p.code.size()) return *why = "unnumbered program", false;
    for (size_t i = 0; i < p.code.size(); ++i) {
      const ir::Instr& in = p.code[i];
      if (in.op != ir::Opcode::kSend) continue;
      const int n = nth[{p.rank, in.peer, in.tag}]++;
      sent[{p.rank, in.peer, in.tag, n}] = p.step[i];
    }
  }
  nth.clear();
  for (const ir::Program& p : ps) {
    for (size_t i = 0; i < p.code.size(); ++i) {
      const ir::Instr& in = p.code[i];
      if (in.op != ir::Opcode::kRecv) continue;
      const int n = nth[{in.peer, p.rank, in.tag}]++;
      auto it = sent.find({in.peer, p.rank, in.tag, n});
      if (it == sent.end() || it->second != p.step[i]) {
        *why = "rank " + std::to_string(p.rank) + " receives from " + std::to_string(in.peer) +
               " in step " + std::to_string(p.step[i]) + ", sent in step " +
               (it == sent.end() ? "(none)" : std::to_string(it->second));
        return false;
      }
    }
  }
  return true;
}

// The compositions pipelined across levels number their steps alike on every rank: node
// reduce_scatter, network allreduce and node allgather follow each other in the same steps on
// every rank, folds and the flat tail included. A tree at both levels (rooted: its ranks number
// different steps) is the counter-example the check must catch.
TEST(NodeAware, PipelinedCompositionsNumberStepsAlike) {
  for (const char* shape : {"2x4", "3x3", "2x3", "4x2:rr", "3x5", "5x2", "4x4"}) {
    const auto nodes = Shape(shape);
    const int L = static_cast<int>(nodes->ranks_of_node[0].size());
    for (uint64_t count : {uint64_t{77}, uint64_t{1000}}) {
      sched::CollSpec spec;
      spec.coll = Coll::kAllReduce;
      spec.nodes = nodes;
      spec.nranks = nodes->nranks;
      spec.count = count;
      for (const sched::Recipe& r :
           {Hier({"rexch", Split(L)}, {"rexch", Split(nodes->num_nodes())}),
            Hier({"ring", {}}, {"ring", {}}), Hier({"rexch", Split(L)}, {"ring", {}})}) {
        ASSERT_EQ(sched::DeclineRecipe(spec, r, sched::GenEnv{}), "") << shape;
        std::string why;
        EXPECT_TRUE(StepsAlign(sched::BuildAllPrograms(spec, r), &why))
            << shape << " count " << count << " " << sched::RecipeText(r) << ": " << why;
      }
      std::string why;
      EXPECT_FALSE(
          StepsAlign(sched::BuildAllPrograms(spec, Hier({"tree", {2}}, {"tree", {2}})), &why))
          << shape;
      // And the chunking pass does pipeline them: chunk c's messages carry tag c (chunk.cc).
      sched::Recipe piped = Hier({"rexch", Split(L)}, {"ring", {}});
      piped.chunk_bytes = 128;
      const ir::Program p = sched::BuildProgram(spec, piped, 0);
      EXPECT_TRUE(
          std::any_of(p.code.begin(), p.code.end(), [](const ir::Instr& in) { return in.tag > 0; }))
          << shape << " count " << count << ": not pipelined";
    }
  }
}

// A call of coll with count elements on the ranks of shape ("2x3", "3+1", ...).
sched::CollSpec OnNodes(Coll coll, const char* shape, uint64_t count) {
  sched::CollSpec spec;
  spec.coll = coll;
  spec.nodes = Shape(shape);
  spec.nranks = spec.nodes->nranks;
  spec.count = count;
  return spec;
}

// What does not number its steps alike on every rank is declined with the reason.
TEST(NodeAware, PipelinedCompositionsDeclineWithReasons) {
  sched::CollSpec spec = OnNodes(Coll::kAllReduce, "2x2", 1000);
  // The reason [node/net]@1K is declined with ("" when it is not).
  auto why = [&](sched::Recipe node, sched::Recipe net) {
    sched::Recipe h = Hier(std::move(node), std::move(net));
    h.chunk_bytes = 1024;
    return sched::DeclineRecipe(spec, h, sched::GenEnv{});
  };
  auto says = [](const std::string& why, const char* text) {
    return why.find(text) != std::string::npos;
  };
  EXPECT_EQ(why({"rexch", {-2, 2}}, {"ring", {}}), "");
  EXPECT_TRUE(says(why({"rexch", {-2, 2}}, {"tree", {2}}), "rexch, ring or (node level) zerocopy"));
  EXPECT_TRUE(says(why({"ring", {}}, {"zerocopy", {}}), "rexch, ring or (node level) zerocopy"));
  // zerocopy reads the peers' buffers: only where every rank's are mapped in its node peers.
  sched::GenEnv zero_copy;
  zero_copy.node_shared_memory = zero_copy.zero_copy = true;
  sched::Recipe zc = Hier({"zerocopy", {}}, {"ring", {}});
  zc.chunk_bytes = 1024;
  EXPECT_EQ(sched::DeclineRecipe(spec, zc, zero_copy), "");
  sched::GenEnv user_buffers;
  user_buffers.node_shared_memory = true;
  EXPECT_TRUE(says(sched::DeclineRecipe(spec, zc, user_buffers), "weftMemAlloc"));
  // cma reads them by single copy: only where it works on every node.
  sched::Recipe cma = zc;
  cma.levels[0] = {"cma", {}, 0};
  EXPECT_TRUE(says(sched::DeclineRecipe(spec, cma, user_buffers), "single copy is not available"));
  user_buffers.node_single_copy = true;
  EXPECT_EQ(sched::DeclineRecipe(spec, cma, user_buffers), "");
  EXPECT_TRUE(says(why({"tree", {2}}, {"ring", {}}), "multi-leader allreduce"));
  EXPECT_TRUE(says(why({"rexch", {-2, 2}, 256}, {"ring", {}}), "without an @size"));
  spec.coll = Coll::kReduceScatter;
  spec.count = 100;
  EXPECT_TRUE(says(why({"ring", {}}, {"ring", {}}), "with a zerocopy or cma node level"));
  EXPECT_EQ(sched::DeclineRecipe(spec, Hier({"zerocopy", {}}, {"ring", {}}), zero_copy), "");
  zc.chunk_bytes = 256;
  EXPECT_EQ(sched::DeclineRecipe(spec, zc, zero_copy), "");
  spec.coll = Coll::kBroadcast;
  EXPECT_TRUE(says(why({"tree", {2}}, {"tree", {2}}), "multi-leader allreduce, reduce_scatter"));
  spec.coll = Coll::kReduce;
  EXPECT_TRUE(says(sched::DeclineRecipe(spec, Hier({"zerocopy", {}}, {"tree", {2}}), zero_copy),
                   "a reduce's node partial is in scratch its peers cannot reach"));
  spec.coll = Coll::kAllReduce;
  spec.nodes = Shape("3+1");
  EXPECT_TRUE(says(why({"ring", {}}, {"ring", {}}), "nodes of equal size"));
}

// Pipelined with a zerocopy node level, each chunk's counter waits count past the signals of
// the chunks merged before them: a wait never asks a peer for more signals of a counter than
// this rank has made by then (the node parts are symmetric), and the last chunk's waits (the
// end: every peer is done with this rank's buffers) ask for every signal. (An older chunk's
// wait may follow a newer chunk's higher one: it asks for a signal made earlier.)
TEST(NodeAware, PipelinedZeroCopyWaitsCountEarlierChunks) {
  sched::CollSpec spec = OnNodes(Coll::kAllReduce, "2x3", 1000);
  spec.dtype = weftFloat64;
  sched::Recipe h = Hier({"zerocopy", {}}, {"rexch", {-2, 2}});
  h.chunk_bytes = 1024;
  for (int rank = 0; rank < spec.nranks; ++rank) {
    const ir::Program p = sched::BuildProgram(spec, h, rank);
    std::map<int, uint64_t> made, most;  // per counter: signals so far, highest wait
    int tagged = 0;
    for (const ir::Instr& in : p.code) {
      tagged += (in.op == ir::Opcode::kSend && in.tag > 0);
      if (in.op == ir::Opcode::kSignal) ++made[in.counter];
      if (in.op != ir::Opcode::kWait) continue;
      EXPECT_LE(in.value, made[in.counter]) << "rank " << rank << " counter " << in.counter;
      most[in.counter] = std::max(most[in.counter], in.value);
    }
    EXPECT_GT(tagged, 0) << "rank " << rank << ": not pipelined";
    EXPECT_EQ(most[0], made[0]) << "rank " << rank;
    EXPECT_EQ(most[1], made[1]) << "rank " << rank;
    EXPECT_GE(made[0], 2u * 8) << "rank " << rank << ": 8 chunks, two node parts each";
  }
}

// Pipelined across levels, each round posts the network messages of every chunk in flight
// before the node parts of other chunks copy, reduce and wait on counters, which then run while
// the messages fly: in every round (up to its waitall) no send or receive follows a node
// counter operation; before the first waitall, the first chunks' node parts that run before any
// message share the first round and are not checked. (Placed chunk by chunk, an older chunk's
// node part held back a newer chunk's messages: [zerocopy/rexch:-32,32]@128K at 32 x 64 and
// 1 MiB replayed 367 us, 311 with the posts first.)
TEST(NodeAware, PipelinedLevelsPostBeforeTheyCopy) {
  sched::CollSpec spec = OnNodes(Coll::kAllReduce, "2x3", 1000);
  sched::Recipe h = Hier({"zerocopy", {}}, {"rexch", {-2, 2}});
  h.chunk_bytes = 1024;
  for (int rank = 0; rank < spec.nranks; ++rank) {
    const ir::Program p = sched::BuildProgram(spec, h, rank);
    bool node_op = false, steady = false;
    for (const ir::Instr& in : p.code) {
      if (in.op == ir::Opcode::kWaitAll) {
        node_op = false;
        steady = true;
      } else if (in.op == ir::Opcode::kSignal || in.op == ir::Opcode::kWait) {
        node_op = steady;
      } else if (in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv) {
        ASSERT_FALSE(node_op) << "rank " << rank << ": a message after a node part in its round";
      }
    }
  }
}

// A node whose segment failed runs its node level point-to-point (PointToPointNodeLevel) beside
// nodes that keep theirs: the network messages match, chunked compositions included (their
// rounds may then sit a constant number of rounds apart on the two kinds of node), and every
// rank gets the reference result.
TEST(NodeAware, NodeWithoutSegmentRunsPointToPointBesideTheOthers) {
  sched::Recipe zc_ring = Hier({"zerocopy", {}}, {"ring", {}});
  zc_ring.chunk_bytes = 128;
  for (const char* shape : {"2x3", "3x2", "4x2:rr"}) {
    const auto nodes = Shape(shape);
    sched::Recipe zc_rexch = Hier({"zerocopy", {}}, {"rexch", Split(nodes->num_nodes())});
    zc_rexch.chunk_bytes = 64;
    for (Coll coll : {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather}) {
      sched::Recipe cma_rexch = zc_rexch;
      cma_rexch.levels[0] = {"cma", {}, 0};
      for (const sched::Recipe& recipe :
           {zc_ring, zc_rexch, cma_rexch, Hier({"shmpipe", {}, 256}, {"ring", {}})}) {
        for (uint64_t count : {uint64_t{1}, uint64_t{77}, uint64_t{300}}) {
          sched::CollSpec spec;
          spec.coll = coll;
          spec.nodes = nodes;
          spec.nranks = nodes->nranks;
          spec.count = count;
          spec.dtype = weftFloat32;
          sched::GenEnv env;
          env.node_shared_memory = env.zero_copy = env.node_single_copy = true;
          if (!sched::DeclineRecipe(spec, recipe, env).empty()) continue;
          const std::string what = sched::SpecText(spec) + " " + sched::RecipeText(recipe);
          std::vector<ir::Program> ps;
          for (int r = 0; r < spec.nranks; ++r) {
            const bool failed = nodes->node_of_rank[r] == 0;
            ps.push_back(sched::BuildProgram(
                spec, failed ? sched::PointToPointNodeLevel(spec, recipe, r) : recipe, r));
          }
          std::string why;
          ASSERT_TRUE(ir::VerifyMatching(ps, &why)) << what << ": " << why;
          sim::SimOptions opt;
          opt.model.nodes = spec.nodes;
          const sim::SimResult res = sim::Simulate(spec, ps, opt);
          EXPECT_TRUE(res.pass) << what << ": " << res.why;
        }
      }
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
  const sched::Recipe h = Hier({"rexch", {-2, 2}}, {"rexch", {-2, 2}});
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

// A call of `count` elements over the placement `shape`.
sched::CollSpec SpecOn(Coll coll, const char* shape, uint64_t count, weftDataType_t dtype) {
  sched::CollSpec spec;
  spec.coll = coll;
  spec.nodes = Shape(shape);
  spec.nranks = spec.nodes->nranks;
  spec.count = count;
  spec.dtype = dtype;
  return spec;
}

// The recipe selection takes for spec under model, every node with its segment.
sched::Recipe SelectWithSegments(const sched::CollSpec& spec, const tune::CostModel& model) {
  sched::GenEnv env;
  env.node_shared_memory = true;
  sched::Recipe chosen;
  std::string why;
  EXPECT_TRUE(sched::SelectRecipe(spec, env, model, nullptr, &chosen, &why)) << why;
  return chosen;
}

// weft-sim's replayed time of recipe for spec under model.
double ReplayUs(const sched::CollSpec& spec, const sched::Recipe& recipe,
                const tune::CostModel& model) {
  sim::SimOptions opt;
  opt.model = model;
  opt.check_data = false;
  return sim::Simulate(spec, sched::BuildAllPrograms(spec, recipe), opt).predicted_us;
}

// The multi-leader allreduce on equal nodes of more than 64 ranks: a rank's messages across
// nodes go only to the ranks of its own local index (its slice's column), and its slice crosses
// once. Until the slice count's cap (for unequal nodes) stopped
// applying to equal ones, 2 x 128 built the flat tail alone: a butterfly with partners of every
// local index on the other node.
TEST(NodeAware, AllReduceOnNodesOfMoreThan64RanksKeepsItsColumns) {
  const sched::CollSpec spec = SpecOn(Coll::kAllReduce, "2x128", 128 * 5, weftFloat32);
  const sched::Recipe recipe = Hier({"rexch", Split(128), 0}, {"rexch", {-2, 2}, 0});
  ASSERT_EQ(sched::DeclineRecipe(spec, recipe, sched::GenEnv{}), "");
  const Topology& t = *spec.nodes;
  for (const ir::Program& p : sched::BuildAllPrograms(spec, recipe)) {
    uint64_t crossing = 0;
    for (const ir::Instr& in : p.code) {
      if (in.op != ir::Opcode::kSend || t.node_of_rank[in.peer] == t.node_of_rank[p.rank]) {
        continue;
      }
      crossing += in.bytes;
      EXPECT_EQ(t.LocalRank(in.peer), t.LocalRank(p.rank)) << "rank " << p.rank;
    }
    // Half its slice in the reduce_scatter across the two nodes, the other half in the allgather.
    EXPECT_EQ(crossing, 5u * 4) << "rank " << p.rank;
  }
  EXPECT_EQ(SimulateCase(spec, recipe, sched::GenEnv{}), "");
}

// Over nodes of 128 ranks with segments, oneshot declines the node level (it serves at most 64
// ranks), and the composition is offered with shmpipe there instead: at 8 x 128 and 8 KiB the
// replay puts it ahead of the flat exchange selection took when none was offered.
TEST(NodeAware, SelectionOffersShmpipeWhereOneshotDeclinesTheNode) {
  const sched::CollSpec spec = SpecOn(Coll::kAllReduce, "8x128", 1024, weftFloat64);
  tune::CostModel model;
  model.nodes = spec.nodes;
  const sched::Recipe chosen = SelectWithSegments(spec, model);
  ASSERT_EQ(chosen.levels.size(), 2u) << sched::RecipeText(chosen);
  EXPECT_EQ(chosen.levels[0].generator, "shmpipe");
  const sched::Recipe flat{"rexch", sched::FindGenerator("rexch")->DefaultFactors(spec), 0};
  EXPECT_LT(ReplayUs(spec, chosen, model), ReplayUs(spec, flat, model));
}

// A message across nodes shares the node's link with the node's ranks whose message at the
// same offset also crosses: all of a column exchange's, one of a ring's.
TEST(NodeAware, CrossingSharersCountTheRanksOnTheLink) {
  tune::CostModel model;
  model.nodes = Shape("4x8");
  EXPECT_EQ(model.CrossingSharers(7, 8), 1);   // the ring's step out of node 0
  EXPECT_EQ(model.CrossingSharers(3, 11), 8);  // a column: every rank of the node
  EXPECT_EQ(model.CrossingSharers(0, 12), 8);  // offset 12: local 0-3 to node 1, 4-7 to 2
  EXPECT_EQ(model.CrossingSharers(0, 2), 2);   // offset 2 within the node for locals 0-5
  EXPECT_EQ(model.CrossingSharers(31, 0), 1);  // wraps: the last node's last rank
  model.nodes = Shape("4x2:rr");               // node = rank mod 4: offset 1 always crosses
  EXPECT_EQ(model.CrossingSharers(0, 1), 2);
  model.nodes = nullptr;
  EXPECT_EQ(model.CrossingSharers(0, 1), 1);
}

// At 2 x 4 the flat ring puts one message a round on each node's link, and selection takes it
// for an allgather of 4 MiB blocks, as weft-sim's replay ranks it; charged with the whole node's
// share (4 ranks on the link), the ring lost to shmpipe/rexch:-2,2 (replayed 5,124 us against
// 4,091).
TEST(NodeAware, SelectionSeesTheRingCrossAlone) {
  const sched::CollSpec spec = SpecOn(Coll::kAllGather, "2x4", 1 << 20, weftFloat32);
  tune::CostModel model;
  model.nodes = spec.nodes;
  const sched::Recipe chosen = SelectWithSegments(spec, model);
  EXPECT_EQ(sched::RecipeText(chosen), "ring");
  const sched::Recipe other = Hier({"shmpipe", {}, 0}, {"rexch", {-2, 2}, 0});
  EXPECT_LT(ReplayUs(spec, chosen, model), ReplayUs(spec, other, model));
}

// At 32 nodes x 64 ranks the model prices the flat pairwise alltoall at 2047 messages a rank;
// the node-aware one at 63 + 31, so selection takes it for small blocks.
TEST(NodeAware, SelectionTakesTheNodeAwareAllToAllForSmallBlocks) {
  sched::CollSpec spec;
  spec.coll = Coll::kAllToAll;
  spec.nodes = Shape("32x64");
  spec.nranks = spec.nodes->nranks;
  spec.count = 8;
  spec.dtype = weftInt8;
  tune::CostModel model;
  model.nodes = spec.nodes;
  sched::Recipe chosen;
  std::string why;
  ASSERT_TRUE(sched::SelectRecipe(spec, sched::GenEnv{}, model, nullptr, &chosen, &why)) << why;
  EXPECT_EQ(chosen.generator, "nodea2a");
}

// On 64 + 64 + 32 ranks the flat butterfly's groups straddle the node boundaries, so its ranks
// there wait on the network round after round; with those ranks in its sample the
// estimate picks the composition, which the simulator's replay confirms is faster (sampling
// ranks 0, P/2 and P-1 alone chose the flat one, replayed 3.5x slower).
TEST(NodeAware, SelectionSeesAButterflyStraddlingUnevenNodes) {
  const sched::CollSpec spec = SpecOn(Coll::kAllReduce, "64+64+32", 1024, weftFloat64);
  tune::CostModel model;
  model.nodes = spec.nodes;
  model.inter.latency_us = 15;
  const sched::Recipe chosen = SelectWithSegments(spec, model);
  EXPECT_FALSE(chosen.levels.empty()) << sched::RecipeText(chosen);
  const sched::Recipe flat{"rexch", sched::FindGenerator("rexch")->DefaultFactors(spec), 0};
  EXPECT_LT(ReplayUs(spec, chosen, model), ReplayUs(spec, flat, model))
      << sched::RecipeText(chosen) << " against " << sched::RecipeText(flat);
}

std::string FamilyName(const ::testing::TestParamInfo<size_t>& info) {
  return NodeFamilies()[info.param].name;
}

INSTANTIATE_TEST_SUITE_P(NodeAware, NodeSweep, ::testing::Range<size_t>(0, NodeFamilies().size()),
                         FamilyName);

}  // namespace
}  // namespace weft::simtest
