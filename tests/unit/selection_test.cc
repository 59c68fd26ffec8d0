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

// Parameters of the order weft-tune measured at 2 ranks (bench/tuning/first-regret).
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
  // why; alltoall's one exception below), and shared buffers keep zerocopy.
  const tune::CostModel m = Calibrated();
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 256), OneNode(), m), "oneshot");
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 2u << 20), OneNode(), m), "shmpipe");
  GenEnv zc = OneNode();
  zc.zero_copy = true;
  EXPECT_EQ(Chosen(Spec(Coll::kAllReduce, 2u << 20), zc, m), "zerocopy");
  // Alltoall above oneshot's cut-off weighs shmpipe against pairwise:4 once the handover rate
  // is calibrated: slow handovers (lines moving between cores) favour MPI's single copy, fast
  // ones the slots. Without the rate, the rule.
  const CollSpec a2a = Spec(Coll::kAllToAll, 64u << 10);  // 128 KiB blocks
  EXPECT_EQ(Chosen(a2a, OneNode(), m), "shmpipe");
  tune::CostModel slow = m, fast = m;
  slow.compute_cached_bytes = fast.compute_cached_bytes = 1u << 20;
  slow.handover_gbytes_per_s = 2;
  fast.handover_gbytes_per_s = 200;
  EXPECT_EQ(Chosen(a2a, OneNode(), slow), "pairwise:4");
  EXPECT_EQ(Chosen(a2a, OneNode(), fast), "shmpipe");
  EXPECT_EQ(Chosen(Spec(Coll::kAllToAll, 256), OneNode(), slow), "oneshot");      // small: the rule
  EXPECT_EQ(Chosen(Spec(Coll::kAllToAll, 2048), OneNode(), slow), "shmpipe");     // 8 KiB blocks
  EXPECT_EQ(Chosen(Spec(Coll::kAllToAll, 8192), OneNode(), slow), "pairwise:4");  // 32 KiB
  // A bcast under 64 KiB weighs single copy against the rule's pick the same way: a cheap
  // process_vm_readv call wins at 32 KiB, a costly one leaves the slots; 2 KiB stays oneshot.
  const CollSpec b32k = Spec(Coll::kBroadcast, 8192);
  EXPECT_EQ(Chosen(b32k, OneNode(), m), "shmpipe");  // uncalibrated handover: the rule
  tune::CostModel cheap_call = slow, dear_call = slow;
  cheap_call.single_copy_us = 0.5;
  dear_call.single_copy_us = 50;
  EXPECT_EQ(Chosen(b32k, OneNode(), cheap_call), "cma");
  EXPECT_EQ(Chosen(b32k, OneNode(), dear_call), "shmpipe");
  EXPECT_EQ(Chosen(Spec(Coll::kBroadcast, 512), OneNode(), cheap_call), "oneshot");
  // Across nodes the calibrated rendezvous shows: above the eager limit a round costs more.
  tune::CostModel eager = m;
  eager.intra.rendezvous_us = 0;
  const CollSpec s = Spec(Coll::kAllReduce, 4096, 4);
  const Recipe ring{"ring", {}, 0};
  EXPECT_GT(tune::EstimateProgramUs(BuildProgram(s, ring, 0), m),
            tune::EstimateProgramUs(BuildProgram(s, ring, 0), eager));
}

