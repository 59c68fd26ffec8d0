#include "exec/kway_reduce.h"

#include <cstdint>
#include <cstring>

#include "core/dtype.h"
#include "core/half.h"
#include "exec/reduce_kernels.h"
#include "sched/ir/program.h"

namespace weft {
namespace {

constexpr size_t kBlockBytes = 4096;  // stays in L1 next to the sources' lines

template <bool kBf16>
void ReduceHalves(uint16_t* dst, const uint16_t* const* srcs, int k, size_t n, weftRedOp_t op) {
  constexpr size_t kB = kBlockBytes / sizeof(float);
  float acc[kB], in[kB];
  auto widen = [](uint16_t h) { return kBf16 ? Bf16ToFloat(h) : HalfToFloat(h); };
  for (size_t base = 0; base < n; base += kB) {
    const size_t m = n - base < kB ? n - base : kB;
    for (size_t i = 0; i < m; ++i) acc[i] = widen(srcs[0][base + i]);
    for (int j = 1; j < k; ++j) {
      for (size_t i = 0; i < m; ++i) in[i] = widen(srcs[j][base + i]);
      ReduceInPlace(acc, in, m, weftFloat32, op);
    }
    for (size_t i = 0; i < m; ++i)
      dst[base + i] = kBf16 ? FloatToBf16(acc[i]) : FloatToHalf(acc[i]);
  }
}

}  // namespace

uint64_t MatMul2x2(uint64_t a, uint64_t b) {
  auto e = [](uint64_t m, int i) { return static_cast<uint32_t>((m >> (16 * i)) & 0xffff); };
  const uint32_t r0 = e(a, 0) * e(b, 0) + e(a, 1) * e(b, 2);
  const uint32_t r1 = e(a, 0) * e(b, 1) + e(a, 1) * e(b, 3);
  const uint32_t r2 = e(a, 2) * e(b, 0) + e(a, 3) * e(b, 2);
  const uint32_t r3 = e(a, 2) * e(b, 1) + e(a, 3) * e(b, 3);
  return (uint64_t{r0 & 0xffff}) | (uint64_t{r1 & 0xffff} << 16) | (uint64_t{r2 & 0xffff} << 32) |
         (uint64_t{r3 & 0xffff} << 48);
}

void KWayReduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t type,
                weftRedOp_t op) {
  if (n == 0) return;
  if (op == ir::kOpMatMul2x2) {
    auto* d = static_cast<uint64_t*>(dst);
    for (size_t i = 0; i < n; ++i) {
      uint64_t acc;
      std::memcpy(&acc, static_cast<const uint64_t*>(srcs[0]) + i, 8);
      for (int j = 1; j < k; ++j) acc = MatMul2x2(acc, static_cast<const uint64_t*>(srcs[j])[i]);
      d[i] = acc;
    }
    return;
  }
  if (type == weftFloat16 || type == weftBfloat16) {
    auto* d = static_cast<uint16_t*>(dst);
    auto* s = reinterpret_cast<const uint16_t* const*>(srcs);
    if (type == weftFloat16) {
      ReduceHalves<false>(d, s, k, n, op);
    } else {
      ReduceHalves<true>(d, s, k, n, op);
    }
    return;
  }
  const size_t es = TypeSize(type);
  // Two operands: the API's ops give the same bits in either order (IEEE + and * are
  // commutative), so an in-place form reduces straight into its destination.
  if (k == 2 && (dst == srcs[0] || dst == srcs[1])) {
    ReduceInPlace(dst, dst == srcs[0] ? srcs[1] : srcs[0], n, type, op);
    return;
  }
  const size_t per = kBlockBytes / es;
  bool aliased = false;
  for (int j = 0; j < k; ++j) aliased |= srcs[j] == dst;
  if (!aliased) {  // build the result in dst block by block, in operand order
    for (size_t base = 0; base < n; base += per) {
      const size_t m = n - base < per ? n - base : per;
      char* d = static_cast<char*>(dst) + base * es;
      std::memcpy(d, static_cast<const char*>(srcs[0]) + base * es, m * es);
      for (int j = 1; j < k; ++j) {
        ReduceInPlace(d, static_cast<const char*>(srcs[j]) + base * es, m, type, op);
      }
    }
    return;
  }
  alignas(64) unsigned char acc[kBlockBytes];
  for (size_t base = 0; base < n; base += per) {
    const size_t m = n - base < per ? n - base : per;
    std::memcpy(acc, static_cast<const char*>(srcs[0]) + base * es, m * es);
    for (int j = 1; j < k; ++j) {
      ReduceInPlace(acc, static_cast<const char*>(srcs[j]) + base * es, m, type, op);
    }
    std::memcpy(static_cast<char*>(dst) + base * es, acc, m * es);
  }
}

}  // namespace weft
