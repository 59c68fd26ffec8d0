// Selection on one node's shared memory: the measured size rule, with or without calibrated
// parameters, zerocopy whenever every rank's buffers are shared; the rendezvous cost in the
// estimate; and the tuner's ranking (the default choice first, no recipe twice).
#include <gtest/gtest.h>

#include <algorithm>

#include "compile/compile.h"

namespace weft::sched {
namespace {

CollSpec Spec(Coll c, uint64_t count, int P = 2) {
  CollSpec s;
  s.coll = c;
  s.nranks = P;
  s.count = count;
  s.dtype = weftFloat32;
  s.op = weftSum;
  return s;
}

GenEnv OneNode() {
  GenEnv e;
  e.shared_memory = e.single_copy = true;
  return e;
}

// Parameters of the order weft-tune measured at 2 ranks (bench/2026-12-02-tuning).
tune::CostModel Calibrated() {
  tune::CostModel m;
  m.intra = {0.4, 12.0, 4032, 3.2, 8u << 20, 18.0};
  m.message_overhead_us = 0.11;
  m.counter_wait_us = 0.5;
  m.copy_gbytes_per_s = 22;
  m.reduce_gbytes_per_s = 40;
  return m;
}

std::string Chosen(const CollSpec& s, const GenEnv& e, const tune::CostModel& m) {
  Recipe r;
  std::string why;
  EXPECT_TRUE(SelectRecipe(s, e, m, nullptr, &r, &why)) << why;
  return RecipeText(r);
}

TEST(Selection, OneNodeSizeRule) {
  const tune::CostModel m;
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 1024), OneNode(), m), "oneshot");  // 4 KiB
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 1025), OneNode(), m), "shmpipe");
  EXPECT_EQ(Chosen(Spec(Coll::kAllGather, 1024), OneNode(), m), "oneshot");  // 8 KiB out
  EXPECT_EQ(Chosen(Spec(Coll::kAllGather, 1025), OneNode(), m), "shmpipe");
  EXPECT_EQ(Chosen(Spec(Coll::kReduce, 4096), OneNode(), m), "oneshot");         // 16 KiB
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 2u << 20), OneNode(), m), "shmpipe");  // 8 MiB
}

TEST(Selection, CalibratedParametersKeepTheOneNodeRule) {
  // Calibration changes the model, not the measured rule on shared memory (compile.cc says
  // why), and shared buffers keep zerocopy.
  const tune::CostModel m = Calibrated();
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 256), OneNode(), m), "oneshot");
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 2u << 20), OneNode(), m), "shmpipe");
  GenEnv zc = OneNode();
  zc.zero_copy = true;
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 2u << 20), zc, m), "zerocopy");
  // Across nodes the calibrated rendezvous shows: above the eager limit a round costs more.
  tune::CostModel eager = m;
  eager.intra.rendezvous_us = 0;
  const CollSpec s = Spec(Coll::kAllReduce, 4096, 4);
  const Recipe ring{"ring", {}, 0};
  EXPECT_GT(tune::EstimateProgramUs(BuildProgram(s, ring, 0), m),
            tune::EstimateProgramUs(BuildProgram(s, ring, 0), eager));
}

TEST(Selection, RankedForTheTunerDefaultFirstNoDuplicates) {
  for (const bool calibrated : {false, true}) {
    tune::CostModel m = calibrated ? Calibrated() : tune::CostModel{};
    for (uint64_t count : {2ull, 4096ull, 1ull << 20}) {
      const CollSpec s = Spec(Coll::kAllReduce, count);
      const std::vector<RankedRecipe> r = RankRecipes(s, OneNode(), m);
      ASSERT_GE(r.size(), 4u);
      EXPECT_EQ(RecipeText(r[0].recipe), Chosen(s, OneNode(), m));
      for (size_t i = 0; i < r.size(); ++i) {
        for (size_t j = i + 1; j < r.size(); ++j) EXPECT_FALSE(r[i].recipe == r[j].recipe);
        if (i >= 2) EXPECT_LE(r[i - 1].model_us, r[i].model_us);
      }
    }
  }
}

}  // namespace
}  // namespace weft::sched