TEST(Selection, ReducesInCacheAndCopiesBetweenCoresAtTheirOwnRates) {
  tune::CostModel m;
  m.copy_gbytes_per_s = 8;
  m.reduce_gbytes_per_s = 6;
  m.reduce_half_gbytes_per_s = 1;
  const tune::CostModel uncached = m;
  m.compute_cached_bytes = 1u << 20;
  m.reduce_cached_gbytes_per_s = 24;
  m.handover_gbytes_per_s = 16;
  m.single_copy_us = 1;
  m.single_copy_gbytes_per_s = 0;  // the copy rate, until set below
  // A reduce in cache takes a quarter of the time; from 16 MiB the memory rate; between, in
  // between. fp16 reduces are compute-bound: one rate at every size.
  EXPECT_DOUBLE_EQ(m.ReduceUs(64 << 10, weftFloat32, 1u << 20),
                   uncached.ReduceUs(64 << 10, weftFloat32, 1u << 20) / 4);
  EXPECT_DOUBLE_EQ(m.ReduceUs(64 << 10, weftFloat32, 16u << 20),
                   uncached.ReduceUs(64 << 10, weftFloat32, 16u << 20));
  const double mid = m.ReduceUs(64 << 10, weftFloat32, 4u << 20);
  EXPECT_GT(mid, m.ReduceUs(64 << 10, weftFloat32, 1u << 20));
  EXPECT_LT(mid, m.ReduceUs(64 << 10, weftFloat32, 16u << 20));
  EXPECT_DOUBLE_EQ(m.ReduceUs(64 << 10, weftFloat16, 1u << 20),
                   m.ReduceUs(64 << 10, weftFloat16, 64u << 20));
  // The working set is the program's buffers: a 128 KiB reduce at 2 ranks is estimated
  // cheaper in cache; a 64 MiB one is not.
  const Recipe tree{"tree", {2}, 0};
  const CollSpec small = Spec(Coll::kReduce, 32768), large = Spec(Coll::kReduce, 16u << 20);
  EXPECT_LT(tune::EstimateProgramUs(BuildProgram(small, tree, 0), m),
            tune::EstimateProgramUs(BuildProgram(small, tree, 0), uncached));
  EXPECT_DOUBLE_EQ(tune::EstimateProgramUs(BuildProgram(large, tree, 0), m),
                   tune::EstimateProgramUs(BuildProgram(large, tree, 0), uncached));
  // Copies: inside the rank at the copy rate; through a slot at the handover rate (in cache);
  // from a peer's buffer one single-copy call more.
  ir::Program p;
  p.nranks = 2;
  p.send_bytes = p.recv_bytes = 64 << 10;
  p.dtype = weftFloat32;
  ir::Instr own;
  own.op = ir::Opcode::kCopy;
  own.bytes = 64 << 10;
  own.srcs = {{ir::Space::kSend, 0, 0}};
  own.dst = {ir::Space::kRecv, 0, 0};
  ir::Instr slot = own, peer = own;
  slot.dst = {ir::Space::kShm, 0, 0};
  peer.srcs = {{ir::Space::kPeerSend, 1, 0}};
  const tune::ComputePricer price(m, p);
  EXPECT_DOUBLE_EQ(price.Us(own), m.CopyUs(64 << 10));
  EXPECT_DOUBLE_EQ(price.Us(slot), (64 << 10) / 16e3);
  EXPECT_DOUBLE_EQ(price.Us(peer), 1 + (64 << 10) / 16e3);
  // A copy into a range the program then sends to a node peer crosses cores too.
  ir::Instr send;
  send.op = ir::Opcode::kSend;
  send.peer = 1;
  send.bytes = 4096;
  send.srcs = {{ir::Space::kRecv, 0, 60 << 10}};
  p.code = {own, send};
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(own), (64 << 10) / 16e3);
  p.code[1].srcs[0].offset = 64 << 10;  // just past the copy: no overlap
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(own), m.CopyUs(64 << 10));
  // Out of cache (a 32 MiB working set) a slot's copy goes at the copy rate, a single copy at
  // its own rate where calibrated.
  p.code.clear();
  p.send_bytes = p.recv_bytes = 16u << 20;
  slot.bytes = peer.bytes = 16u << 20;
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(slot), (16u << 20) / 8e3);
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(peer), 1 + (16u << 20) / 8e3);
  m.single_copy_gbytes_per_s = 5;
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(slot), (16u << 20) / 8e3);
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(peer), 1 + (16u << 20) / 5e3);
  // Without a handover rate, a single copy still goes at its own rate; from a mapped peer
  // (weftMemAlloc) a copy is a memcpy: no call, the copy rate.
  m.handover_gbytes_per_s = 0;
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(peer), 1 + (16u << 20) / 5e3);
  m.peer_buffers_mapped = true;
  EXPECT_DOUBLE_EQ(tune::ComputePricer(m, p).Us(peer), m.CopyUs(16u << 20));
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
