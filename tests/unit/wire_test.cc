// The conversions of the wire forms (no MPI needed: the Wire is built by hand).
#include "native/wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/half.h"

namespace weft {
namespace {

TEST(Wire, IntegerMeanIsExactAndTruncatesTowardZero) {
  Wire w;
  w.conv = Wire::Conv::kSignedToI128;
  w.size = 16;
  w.divide = true;
  // Sums of three ranks as 128-bit values: no overflow even where int8 would wrap.
  std::vector<int8_t> a = {100, -100, -7}, b = {100, -100, 0}, c = {100, -100, 0};
  std::vector<unsigned char> wa(48), wb(48), wc(48);
  ToWire(w, weftInt8, a.data(), wa.data(), 3);
  ToWire(w, weftInt8, b.data(), wb.data(), 3);
  ToWire(w, weftInt8, c.data(), wc.data(), 3);
  for (int i = 0; i < 3; ++i) {
    __int128 x, y, z;
    std::memcpy(&x, wa.data() + 16 * i, 16);
    std::memcpy(&y, wb.data() + 16 * i, 16);
    std::memcpy(&z, wc.data() + 16 * i, 16);
    x += y + z;
    std::memcpy(wa.data() + 16 * i, &x, 16);
  }
  std::vector<int8_t> out(3);
  FromWire(w, weftInt8, wa.data(), out.data(), 3, 3);
  EXPECT_EQ(out, (std::vector<int8_t>{100, -100, -2}));  // -7/3 truncates to -2
}

TEST(Wire, UnsignedMeanOfLargeValues) {
  Wire w;
  w.conv = Wire::Conv::kUnsignedToU128;
  w.size = 16;
  w.divide = true;
  std::vector<uint64_t> a = {UINT64_MAX};
  std::vector<unsigned char> wa(16);
  ToWire(w, weftUint64, a.data(), wa.data(), 1);
  unsigned __int128 x;
  std::memcpy(&x, wa.data(), 16);
  x *= 2;  // two ranks with the same value
  std::memcpy(wa.data(), &x, 16);
  std::vector<uint64_t> out(1);
  FromWire(w, weftUint64, wa.data(), out.data(), 1, 2);
  EXPECT_EQ(out[0], UINT64_MAX);
}

TEST(Wire, HalfWidensToFloatAndRoundsOnce) {
  Wire w;
  w.conv = Wire::Conv::kHalfToF32;
  w.size = 4;
  std::vector<uint16_t> in = {FloatToHalf(2048), FloatToHalf(1)};
  std::vector<float> wide(2);
  ToWire(w, weftFloat16, in.data(), wide.data(), 2);
  EXPECT_EQ(wide[0], 2048.0f);
  // 2048 + 1 + 1 in fp32 then one rounding gives 2050 exactly; fp16 steps would give 2048.
  wide[0] += 1.0f + 1.0f;
  std::vector<uint16_t> out(2);
  FromWire(w, weftFloat16, wide.data(), out.data(), 2, 1);
  EXPECT_EQ(HalfToFloat(out[0]), 2050.0f);
}

}  // namespace
}  // namespace weft
