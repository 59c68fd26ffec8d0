#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "sched/patterns/butterfly.h"
#include "sched/patterns/knomial.h"
#include "sched/patterns/ring.h"

namespace weft::patterns {
namespace {

class ButterflyTest : public ::testing::TestWithParam<std::vector<int>> {};

// At every step the groups partition the ranks, each group has r_s members that agree on
// every digit but s, and over all steps each rank meets every other rank's digits.
TEST_P(ButterflyTest, GroupsPartitionTheRanksAtEveryStep) {
  const std::vector<int>& radices = GetParam();
  const int P = RadixProduct(radices);
  for (size_t s = 0; s < radices.size(); ++s) {
    std::vector<int> seen(P, 0);
    for (int r = 0; r < P; ++r) {
      std::vector<int> g = ButterflyGroup(r, radices, static_cast<int>(s));
      ASSERT_EQ(static_cast<int>(g.size()), radices[s]);
      ASSERT_TRUE(std::find(g.begin(), g.end(), r) != g.end());
      for (int m : g) {
        for (size_t t = 0; t < radices.size(); ++t) {
          if (t != s) ASSERT_EQ(Digit(m, radices, t), Digit(r, radices, t));
        }
        EXPECT_EQ(ButterflyGroup(m, radices, static_cast<int>(s)), g) << "groups are symmetric";
      }
      ++seen[g[0]];
    }
    for (int r = 0; r < P; ++r) {
      if (seen[r]) EXPECT_EQ(seen[r], radices[s]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Radices, ButterflyTest,
                         ::testing::Values(std::vector<int>{2}, std::vector<int>{2, 2, 2},
                                           std::vector<int>{4, 2}, std::vector<int>{3, 5},
                                           std::vector<int>{2, 3, 4}, std::vector<int>{7}));

TEST(Butterfly, FactorsAndRadices) {
  EXPECT_EQ(PrimeFactors(360), (std::vector<int>{2, 2, 2, 3, 3, 5}));
  EXPECT_EQ(PrimeFactors(127), (std::vector<int>{127}));
  EXPECT_TRUE(PrimeFactors(1).empty());
  EXPECT_EQ(RadicesUpTo(48, 4), (std::vector<int>{4, 4, 3}));
  EXPECT_EQ(RadixProduct(RadicesUpTo(360, 8)), 360);
  EXPECT_EQ(RadicesUpTo(127, 4), (std::vector<int>{127}));
}

class KnomialTest : public ::testing::TestWithParam<std::tuple<int, int>> {};

// For every root: each non-root has one parent that lists it as a child, the tree reaches
// every rank from the root, and no path is longer than ceil(log_k P).
TEST_P(KnomialTest, IsASpanningTreeOfBoundedDepth) {
  const auto [P, k] = GetParam();
  for (int root = 0; root < P; ++root) {
    std::vector<int> depth(P, -1);
    depth[root] = 0;
    std::vector<int> frontier = {root};
    while (!frontier.empty()) {
      std::vector<int> next;
      for (int r : frontier) {
        for (int c : KnomialChildren(r, P, k, root)) {
          ASSERT_EQ(depth[c], -1) << "rank " << c << " reached twice";
          ASSERT_EQ(KnomialParent(c, P, k, root), r);
          depth[c] = depth[r] + 1;
          next.push_back(c);
        }
      }
      frontier = next;
    }
    for (int r = 0; r < P; ++r) {
      ASSERT_GE(depth[r], 0) << "rank " << r << " unreachable from root " << root;
      ASSERT_LE(depth[r], KnomialDepth(P, k));
    }
    EXPECT_EQ(KnomialParent(root, P, k, root), -1);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, KnomialTest,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5, 8, 13, 17, 31, 64),
                                            ::testing::Values(2, 3, 4, 8)));

TEST(Knomial, BinomialShape) {
  EXPECT_EQ(KnomialChildren(0, 8, 2, 0), (std::vector<int>{4, 2, 1}));
  EXPECT_EQ(KnomialChildren(4, 8, 2, 0), (std::vector<int>{6, 5}));
  EXPECT_EQ(KnomialParent(6, 8, 2, 0), 4);
  EXPECT_EQ(KnomialChildren(3, 8, 2, 3), (std::vector<int>{7, 5, 4})) << "rooted at 3";
}

// After all steps of a radix-k dissemination, every rank has heard (directly or through
// relays) from every other: the offsets reachable as sums of one distance per step cover
// 1..P-1.
TEST(Dissemination, ReachesEveryRank) {
  for (int P : {2, 3, 5, 7, 8, 12, 17, 31, 64, 127}) {
    for (int k : {2, 3, 4}) {
      std::set<int> reach = {0};
      for (int s = 0; s < DisseminationSteps(P, k); ++s) {
        std::set<int> more = reach;
        for (int from : DisseminationRecvFrom(0, P, k, s)) {
          for (int o : reach) more.insert((o + (P - from) % P) % P);
        }
        reach = more;
        // Sends and receives pair up: rank r sends to q exactly when q receives from r.
        for (int r = 0; r < P; ++r) {
          for (int q : DisseminationSendTo(r, P, k, s)) {
            auto from = DisseminationRecvFrom(q, P, k, s);
            ASSERT_TRUE(std::find(from.begin(), from.end(), r) != from.end());
          }
        }
      }
      EXPECT_EQ(static_cast<int>(reach.size()), P) << "P=" << P << " k=" << k;
    }
  }
  EXPECT_EQ(RingNext(4, 5), 0);
  EXPECT_EQ(RingPrev(0, 5), 4);
}

}  // namespace
}  // namespace weft::patterns
