#include "core/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace weft {
namespace {

TEST(Half, EveryBitPatternRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(f)))) << h;
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << "bits " << h << " value " << f;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);       // rounds to infinity
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(2.9802322e-8f), 0x0000);  // half of it: ties to even (zero)
  EXPECT_FLOAT_EQ(HalfToFloat(0x3555), 0.333251953125f);
}

#if defined(__FLT16_MAX__)
// The compiler's own _Float16 conversion is the oracle for rounding of arbitrary floats.
TEST(Half, RoundingMatchesCompiler) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 2000000; ++i) {
    uint32_t b = bits(gen);
    float f;
    std::memcpy(&f, &b, 4);
    if (std::isnan(f)) continue;
    _Float16 h = static_cast<_Float16>(f);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    ASSERT_EQ(FloatToHalf(f), want) << "float bits " << std::hex << b;
  }
}
#endif

TEST(Bf16, EveryBitPatternRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = Bf16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToBf16(f), h);
  }
}

TEST(Bf16, RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties to even (1.0).
  EXPECT_EQ(FloatToBf16(1.0f + 1.0f / 256), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1.0078125 (odd) and 1.015625 (even).
  EXPECT_EQ(FloatToBf16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_EQ(FloatToBf16(1.0f + 1.5f / 256), 0x3f81);
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::nanf("")))));
}

}  // namespace
}  // namespace weft
