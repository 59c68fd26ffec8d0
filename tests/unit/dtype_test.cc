#include "core/dtype.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

// The values NCCL gives ncclDataType_t and ncclRedOp_t (nccl.h): code that passes a type or op
// between the two libraries keeps its meaning. The sizes and names follow the values.
TEST(Dtype, NumberedAsNccl) {
  EXPECT_EQ(weftInt8, 0);
  EXPECT_EQ(weftUint8, 1);
  EXPECT_EQ(weftInt32, 2);
  EXPECT_EQ(weftUint32, 3);
  EXPECT_EQ(weftInt64, 4);
  EXPECT_EQ(weftUint64, 5);
  EXPECT_EQ(weftFloat16, 6);
  EXPECT_EQ(weftFloat32, 7);
  EXPECT_EQ(weftFloat64, 8);
  EXPECT_EQ(weftBfloat16, 9);
  EXPECT_EQ(weftSum, 0);
  EXPECT_EQ(weftProd, 1);
  EXPECT_EQ(weftMax, 2);
  EXPECT_EQ(weftMin, 3);
  EXPECT_EQ(weftAvg, 4);
  EXPECT_EQ(TypeSize(weftFloat32), 4u);
  EXPECT_EQ(TypeSize(weftFloat64), 8u);
  EXPECT_EQ(TypeSize(weftBfloat16), 2u);
  EXPECT_STREQ(TypeName(weftFloat32), "float");
  EXPECT_STREQ(TypeName(weftBfloat16), "bfloat16");
}

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
