#include "exec/reduce_kernels.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "core/hot_path.h"

namespace weft {
namespace {

// Tags for the 16-bit float types in Dispatch (stored as uint16_t, computed in fp32).
struct Half {};
struct Bf16 {};

// One functor per op, so each (type, op) loop is compiled on its own: with __restrict
// operands and no switch inside, GCC vectorizes them: a 2-way double sum in L2 went from 16-24
// to 58-75 GB/s read (a scratch benchmark during the change; weft-kernel-bench measures the
// current kernels, docs/intra-node.md quotes it).
struct SumOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};
struct ProdOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      // Multiply in unsigned int width at least, so uint8 * uint8 does not promote to a
      // signed int that could overflow.
      using U =
          std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(static_cast<std::make_unsigned_t<T>>(a)) *
                            static_cast<U>(static_cast<std::make_unsigned_t<T>>(b)));
    } else {
      return a * b;
    }
  }
};
struct MaxOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return a > b ? a : b;
    } else {
      return a != a ? a : (b > a || b != b ? b : a);  // NaN from either side wins
    }
  }
};
struct MinOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return a < b ? a : b;
    } else {
      return a != a ? a : (b < a || b != b ? b : a);
    }
  }
};

template <typename T, typename Op>
void Apply(T* __restrict io, const T* __restrict in, size_t n) {
  const Op op;
  for (size_t i = 0; i < n; ++i) io[i] = op(io[i], in[i]);
}

template <typename T, typename Op>
void Combine(T* __restrict d, const T* __restrict a, const T* __restrict b, size_t n) {
  const Op op;
  for (size_t i = 0; i < n; ++i) d[i] = op(a[i], b[i]);
}

template <float (*ToF)(uint16_t), uint16_t (*FromF)(float), typename Op>
void Apply16(uint16_t* io, const uint16_t* in, size_t n) {
  const Op op;
  for (size_t i = 0; i < n; ++i) io[i] = FromF(op(ToF(io[i]), ToF(in[i])));
}

template <float (*ToF)(uint16_t), uint16_t (*FromF)(float), typename Op>
void Combine16(uint16_t* d, const uint16_t* a, const uint16_t* b, size_t n) {
  const Op op;
  for (size_t i = 0; i < n; ++i) d[i] = FromF(op(ToF(a[i]), ToF(b[i])));
}

// Calls f.template operator()<T, Op>() for the (type, op) pair; Avg combines as Sum.
template <typename F>
void Dispatch(weftDataType_t type, weftRedOp_t op, F&& f) {
  auto by_op = [&]<typename T>() {
    switch (op) {
      case weftSum:
      case weftAvg:
        return f.template operator()<T, SumOp>();
      case weftProd:
        return f.template operator()<T, ProdOp>();
      case weftMax:
        return f.template operator()<T, MaxOp>();
      case weftMin:
        return f.template operator()<T, MinOp>();
      default:
        return;
    }
  };
  switch (type) {
    case weftInt8:
      return by_op.template operator()<int8_t>();
    case weftUint8:
      return by_op.template operator()<uint8_t>();
    case weftInt32:
      return by_op.template operator()<int32_t>();
    case weftUint32:
      return by_op.template operator()<uint32_t>();
    case weftInt64:
      return by_op.template operator()<int64_t>();
    case weftUint64:
      return by_op.template operator()<uint64_t>();
    case weftFloat16:
      return by_op.template operator()<Half>();
    case weftBfloat16:
      return by_op.template operator()<Bf16>();
    case weftFloat32:
      return by_op.template operator()<float>();
    case weftFloat64:
      return by_op.template operator()<double>();
    default:
      return;
  }
}

// The kernels as plain functions of untyped operands, one per (type, op), chosen through a
// pointer, so ReduceTwo and ReduceInPlace stay a few lines. With every kernel inlined into them
// (16 KiB each) a cold 8-byte allreduce touched 13 pages of code, 11 after
// (scripts/count-call-footprint.sh, COLL=allreduce).
using InPlaceFn = void (*)(void*, const void*, size_t);
using TwoFn = void (*)(void*, const void*, const void*, size_t);

template <typename T, typename Op>
void InPlaceKernel(void* inout, const void* in, size_t n) {
  if constexpr (std::is_same_v<T, Half>) {
    Apply16<HalfToFloat, FloatToHalf, Op>(static_cast<uint16_t*>(inout),
                                          static_cast<const uint16_t*>(in), n);
  } else if constexpr (std::is_same_v<T, Bf16>) {
    Apply16<Bf16ToFloat, FloatToBf16, Op>(static_cast<uint16_t*>(inout),
                                          static_cast<const uint16_t*>(in), n);
  } else {
    Apply<T, Op>(static_cast<T*>(inout), static_cast<const T*>(in), n);
  }
}

template <typename T, typename Op>
void TwoKernel(void* dst, const void* a, const void* b, size_t n) {
  if constexpr (std::is_same_v<T, Half>) {
    Combine16<HalfToFloat, FloatToHalf, Op>(static_cast<uint16_t*>(dst),
                                            static_cast<const uint16_t*>(a),
                                            static_cast<const uint16_t*>(b), n);
  } else if constexpr (std::is_same_v<T, Bf16>) {
    Combine16<Bf16ToFloat, FloatToBf16, Op>(static_cast<uint16_t*>(dst),
                                            static_cast<const uint16_t*>(a),
                                            static_cast<const uint16_t*>(b), n);
  } else {
    Combine<T, Op>(static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b), n);
  }
}

}  // namespace

WEFT_HOT void ReduceInPlace(void* inout, const void* in, size_t n, weftDataType_t type,
                            weftRedOp_t op) {
  InPlaceFn fn = nullptr;
  Dispatch(type, op, [&]<typename T, typename Op>() { fn = &InPlaceKernel<T, Op>; });
  if (fn != nullptr) fn(inout, in, n);
}

WEFT_HOT void ReduceTwo(void* dst, const void* a, const void* b, size_t n, weftDataType_t type,
                        weftRedOp_t op) {
  TwoFn fn = nullptr;
  Dispatch(type, op, [&]<typename T, typename Op>() { fn = &TwoKernel<T, Op>; });
  if (fn != nullptr) fn(dst, a, b, n);
}

void DivideFloats(void* data, size_t n, weftDataType_t type, double divisor) {
  switch (type) {
    case weftFloat32: {
      auto* p = static_cast<float*>(data);
      const float d = static_cast<float>(divisor);
      for (size_t i = 0; i < n; ++i) p[i] /= d;
      break;
    }
    case weftFloat64: {
      auto* p = static_cast<double*>(data);
      for (size_t i = 0; i < n; ++i) p[i] /= divisor;
      break;
    }
    case weftFloat16: {
      auto* p = static_cast<uint16_t*>(data);
      for (size_t i = 0; i < n; ++i)
        p[i] = FloatToHalf(HalfToFloat(p[i]) / static_cast<float>(divisor));
      break;
    }
    case weftBfloat16: {
      auto* p = static_cast<uint16_t*>(data);
      for (size_t i = 0; i < n; ++i)
        p[i] = FloatToBf16(Bf16ToFloat(p[i]) / static_cast<float>(divisor));
      break;
    }
    default:
      break;
  }
}

}  // namespace weft
