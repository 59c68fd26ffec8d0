#include "core/dtype.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

TEST(Dtype, NamesParseBack) {
  for (int t = 0; t < weftNumTypes; ++t) {
    weftDataType_t back;
    ASSERT_TRUE(ParseType(TypeName(static_cast<weftDataType_t>(t)), &back));
    EXPECT_EQ(back, t);
  }
  for (int o = 0; o < weftNumOps; ++o) {
    weftRedOp_t back;
    ASSERT_TRUE(ParseOp(OpName(static_cast<weftRedOp_t>(o)), &back));
    EXPECT_EQ(back, o);
  }
}

TEST(Dtype, AliasesAndSizes) {
  weftDataType_t t;
  ASSERT_TRUE(ParseType("bf16", &t));
  EXPECT_EQ(t, weftBfloat16);
  ASSERT_TRUE(ParseType("FP64", &t));
  EXPECT_EQ(t, weftFloat64);
  EXPECT_FALSE(ParseType("complex", &t));
  weftRedOp_t op;
  EXPECT_FALSE(ParseOp("xor", &op));
  EXPECT_EQ(TypeSize(weftFloat16), 2u);
  EXPECT_EQ(TypeSize(weftUint64), 8u);
  EXPECT_EQ(TypeSize(static_cast<weftDataType_t>(77)), 0u);
  EXPECT_STREQ(TypeName(static_cast<weftDataType_t>(-3)), "invalid");
}

}  // namespace
}  // namespace weft
