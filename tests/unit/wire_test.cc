// The conversions of the wire forms (no MPI needed: the Wire is built by hand).
#include "native/wire.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/half.h"

namespace weft {
namespace {

// Adds the wire words of several ranks as MPI's int64 Sum would.
std::vector<int64_t> SumWords(const std::vector<std::vector<int64_t>>& ranks) {
  std::vector<int64_t> sum(ranks[0].size(), 0);
  for (const auto& r : ranks)
    for (size_t i = 0; i < r.size(); ++i) sum[i] += r[i];
  return sum;
}

Wire Split64() {
  Wire w;
  w.conv = Wire::Conv::kSplit64;
  w.size = 16;
  w.per_elem = 2;
  w.divide = true;
  return w;
}

TEST(Wire, IntegerMeanIsExactAndTruncatesTowardZero) {
  const Wire w = Split64();
  // Three ranks: the int8 sums overflow, the wire sums do not.
  std::vector<std::vector<int8_t>> in = {{100, -100, -7}, {100, -100, 0}, {100, -100, 0}};
  std::vector<std::vector<int64_t>> words;
  for (const auto& v : in) {
    words.emplace_back(6);
    ToWire(w, weftInt8, v.data(), words.back().data(), 3);
  }
  std::vector<int64_t> sum = SumWords(words);
  std::vector<int8_t> out(3);
  FromWire(w, weftInt8, sum.data(), out.data(), 3, 3);
  EXPECT_EQ(out, (std::vector<int8_t>{100, -100, -2}));  // -7/3 truncates to -2
}

TEST(Wire, MeanOf64BitExtremes) {
  const Wire w = Split64();
  std::vector<uint64_t> u = {UINT64_MAX, 1};
  std::vector<int64_t> wu(4);
  ToWire(w, weftUint64, u.data(), wu.data(), 2);
  std::vector<int64_t> su = SumWords({wu, wu, wu});  // three ranks with the same values
  std::vector<uint64_t> out(2);
  FromWire(w, weftUint64, su.data(), out.data(), 2, 3);
  EXPECT_EQ(out, u);
  std::vector<int64_t> a = {INT64_MIN, INT64_MAX}, b = {INT64_MIN, INT64_MIN};
  std::vector<int64_t> wa(4), wb(4);
  ToWire(w, weftInt64, a.data(), wa.data(), 2);
  ToWire(w, weftInt64, b.data(), wb.data(), 2);
  std::vector<int64_t> sab = SumWords({wa, wb});
  std::vector<int64_t> mean(2);
  FromWire(w, weftInt64, sab.data(), mean.data(), 2, 2);
  EXPECT_EQ(mean[0], INT64_MIN);
  EXPECT_EQ(mean[1], 0);  // (INT64_MAX + INT64_MIN) / 2 = -1/2 truncates to 0
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
