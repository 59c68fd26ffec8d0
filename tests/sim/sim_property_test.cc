// Simulator property tests: every generator family x every collective it serves x P in
// {1..17, 24, 31, 32, 61, 64, 127, 128, 257} x counts {0, 1, P-1, P+1, 1000, 65537}: the
// programs verify, run without deadlock and give every rank the rank-order reference result,
// bitwise. Types, ops, in-place and roots rotate over the cases so the sweep covers each of them
// at many P; order-preserving families also run every case with a non-commutative op (2x2
// matrix product). A second test runs every type x op x in-place at a few P.
// For the blocked collectives (allgather, reduce_scatter, alltoall, gather, scatter) the swept
// count is a rank's whole buffer: each block holds ceil(count / P) elements, so P = 257 stays in
// memory.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "compile/compile.h"
#include "sim_families.h"

namespace weft::simtest {
namespace {

using sched::Coll;

const std::vector<int>& RankCounts() {
  static const std::vector<int> p = [] {
    std::vector<int> v;
    for (int i = 1; i <= 17; ++i) v.push_back(i);
    for (int i : {24, 31, 32, 61, 64, 127, 128, 257}) v.push_back(i);
    return v;
  }();
  return p;
}

bool Blocked(Coll c) {
  return c == Coll::kAllGather || c == Coll::kReduceScatter || c == Coll::kAllToAll ||
         c == Coll::kGather || c == Coll::kScatter;
}

// Runs one case; returns "" or the failure with its full description.
std::string RunCase(const Family& fam, const sched::CollSpec& spec) {
  sched::GenEnv env;
  env.shared_memory = fam.shared_memory;
  env.single_copy = fam.shared_memory;
  env.zero_copy = fam.shared_memory;
  return SimulateCase(spec, fam.recipe(spec.nranks), env);
}

struct FamColl {
  size_t family;
  Coll coll;
};

// How gtest (and ctest's test list) shows a parameter.
void PrintTo(const FamColl& f, std::ostream* os) {
  *os << Families()[f.family].name << " " << sched::CollName(f.coll);
}

std::vector<FamColl> AllFamColls() {
  std::vector<FamColl> v;
  for (size_t f = 0; f < Families().size(); ++f) {
    for (Coll c : Families()[f].colls) v.push_back({f, c});
  }
  return v;
}

class SimSweep : public ::testing::TestWithParam<FamColl> {};

TEST_P(SimSweep, EveryRankCountAndCount) {
  const Family& fam = Families()[GetParam().family];
  const Coll coll = GetParam().coll;
  int cases = 0, i = 0;
  for (int P : RankCounts()) {
    if (P > fam.max_nranks) {
      // Beyond its limit the generator must decline (and selection moves on).
      sched::CollSpec spec{coll, P, 1000, weftFloat64};
      sched::GenEnv env;
      env.shared_memory = fam.shared_memory;
      env.single_copy = fam.shared_memory;
      env.zero_copy = fam.shared_memory;
      env.zero_copy = fam.shared_memory;
      EXPECT_NE(sched::DeclineRecipe(spec, fam.recipe(P), env), "") << fam.name << " P=" << P;
      continue;
    }
    for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t(P - 1), uint64_t(P + 1),
                           uint64_t{1000}, uint64_t{65537}}) {
      ++i;
      sched::CollSpec spec;
      spec.coll = coll;
      spec.nranks = P;
      spec.count = Blocked(coll) ? (count + P - 1) / P : count;
      spec.dtype = kTypes[i % 10];
      spec.op = kOps[(i / 10) % 4];
      spec.root = (i * 7) % P;
      spec.in_place = i % 3 == 0;
      const std::string e = RunCase(fam, spec);
      EXPECT_EQ(e, "");
      ++cases;
      if (fam.order_preserving && sched::Reduces(coll)) {
        spec.op = ir::kOpMatMul2x2;
        spec.dtype = weftUint64;
        EXPECT_EQ(RunCase(fam, spec), "") << "non-commutative";
        ++cases;
      }
    }
  }
  RecordProperty("cases", cases);
}

TEST_P(SimSweep, EveryTypeOpAndInPlace) {
  const Family& fam = Families()[GetParam().family];
  const Coll coll = GetParam().coll;
  for (int P : {2, 5, 8}) {
    for (weftDataType_t t : kTypes) {
      for (weftRedOp_t op : kOps) {
        if (!sched::Reduces(coll) && op != weftSum) continue;
        for (bool in_place : {false, true}) {
          sched::CollSpec spec;
          spec.coll = coll;
          spec.nranks = P;
          spec.count = Blocked(coll) ? 37 : 301;
          spec.dtype = t;
          spec.op = op;
          spec.root = P - 1;
          spec.in_place = in_place;
          EXPECT_EQ(RunCase(fam, spec), "");
        }
      }
    }
  }
}

std::string CaseName(const ::testing::TestParamInfo<FamColl>& info) {
  return Families()[info.param.family].name + "_" + sched::CollName(info.param.coll);
}

INSTANTIATE_TEST_SUITE_P(Generators, SimSweep, ::testing::ValuesIn(AllFamColls()), CaseName);

}  // namespace
}  // namespace weft::simtest
