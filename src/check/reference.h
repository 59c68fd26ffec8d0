// Validation reference shared by weft-bench and the tests: deterministic inputs per
// (rank, element) and the result of every (type, op) computed independently of weft's own
// kernels (integers exactly in 128 bits, floats in fp64). Header-only.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/half.h"
#include "weft/weft.h"

namespace weft::check {

inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline size_t TypeBytes(weftDataType_t t) {
  static const size_t k[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return k[t];
}

inline bool IsFloat(weftDataType_t t) { return t >= weftFloat16; }

inline double LoadF(weftDataType_t t, const void* p, size_t i) {
  switch (t) {
    case weftFloat16:
      return weft::HalfToFloat(static_cast<const uint16_t*>(p)[i]);
    case weftBfloat16:
      return weft::Bf16ToFloat(static_cast<const uint16_t*>(p)[i]);
    case weftFloat32:
      return static_cast<const float*>(p)[i];
    default:
      return static_cast<const double*>(p)[i];
  }
}

inline void StoreF(weftDataType_t t, void* p, size_t i, double v) {
  switch (t) {
    case weftFloat16:
      static_cast<uint16_t*>(p)[i] = weft::FloatToHalf(static_cast<float>(v));
      break;
    case weftBfloat16:
      static_cast<uint16_t*>(p)[i] = weft::FloatToBf16(static_cast<float>(v));
      break;
    case weftFloat32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    default:
      static_cast<double*>(p)[i] = v;
      break;
  }
}

// Integer element i as a sign- or zero-extended 128-bit value.
inline __int128 LoadI(weftDataType_t t, const void* p, size_t i) {
  switch (t) {
    case weftInt8:
      return static_cast<const int8_t*>(p)[i];
    case weftUint8:
      return static_cast<const uint8_t*>(p)[i];
    case weftInt32:
      return static_cast<const int32_t*>(p)[i];
    case weftUint32:
      return static_cast<const uint32_t*>(p)[i];
    case weftInt64:
      return static_cast<const int64_t*>(p)[i];
    default:
      return static_cast<const uint64_t*>(p)[i];
  }
}

inline void StoreI(weftDataType_t t, void* p, size_t i, uint64_t bits) {
  std::memcpy(static_cast<char*>(p) + i * TypeBytes(t), &bits, TypeBytes(t));  // little endian
}

/// Seed of element i of `rank`'s input.
inline uint64_t InputHash(int rank, uint64_t seed, size_t i) {
  return Mix(seed * 1000003u + static_cast<uint64_t>(rank) * 7919u + i);
}

/// A float input: a multiple of 1/8 in [-8, 8), or for Prod one of {-2, -1, -0.5, 0.5, 1, 2}
/// so products stay exact.
inline double FloatInput(weftRedOp_t op, uint64_t h) {
  static const double kSet[] = {-2, -1, -0.5, 0.5, 1, 2};
  return op == weftProd ? kSet[h % 6]
                        : static_cast<double>(static_cast<int64_t>(h % 128) - 64) / 8.0;
}

/// Writes `rank`'s input for (type, op) into p[0..n). Integers take the full range (so sums
/// and products wrap); floats come from FloatInput.
inline void Fill(weftDataType_t t, weftRedOp_t op, int rank, uint64_t seed, void* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t h = InputHash(rank, seed, i);
    if (IsFloat(t))
      StoreF(t, p, i, FloatInput(op, h));
    else
      StoreI(t, p, i, h);
  }
}

/// Reference reduction of element i over ranks 0..P-1 of Fill's inputs.
struct Expect {
  __int128 i = 0;  // integer result (to be truncated to the type)
  double f = 0;    // float result
};

inline Expect Reference(weftDataType_t t, weftRedOp_t op, int nranks, uint64_t seed, size_t i) {
  Expect e;
  unsigned char one[8];  // one element, reused (this runs for every element checked)
  for (int r = 0; r < nranks; ++r) {
    uint64_t h = InputHash(r, seed, i);
    if (!IsFloat(t)) {
      StoreI(t, one, 0, h);
      __int128 v = LoadI(t, one, 0);
      if (r == 0) {
        e.i = v;
      } else if (op == weftSum || op == weftAvg) {
        e.i += v;
      } else if (op == weftProd) {
        e.i = static_cast<__int128>(static_cast<unsigned __int128>(e.i) *
                                    static_cast<unsigned __int128>(v));
      } else if (op == weftMax) {
        e.i = v > e.i ? v : e.i;
      } else {
        e.i = v < e.i ? v : e.i;
      }
    } else {
      double v = FloatInput(op, h);
      if (r == 0) {
        e.f = v;
      } else if (op == weftSum || op == weftAvg) {
        e.f += v;
      } else if (op == weftProd) {
        e.f *= v;
      } else if (op == weftMax) {
        e.f = v > e.f ? v : e.f;
      } else {
        e.f = v < e.f ? v : e.f;
      }
    }
  }
  if (op == weftAvg) {
    if (IsFloat(t))
      e.f /= nranks;
    else
      e.i /= nranks;  // exact mean truncated toward zero
  }
  return e;
}

/// Relative tolerance of a float type's result (rounded once from an exact or fp32 value).
inline double Tolerance(weftDataType_t t) {
  switch (t) {
    case weftFloat16:
      return 1.0 / 1024;
    case weftBfloat16:
      return 1.0 / 128;
    case weftFloat32:
      return 1e-6;
    default:
      return 1e-14;
  }
}

/// Compares got[i] with the reference; returns the number of wrong elements and describes
/// the first in *first.
inline size_t CountWrong(weftDataType_t t, weftRedOp_t op, int nranks, uint64_t seed,
                         const void* got, size_t n, size_t first_index, std::string* first) {
  size_t wrong = 0;
  std::vector<unsigned char> want(8);
  for (size_t k = 0; k < n; ++k) {
    Expect e = Reference(t, op, nranks, seed, first_index + k);
    bool ok;
    char buf[160];
    if (IsFloat(t)) {
      double g = LoadF(t, got, k);
      ok = std::fabs(g - e.f) <= Tolerance(t) * std::fmax(1.0, std::fabs(e.f));
      std::snprintf(buf, sizeof(buf), "element %zu: got %.9g, expected %.9g", first_index + k, g,
                    e.f);
    } else {
      StoreI(t, want.data(), 0, static_cast<uint64_t>(e.i));
      ok = std::memcmp(want.data(), static_cast<const char*>(got) + k * TypeBytes(t),
                       TypeBytes(t)) == 0;
      std::snprintf(buf, sizeof(buf), "element %zu: got %lld, expected %lld", first_index + k,
                    static_cast<long long>(LoadI(t, got, k)),
                    static_cast<long long>(LoadI(t, want.data(), 0)));
    }
    if (!ok && wrong++ == 0 && first) *first = buf;
  }
  return wrong;
}

inline const char* TName(weftDataType_t t) {
  static const char* k[] = {"int8",   "uint8", "int32", "uint32", "int64",
                            "uint64", "half",  "float", "double", "bfloat16"};
  return k[t];
}
inline const char* OName(weftRedOp_t o) {
  static const char* k[] = {"sum", "prod", "max", "min", "avg"};
  return k[o];
}

}  // namespace weft::check
