#include "exec/stream_copy.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace weft {

void StreamCopy(void* dst, const void* src, size_t n) {
#if defined(__SSE2__)
  // Below a few lines the head and tail handling costs more than the stores save.
  if (n >= 256) {
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    const size_t head = (16 - (reinterpret_cast<uintptr_t>(d) & 15)) & 15;
    std::memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    auto* dv = reinterpret_cast<__m128i*>(d);
    auto* sv = reinterpret_cast<const __m128i*>(s);
    const size_t lines = n / 64;
    for (size_t i = 0; i < lines; ++i, dv += 4, sv += 4) {
      const __m128i x0 = _mm_loadu_si128(sv), x1 = _mm_loadu_si128(sv + 1);
      const __m128i x2 = _mm_loadu_si128(sv + 2), x3 = _mm_loadu_si128(sv + 3);
      _mm_stream_si128(dv, x0);
      _mm_stream_si128(dv + 1, x1);
      _mm_stream_si128(dv + 2, x2);
      _mm_stream_si128(dv + 3, x3);
    }
    std::memcpy(dv, sv, n - lines * 64);
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

void StreamFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace weft
