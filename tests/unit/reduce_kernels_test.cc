#include "exec/reduce_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "core/half.h"

namespace weft {
namespace {

template <typename T>
std::vector<T> Apply(std::vector<T> a, const std::vector<T>& b, weftDataType_t t, weftRedOp_t op) {
  ReduceInPlace(a.data(), b.data(), a.size(), t, op);
  return a;
}

TEST(ReduceKernels, IntegerSumsWrapInsteadOfSaturating) {
  EXPECT_EQ(Apply<int8_t>({127, -128}, {1, -1}, weftInt8, weftSum),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Apply<uint8_t>({250}, {10}, weftUint8, weftSum), (std::vector<uint8_t>{4}));
  EXPECT_EQ(Apply<int32_t>({INT32_MAX}, {1}, weftInt32, weftSum),
            (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(Apply<uint64_t>({UINT64_MAX}, {2}, weftUint64, weftSum), (std::vector<uint64_t>{1}));
  EXPECT_EQ(Apply<int64_t>({INT64_MAX}, {1}, weftInt64, weftAvg),
            (std::vector<int64_t>{INT64_MIN}));
}

TEST(ReduceKernels, IntegerProductsWrap) {
  EXPECT_EQ(Apply<uint8_t>({200}, {2}, weftUint8, weftProd), (std::vector<uint8_t>{144}));
  EXPECT_EQ(Apply<int8_t>({-128}, {-1}, weftInt8, weftProd), (std::vector<int8_t>{-128}));
  EXPECT_EQ(Apply<uint32_t>({0x80000000u}, {2}, weftUint32, weftProd), (std::vector<uint32_t>{0}));
  EXPECT_EQ(Apply<int64_t>({INT64_MIN}, {-1}, weftInt64, weftProd),
            (std::vector<int64_t>{INT64_MIN}));
}

TEST(ReduceKernels, MaxMinRespectSignedness) {
  EXPECT_EQ(Apply<int8_t>({-5, 3}, {2, -7}, weftInt8, weftMax), (std::vector<int8_t>{2, 3}));
  EXPECT_EQ(Apply<uint8_t>({200, 3}, {2, 7}, weftUint8, weftMin), (std::vector<uint8_t>{2, 3}));
  EXPECT_EQ(Apply<uint64_t>({1ull << 63}, {1}, weftUint64, weftMax),
            (std::vector<uint64_t>{1ull << 63}));
}

TEST(ReduceKernels, Floats) {
  EXPECT_EQ(Apply<double>({1.5, -2}, {2.25, 3}, weftFloat64, weftSum),
            (std::vector<double>{3.75, 1}));
  EXPECT_EQ(Apply<float>({1.5f, -2}, {2, 3}, weftFloat32, weftProd), (std::vector<float>{3, -6}));
  EXPECT_EQ(Apply<float>({1.5f, -2}, {2, -3}, weftFloat32, weftMin),
            (std::vector<float>{1.5f, -3}));
  EXPECT_EQ(Apply<double>({1.5, -2}, {2, -3}, weftFloat64, weftMax), (std::vector<double>{2, -2}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto m = Apply<double>({nan, 1}, {1, nan}, weftFloat64, weftMax);
  EXPECT_TRUE(m[0] != m[0] && m[1] != m[1]) << "NaN propagates from either side";
}

TEST(ReduceKernels, HalfAndBf16ComputeInFloat) {
  std::vector<uint16_t> a = {FloatToHalf(1.5f), FloatToHalf(-4)},
                        b = {FloatToHalf(0.25f), FloatToHalf(3)};
  ReduceInPlace(a.data(), b.data(), 2, weftFloat16, weftSum);
  EXPECT_EQ(HalfToFloat(a[0]), 1.75f);
  EXPECT_EQ(HalfToFloat(a[1]), -1.0f);
  std::vector<uint16_t> c = {FloatToBf16(3)}, d = {FloatToBf16(-2)};
  ReduceInPlace(c.data(), d.data(), 1, weftBfloat16, weftProd);
  EXPECT_EQ(Bf16ToFloat(c[0]), -6.0f);
}

TEST(ReduceKernels, DivideFloats) {
  std::vector<double> a = {3, -9};
  DivideFloats(a.data(), 2, weftFloat64, 3);
  EXPECT_EQ(a, (std::vector<double>{1, -3}));
  std::vector<uint16_t> h = {FloatToHalf(5)};
  DivideFloats(h.data(), 1, weftFloat16, 2);
  EXPECT_EQ(HalfToFloat(h[0]), 2.5f);
}

}  // namespace
}  // namespace weft
