#include "exec/kway_reduce.h"

#include <cstdint>
#include <cstring>

#include "core/dtype.h"
#include "core/half.h"
#include "core/hot_path.h"
#include "exec/reduce_kernels.h"
#include "exec/stream_copy.h"
#include "sched/ir/program.h"

namespace weft {
namespace {

constexpr size_t kBlockBytes = 4096;  // stays in L1 next to the sources' lines

// Writes a finished block to its destination: streamed (non-temporal) or cached.
void Emit(void* dst, const void* block, size_t bytes, bool stream) {
  if (stream) {
    StreamCopy(dst, block, bytes);
  } else {
    std::memcpy(dst, block, bytes);
  }
}

// Out of line (noinline): its three 4 KiB blocks and widening loops would otherwise sit inside
// KWayReduce, between the hot entry and the common path.
template <bool kBf16>
__attribute__((noinline)) void ReduceHalves(uint16_t* dst, const uint16_t* const* srcs, int k,
                                            size_t n, weftRedOp_t op, bool stream) {
  constexpr size_t kB = kBlockBytes / sizeof(float);
  float acc[kB], in[kB];
  uint16_t out[kB];
  auto widen = [](uint16_t h) { return kBf16 ? Bf16ToFloat(h) : HalfToFloat(h); };
  for (size_t base = 0; base < n; base += kB) {
    const size_t m = n - base < kB ? n - base : kB;
    for (size_t i = 0; i < m; ++i) acc[i] = widen(srcs[0][base + i]);
    for (int j = 1; j < k; ++j) {
      for (size_t i = 0; i < m; ++i) in[i] = widen(srcs[j][base + i]);
      ReduceInPlace(acc, in, m, weftFloat32, op);
    }
    for (size_t i = 0; i < m; ++i) out[i] = kBf16 ? FloatToBf16(acc[i]) : FloatToHalf(acc[i]);
    Emit(dst + base, out, m * sizeof(uint16_t), stream);
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

WEFT_HOT void KWayReduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t type,
                         weftRedOp_t op, bool stream) {
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
      ReduceHalves<false>(d, s, k, n, op, stream);
    } else {
      ReduceHalves<true>(d, s, k, n, op, stream);
    }
    return;
  }
  const size_t es = TypeSize(type);
  bool aliased = false;
  for (int j = 0; j < k; ++j) aliased |= srcs[j] == dst;
  // Two operands, one of them the destination: the API's ops give the same bits in either
  // order (IEEE + and * are commutative), so reduce straight into it.
  if (!stream && k == 2 && aliased) {
    ReduceInPlace(dst, dst == srcs[0] ? srcs[1] : srcs[0], n, type, op);
    return;
  }
  auto at = [es](const void* p, size_t elems) { return static_cast<const char*>(p) + elems * es; };
  const size_t per = kBlockBytes / es;
  alignas(64) unsigned char acc[kBlockBytes];
  for (size_t base = 0; base < n; base += per) {
    const size_t m = n - base < per ? n - base : per;
    char* d = static_cast<char*>(dst) + base * es;
    // Accumulate in dst itself when it is plain cached memory no source shares; else in a
    // block that stays in L1 and is written out once.
    unsigned char* a = (!stream && !aliased) ? reinterpret_cast<unsigned char*>(d) : acc;
    if (k == 1) {
      std::memcpy(a, at(srcs[0], base), m * es);
    } else {
      ReduceTwo(a, at(srcs[0], base), at(srcs[1], base), m, type, op);
    }
    for (int j = 2; j < k; ++j) ReduceInPlace(a, at(srcs[j], base), m, type, op);
    if (a == acc) Emit(d, acc, m * es, stream);
  }
}

}  // namespace weft
