#include "sim_families.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "compile/compile.h"
#include "sched/algos/generator.h"
#include "sched/ir/verify.h"
#include "sim/sim.h"

namespace weft::simtest {
namespace {

using sched::Coll;
using sched::Recipe;

int Log2(int c) {
  int l = 0;
  while ((1 << l) < c) ++l;
  return l;
}

int PowerOfTwoBelow(int p) {
  int c = 1;
  while (c * 2 <= p) c *= 2;
  return c;
}

// -r... then full radices then r... over the largest power of two <= P (folding the rest):
// `rs` of the log2 levels reduce-scatter, the others exchange full vectors.
Recipe PowerOfTwo(int P, int rs_levels, uint64_t chunk = 0) {
  const int levels = Log2(PowerOfTwoBelow(P));
  Recipe r{"rexch", {}, chunk};
  const int split = std::min(rs_levels, levels);
  for (int i = 0; i < split; ++i) r.factors.push_back(-2);
  for (int i = split; i < levels; ++i) r.factors.push_back(2);
  for (int i = 0; i < split; ++i) r.factors.push_back(2);
  return r;
}

}  // namespace

const std::vector<Family>& Families() {
  static const std::vector<Family> all = [] {
    const std::vector<Coll> butterfly = {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather};
    const std::vector<Coll> tree = {Coll::kAllReduce, Coll::kBroadcast, Coll::kReduce};
    // Every collective of the tree generator (the chunking pass takes only `tree`'s).
    const std::vector<Coll> tree_all = {Coll::kAllReduce, Coll::kBroadcast, Coll::kReduce,
                                        Coll::kGather, Coll::kScatter};
    std::vector<Family> f;
    f.push_back({"rexch_default", butterfly,
                 [](int P) {
                   sched::CollSpec s;
                   s.nranks = P;
                   return Recipe{"rexch", sched::FindGenerator("rexch")->DefaultFactors(s), 0};
                 },
                 true});
    f.push_back({"rexch_fold", butterfly, [](int P) { return PowerOfTwo(P, 99); }, true});
    f.push_back(
        {"rexch_doubling", {Coll::kAllReduce}, [](int P) { return PowerOfTwo(P, 0); }, true});
    f.push_back({"rexch_mixed", {Coll::kAllReduce}, [](int P) { return PowerOfTwo(P, 1); }, true});
    f.push_back({"rexch_radix3", butterfly,
                 [](int P) {
                   Recipe r{"rexch", {}, 0};
                   for (int c = 3; c <= P; c *= 3) r.factors.push_back(-3);
                   const size_t n = r.factors.size();
                   for (size_t i = 0; i < n; ++i) r.factors.push_back(3);
                   return r;
                 },
                 true});
    f.push_back(
        {"rexch_chunked", {Coll::kAllReduce}, [](int P) { return PowerOfTwo(P, 99, 4096); }, true});
    f.push_back({"ring", butterfly, [](int) { return Recipe{"ring", {}, 0}; }});
    f.push_back({"shift2", {Coll::kReduceScatter, Coll::kAllGather}, [](int) {
                   return Recipe{"shift", {2}, 0};
                 }});
    f.push_back({"shift3", {Coll::kReduceScatter, Coll::kAllGather}, [](int) {
                   return Recipe{"shift", {3}, 0};
                 }});
    f.push_back({"tree2", tree_all, [](int) { return Recipe{"tree", {2}, 0}; }, true});
    f.push_back({"tree3", {Coll::kGather, Coll::kScatter}, [](int) {
                   return Recipe{"tree", {3}, 0};
                 }});
    f.push_back({"tree4", tree_all, [](int) { return Recipe{"tree", {4}, 0}; }, true});
    // Radix P: a flat tree, the root and every other rank directly.
    f.push_back({"tree_linear", {Coll::kGather, Coll::kScatter}, [](int P) {
                   return Recipe{"tree", {std::max(2, P)}, 0};
                 }});
    f.push_back({"tree2_chunked", tree, [](int) { return Recipe{"tree", {2}, 4096}; }, true});
    f.push_back({"copyin",
                 {Coll::kAllReduce, Coll::kReduceScatter, Coll::kReduce},
                 [](int) {
                   return Recipe{"copyin", {}, 0};
                 },
                 true,
                 true});
    f.push_back({"oneshot",
                 {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather, Coll::kBroadcast,
                  Coll::kReduce, Coll::kAllToAll, Coll::kGather, Coll::kScatter, Coll::kScan,
                  Coll::kExScan},
                 [](int) {
                   return Recipe{"oneshot", {}, 0};
                 },
                 true,
                 true,
                 64});
    // Chunks of 16 KiB: the sweep's largest count crosses dozens of pipeline steps and both
    // slot buffers (1 KiB chunks made the sweep take 30 s at 257 ranks).
    f.push_back({"shmpipe",
                 {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather, Coll::kBroadcast,
                  Coll::kReduce, Coll::kAllToAll},
                 [](int) {
                   return Recipe{"shmpipe", {}, 16384};
                 },
                 true,
                 true});
    f.push_back(
        {"cma",
         {Coll::kAllGather, Coll::kBroadcast, Coll::kAllToAll, Coll::kGather, Coll::kScatter},
         [](int) {
           return Recipe{"cma", {}, 0};
         },
         false,
         true});
    f.push_back({"zerocopy",
                 {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather, Coll::kBroadcast,
                  Coll::kReduce, Coll::kAllToAll, Coll::kGather, Coll::kScatter},
                 [](int) {
                   return Recipe{"zerocopy", {}, 0};
                 },
                 true,
                 true});
    f.push_back({"pairwise", {Coll::kAllToAll}, [](int) { return Recipe{"pairwise", {4}, 0}; }});
    f.push_back({"pairwise1", {Coll::kAllToAll}, [](int) { return Recipe{"pairwise", {1}, 0}; }});
    f.push_back({"bruck", {Coll::kAllToAll}, [](int) { return Recipe{"bruck", {}, 0}; }});
    f.push_back({"doubling", {Coll::kScan, Coll::kExScan},
                 [](int) {
                   return Recipe{"doubling", {}, 0};
                 },
                 true});
    return f;
  }();
  return all;
}

std::string SimulateCase(const sched::CollSpec& spec, const sched::Recipe& recipe,
                         const sched::GenEnv& env) {
  const std::string what = sched::SpecText(spec) + " recipe " + sched::RecipeText(recipe);
  const std::string declined = sched::DeclineRecipe(spec, recipe, env);
  if (!declined.empty()) return what + ": declined: " + declined;
  const std::vector<ir::Program> ps = sched::BuildAllPrograms(spec, recipe);
  std::string why;
  if (!ir::VerifyMatching(ps, &why)) return what + ": verifier: " + why;
  sim::SimOptions opt;
  opt.seed = spec.count * 31 + spec.nranks;
  opt.model.nodes = spec.nodes;
  const sim::SimResult r = sim::Simulate(spec, ps, opt);
  return r.pass ? "" : what + ": " + r.why;
}

std::shared_ptr<const Topology> Shape(const std::string& text) {
  Topology t;
  std::string why;
  EXPECT_TRUE(Topology::FromShape(text, &t, &why)) << why;
  return std::make_shared<const Topology>(std::move(t));
}

std::shared_ptr<const Topology> Scrambled(int nranks, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids(nranks);
  for (int r = 0, node = 0; r < nranks; ++node) {
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0 && r < nranks; --k) ids[r++] = node;
  }
  std::shuffle(ids.begin(), ids.end(), rng);
  return std::make_shared<const Topology>(Topology::FromNodeOfRank(ids));
}

sched::CollSpec SpecOn(sched::Coll coll, const char* shape, uint64_t count, weftDataType_t dtype) {
  sched::CollSpec spec;
  spec.coll = coll;
  spec.nodes = Shape(shape);
  spec.nranks = spec.nodes->nranks;
  spec.count = count;
  spec.dtype = dtype;
  return spec;
}

std::vector<int> HalvingDoubling(int n) {
  std::vector<int> f;
  for (int c = 1; c * 2 <= n; c *= 2) f.push_back(-2);
  const size_t k = f.size();
  for (size_t j = 0; j < k; ++j) f.push_back(2);
  return f;
}

sched::Recipe Hierarchical(sched::Recipe node, sched::Recipe net) {
  return {sched::kHierarchical, {}, 0, {std::move(node), std::move(net)}};
}

}  // namespace weft::simtest
