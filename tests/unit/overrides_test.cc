// WEFT_TUNE's grammar: entries parse into ranges and recipes, the first match decides, and every
// malformed entry is refused with a reason naming it.
#include "tune/overrides.h"

#include <gtest/gtest.h>

namespace weft::tune {
namespace {

using sched::Coll;

TEST(Overrides, ParsesRangesAndFindsTheFirstMatch) {
  std::vector<Override> o;
  std::string why;
  ASSERT_TRUE(ParseOverrides(
      "allreduce:0-4K=rexch:2;allreduce:4K-=ring;alltoall:*=pairwise:8;*:1M-=tree:2@64K;"
      "allreduce:16-32=rexch:-2,2/ring",
      &o, &why))
      << why;
  ASSERT_EQ(o.size(), 5u);
  EXPECT_EQ(o[0].lo, 0u);
  EXPECT_EQ(o[0].hi, 4096u);
  EXPECT_EQ(FindOverride(o, Coll::kAllReduce, 0)->text, "allreduce:0-4K=rexch:2");
  EXPECT_EQ(FindOverride(o, Coll::kAllReduce, 4095)->recipe.generator, "rexch");
  EXPECT_EQ(FindOverride(o, Coll::kAllReduce, 4096)->recipe.generator, "ring");  // [lo, hi)
  EXPECT_EQ(FindOverride(o, Coll::kAllToAll, 1)->recipe.factors, std::vector<int>{8});
  EXPECT_EQ(FindOverride(o, Coll::kBroadcast, 1 << 20)->recipe.chunk_bytes, 64u << 10);
  EXPECT_EQ(FindOverride(o, Coll::kBroadcast, (1 << 20) - 1), nullptr);
  EXPECT_EQ(o[4].recipe.levels.size(), 2u);  // shadowed by entry 0, still parsed
  ASSERT_TRUE(ParseOverrides("", &o, &why));
  EXPECT_TRUE(o.empty());
  ASSERT_TRUE(ParseOverrides("bcast:*=tree:4;", &o, &why)) << why;  // trailing ';'
  EXPECT_EQ(o.size(), 1u);
}

TEST(Overrides, RefusesMalformedEntriesWithTheEntryNamed) {
  for (const char* bad :
       {"allreduce", "allreduce:*", "allreduce=ring", "allred:*=ring", "allreduce:4K-1K=ring",
        "allreduce:4K-4K=ring", "allreduce:x-=ring", "allreduce:1-2-3=ring", "allreduce:*=nosuch",
        "allreduce:*=rexch:0", "allreduce:99999999999999999999-=ring",
        "allreduce:*=ring;bcast:*=", "allreduce:16G-=ring@2G", "=ring:*", "allreduce:-4K=ring"}) {
    std::vector<Override> o;
    std::string why;
    EXPECT_FALSE(ParseOverrides(bad, &o, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  std::vector<Override> o;
  std::string why;
  EXPECT_FALSE(ParseOverrides("allreduce:*=ring;alltoall:*=nosuch", &o, &why));
  EXPECT_NE(why.find("alltoall:*=nosuch"), std::string::npos) << why;
}

}  // namespace
}  // namespace weft::tune
