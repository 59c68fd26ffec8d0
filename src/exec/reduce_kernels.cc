#include "exec/reduce_kernels.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/half.h"

namespace weft {
namespace {

template <typename T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}

template <typename T>
T WrapMul(T a, T b) {
  // Multiply in unsigned int width at least, so uint8 * uint8 does not promote to a
  // signed int that could overflow.
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
  return static_cast<T>(static_cast<U>(static_cast<std::make_unsigned_t<T>>(a)) *
                        static_cast<U>(static_cast<std::make_unsigned_t<T>>(b)));
}

template <typename T>
void ReduceInts(T* io, const T* in, size_t n, weftRedOp_t op) {
  switch (op) {
    case weftSum:
    case weftAvg:
      for (size_t i = 0; i < n; ++i) io[i] = WrapAdd(io[i], in[i]);
      break;
    case weftProd:
      for (size_t i = 0; i < n; ++i) io[i] = WrapMul(io[i], in[i]);
      break;
    case weftMax:
      for (size_t i = 0; i < n; ++i) io[i] = std::max(io[i], in[i]);
      break;
    case weftMin:
      for (size_t i = 0; i < n; ++i) io[i] = std::min(io[i], in[i]);
      break;
    default:
      break;
  }
}

template <typename T>
T FloatOp(T a, T b, weftRedOp_t op) {
  switch (op) {
    case weftProd:
      return a * b;
    case weftMax:
      return a != a ? a : (b > a || b != b ? b : a);  // NaN from either side wins
    case weftMin:
      return a != a ? a : (b < a || b != b ? b : a);
    default:
      return a + b;
  }
}

template <typename T>
void ReduceFloats(T* io, const T* in, size_t n, weftRedOp_t op) {
  for (size_t i = 0; i < n; ++i) io[i] = FloatOp(io[i], in[i], op);
}

template <float (*ToF)(uint16_t), uint16_t (*FromF)(float)>
void Reduce16(uint16_t* io, const uint16_t* in, size_t n, weftRedOp_t op) {
  for (size_t i = 0; i < n; ++i) io[i] = FromF(FloatOp(ToF(io[i]), ToF(in[i]), op));
}

}  // namespace

void ReduceInPlace(void* inout, const void* in, size_t n, weftDataType_t type, weftRedOp_t op) {
  switch (type) {
    case weftInt8:
      ReduceInts(static_cast<int8_t*>(inout), static_cast<const int8_t*>(in), n, op);
      break;
    case weftUint8:
      ReduceInts(static_cast<uint8_t*>(inout), static_cast<const uint8_t*>(in), n, op);
      break;
    case weftInt32:
      ReduceInts(static_cast<int32_t*>(inout), static_cast<const int32_t*>(in), n, op);
      break;
    case weftUint32:
      ReduceInts(static_cast<uint32_t*>(inout), static_cast<const uint32_t*>(in), n, op);
      break;
    case weftInt64:
      ReduceInts(static_cast<int64_t*>(inout), static_cast<const int64_t*>(in), n, op);
      break;
    case weftUint64:
      ReduceInts(static_cast<uint64_t*>(inout), static_cast<const uint64_t*>(in), n, op);
      break;
    case weftFloat16:
      Reduce16<HalfToFloat, FloatToHalf>(static_cast<uint16_t*>(inout),
                                         static_cast<const uint16_t*>(in), n, op);
      break;
    case weftBfloat16:
      Reduce16<Bf16ToFloat, FloatToBf16>(static_cast<uint16_t*>(inout),
                                         static_cast<const uint16_t*>(in), n, op);
      break;
    case weftFloat32:
      ReduceFloats(static_cast<float*>(inout), static_cast<const float*>(in), n, op);
      break;
    case weftFloat64:
      ReduceFloats(static_cast<double*>(inout), static_cast<const double*>(in), n, op);
      break;
    default:
      break;
  }
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
