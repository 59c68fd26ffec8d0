// Compositions pipelined across levels, read from their programs: every rank numbers the
// steps alike (the chunking pass's premise), what cannot is declined with the reason, the
// zerocopy node level's counter waits count past earlier chunks, each round posts its messages
// before it copies, and a node without its segment runs beside the others.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
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
      for (const sched::Recipe& r : {Hierarchical({"rexch", HalvingDoubling(L)},
                                                  {"rexch", HalvingDoubling(nodes->num_nodes())}),
                                     Hierarchical({"ring", {}}, {"ring", {}}),
                                     Hierarchical({"rexch", HalvingDoubling(L)}, {"ring", {}})}) {
        ASSERT_EQ(sched::DeclineRecipe(spec, r, sched::GenEnv{}), "") << shape;
        std::string why;
        EXPECT_TRUE(StepsAlign(sched::BuildAllPrograms(spec, r), &why))
            << shape << " count " << count << " " << sched::RecipeText(r) << ": " << why;
      }
      std::string why;
      EXPECT_FALSE(StepsAlign(
          sched::BuildAllPrograms(spec, Hierarchical({"tree", {2}}, {"tree", {2}})), &why))
          << shape;
      // And the chunking pass does pipeline them: chunk c's messages carry tag c (chunk.cc).
      sched::Recipe piped = Hierarchical({"rexch", HalvingDoubling(L)}, {"ring", {}});
      piped.chunk_bytes = 128;
      const ir::Program p = sched::BuildProgram(spec, piped, 0);
      EXPECT_TRUE(
          std::any_of(p.code.begin(), p.code.end(), [](const ir::Instr& in) { return in.tag > 0; }))
          << shape << " count " << count << ": not pipelined";
    }
  }
}

// What does not number its steps alike on every rank is declined with the reason.
TEST(NodeAware, PipelinedCompositionsDeclineWithReasons) {
  sched::CollSpec spec = SpecOn(Coll::kAllReduce, "2x2", 1000);
  // The reason [node/net]@1K is declined with ("" when it is not).
  auto why = [&](sched::Recipe node, sched::Recipe net) {
    sched::Recipe h = Hierarchical(std::move(node), std::move(net));
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
  sched::Recipe zc = Hierarchical({"zerocopy", {}}, {"ring", {}});
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
  EXPECT_EQ(sched::DeclineRecipe(spec, Hierarchical({"zerocopy", {}}, {"ring", {}}), zero_copy),
            "");
  zc.chunk_bytes = 256;
  EXPECT_EQ(sched::DeclineRecipe(spec, zc, zero_copy), "");
  spec.coll = Coll::kBroadcast;
  EXPECT_TRUE(says(why({"tree", {2}}, {"tree", {2}}), "multi-leader allreduce, reduce_scatter"));
  spec.coll = Coll::kReduce;
  EXPECT_TRUE(
      says(sched::DeclineRecipe(spec, Hierarchical({"zerocopy", {}}, {"tree", {2}}), zero_copy),
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
  sched::CollSpec spec = SpecOn(Coll::kAllReduce, "2x3", 1000);
  spec.dtype = weftFloat64;
  sched::Recipe h = Hierarchical({"zerocopy", {}}, {"rexch", {-2, 2}});
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
  sched::CollSpec spec = SpecOn(Coll::kAllReduce, "2x3", 1000);
  sched::Recipe h = Hierarchical({"zerocopy", {}}, {"rexch", {-2, 2}});
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
  sched::Recipe zc_ring = Hierarchical({"zerocopy", {}}, {"ring", {}});
  zc_ring.chunk_bytes = 128;
  for (const char* shape : {"2x3", "3x2", "4x2:rr"}) {
    const auto nodes = Shape(shape);
    sched::Recipe zc_rexch =
        Hierarchical({"zerocopy", {}}, {"rexch", HalvingDoubling(nodes->num_nodes())});
    zc_rexch.chunk_bytes = 64;
    for (Coll coll : {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather}) {
      sched::Recipe cma_rexch = zc_rexch;
      cma_rexch.levels[0] = {"cma", {}, 0};
      for (const sched::Recipe& recipe :
           {zc_ring, zc_rexch, cma_rexch, Hierarchical({"shmpipe", {}, 256}, {"ring", {}})}) {
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

}  // namespace
}  // namespace weft::simtest
