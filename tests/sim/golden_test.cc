// Golden ir files pin the generators' output: tests/golden/*.ir hold the text weft-plan prints
// for a handful of small cases (every rank); a change to a generator shows up as a diff here.
// Regenerate one with: weft-plan <args from the file's first line> --rank all
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "compile/compile.h"
#include "sched/ir/text.h"
#include "sched/ir/verify.h"

namespace weft::simtest {
namespace {

struct Golden {
  const char* file;
  sched::Coll coll;
  int nranks;
  uint64_t count;
  weftDataType_t dtype;
  const char* recipe;
  int root;
  const char* topology = nullptr;  // weft-plan --topology (ranks on several nodes)
};

constexpr Golden kGolden[] = {
    {"allreduce_rexch_p4.ir", sched::Coll::kAllReduce, 4, 32, weftFloat32, "rexch:-2,-2,2,2", 0},
    {"allreduce_rexch_fold_p3.ir", sched::Coll::kAllReduce, 3, 16, weftFloat64, "rexch:-2,2", 0},
    {"allreduce_rexch_mixed_p6.ir", sched::Coll::kAllReduce, 6, 48, weftInt32, "rexch:-3,2,3", 0},
    {"reduce_scatter_ring_p3.ir", sched::Coll::kReduceScatter, 3, 8, weftFloat64, "ring", 0},
    {"allgather_shift_p5.ir", sched::Coll::kAllGather, 5, 2, weftInt64, "shift:2", 0},
    {"bcast_tree_chunked_p3.ir", sched::Coll::kBroadcast, 3, 32, weftFloat64, "tree:2@128", 2},
    {"reduce_tree_p5.ir", sched::Coll::kReduce, 5, 4, weftFloat64, "tree:2", 3},
    {"alltoall_bruck_p3.ir", sched::Coll::kAllToAll, 3, 2, weftInt32, "bruck", 0},
    {"allreduce_copyin_p2.ir", sched::Coll::kAllReduce, 2, 16, weftFloat64, "copyin", 0},
    {"allreduce_shmpipe_p2.ir", sched::Coll::kAllReduce, 2, 64, weftFloat64, "shmpipe@256", 0},
    // One node-aware or hierarchical recipe per collective that has one, on two nodes of two
    // ranks dealt round-robin (nodes {0,2} and {1,3}).
    {"alltoall_nodea2a_2x2rr.ir", sched::Coll::kAllToAll, 4, 2, weftInt32, "nodea2a:4", 0,
     "2x2:rr"},
    {"allreduce_hier_2x2rr.ir", sched::Coll::kAllReduce, 4, 9, weftFloat32, "rexch:-2,2/rexch:-2,2",
     0, "2x2:rr"},
    {"reduce_scatter_hier_2x2rr.ir", sched::Coll::kReduceScatter, 4, 2, weftFloat32,
     "rexch:-2,2/ring", 0, "2x2:rr"},
    {"bcast_hier_2x2rr.ir", sched::Coll::kBroadcast, 4, 5, weftFloat64, "tree:2/tree:2", 3,
     "2x2:rr"},
    {"reduce_hier_2x2rr.ir", sched::Coll::kReduce, 4, 5, weftFloat64, "tree:2/tree:2", 3, "2x2:rr"},
    {"allgather_hier_2x2rr.ir", sched::Coll::kAllGather, 4, 2, weftFloat64, "ring/rexch:-2,2", 0,
     "2x2:rr"},
    // The node level over each node's segment: node ranks are local indices, and the second
    // node part's waits count past the first's two signals.
    {"allreduce_hiershm_2x2rr.ir", sched::Coll::kAllReduce, 4, 9, weftFloat32, "oneshot/rexch:2", 0,
     "2x2:rr"},
    // Over the segment, the node part reads and writes each block at its rank's place
    // (EmbedMap::block): no staging copy of the whole buffer.
    {"allgather_hiershm_2x2rr.ir", sched::Coll::kAllGather, 4, 2, weftFloat64, "shmpipe/rexch:-2,2",
     0, "2x2:rr"},
    {"reduce_scatter_hiershm_2x2rr.ir", sched::Coll::kReduceScatter, 4, 2, weftFloat32,
     "shmpipe/rexch:-2,2", 0, "2x2:rr"},
};

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Golden, GeneratorsMatchTheirPinnedText) {
  for (const Golden& g : kGolden) {
    sched::CollSpec spec;
    spec.coll = g.coll;
    spec.nranks = g.nranks;
    spec.count = g.count;
    spec.dtype = g.dtype;
    spec.root = g.root;
    std::string why;
    if (g.topology != nullptr) {
      Topology t;
      ASSERT_TRUE(Topology::FromShape(g.topology, &t, &why)) << why;
      spec.nodes = std::make_shared<const Topology>(std::move(t));
    }
    sched::Recipe recipe;
    ASSERT_TRUE(sched::ParseRecipe(g.recipe, &recipe, &why)) << why;
    const std::vector<ir::Program> ps = sched::BuildAllPrograms(spec, recipe);
    ASSERT_TRUE(ir::VerifyMatching(ps, &why)) << g.file << ": " << why;
    const std::string text = ir::PrintPrograms(ps);
    const std::string path = std::string(WEFT_SOURCE_DIR) + "/tests/golden/" + g.file;
    std::string want = ReadFile(path);
    // The file starts with comment lines (the command that made it); the parser skips them.
    std::vector<ir::Program> parsed;
    ASSERT_TRUE(ir::ParsePrograms(want, &parsed, &why)) << path << ": " << why;
    EXPECT_EQ(ir::PrintPrograms(parsed), text)
        << g.file << " differs from the generator's output; if the change is intended, "
        << "regenerate it (see the file's first line)";
  }
}

// docs/ir.md's worked example is what weft-plan prints today.
TEST(Golden, DocsWorkedExampleIsCurrent) {
  sched::CollSpec spec{sched::Coll::kAllReduce, 4, 64, weftFloat32};
  sched::Recipe recipe;
  std::string why;
  ASSERT_TRUE(sched::ParseRecipe("rexch:-2,-2,2,2", &recipe, &why));
  const std::string program = ir::PrintProgram(sched::BuildProgram(spec, recipe, 1));
  EXPECT_NE(ReadFile(std::string(WEFT_SOURCE_DIR) + "/docs/ir.md").find(program), std::string::npos)
      << "docs/ir.md's worked example is out of date; it should show:\n"
      << program;
}

}  // namespace
}  // namespace weft::simtest
