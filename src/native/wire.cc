#include "native/wire.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "core/dtype.h"
#include "core/half.h"
#include "exec/reduce_kernels.h"

namespace weft {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

struct UserOps {
  MPI_Op sum8 = MPI_OP_NULL;   // wrapping 8-bit sum
  MPI_Op prod8 = MPI_OP_NULL;  // wrapping 8-bit product
  MPI_Op sum128 = MPI_OP_NULL;
  MPI_Datatype i128_type = MPI_DATATYPE_NULL;
  int err = MPI_SUCCESS;
};

UserOps g_ops;
std::once_flag g_ops_once;
std::atomic<bool> g_ops_ready{false};  // skips call_once on every call after the first

weftDataType_t EightBitType(MPI_Datatype t) { return t == MPI_UINT8_T ? weftUint8 : weftInt8; }

void Sum8(void* in, void* inout, int* len, MPI_Datatype* t) {
  ReduceInPlace(inout, in, static_cast<size_t>(*len), EightBitType(*t), weftSum);
}

void Prod8(void* in, void* inout, int* len, MPI_Datatype* t) {
  ReduceInPlace(inout, in, static_cast<size_t>(*len), EightBitType(*t), weftProd);
}

// Two's complement addition is the same for signed and unsigned 128-bit values.
void Sum128(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (int i = 0; i < *len; ++i) {
    u128 x, y;
    std::memcpy(&x, a + 16 * i, 16);
    std::memcpy(&y, b + 16 * i, 16);
    y += x;
    std::memcpy(b + 16 * i, &y, 16);
  }
}

int FreeOpsAtFinalize(MPI_Comm, int, void*, void*) {
  if (g_ops.sum8 != MPI_OP_NULL) MPI_Op_free(&g_ops.sum8);
  if (g_ops.prod8 != MPI_OP_NULL) MPI_Op_free(&g_ops.prod8);
  if (g_ops.sum128 != MPI_OP_NULL) MPI_Op_free(&g_ops.sum128);
  if (g_ops.i128_type != MPI_DATATYPE_NULL) MPI_Type_free(&g_ops.i128_type);
  return MPI_SUCCESS;
}

void CreateOps() {
  int& e = g_ops.err;
  if (!e) e = MPI_Op_create(&Sum8, 1, &g_ops.sum8);
  if (!e) e = MPI_Op_create(&Prod8, 1, &g_ops.prod8);
  if (!e) e = MPI_Op_create(&Sum128, 1, &g_ops.sum128);
  if (!e) e = MPI_Type_contiguous(16, MPI_BYTE, &g_ops.i128_type);
  if (!e) e = MPI_Type_commit(&g_ops.i128_type);
  // MPI_Finalize deletes MPI_COMM_SELF's attributes first: free the ops there.
  int key = MPI_KEYVAL_INVALID;
  if (!e) e = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &FreeOpsAtFinalize, &key, nullptr);
  if (!e) e = MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

template <typename T, typename W>
void Widen(const void* src, void* dst, size_t n) {
  const T* s = static_cast<const T*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  for (size_t i = 0; i < n; ++i) {
    W w = static_cast<W>(s[i]);
    std::memcpy(d + 16 * i, &w, 16);
  }
}

// Integer mean, truncated toward zero (C division of the exact sum).
template <typename T, typename W>
void Narrow(const void* src, void* dst, size_t n, int nranks) {
  const auto* s = static_cast<const unsigned char*>(src);
  T* d = static_cast<T*>(dst);
  for (size_t i = 0; i < n; ++i) {
    W w;
    std::memcpy(&w, s + 16 * i, 16);
    d[i] = static_cast<T>(w / static_cast<W>(nranks));
  }
}

}  // namespace

MPI_Datatype MpiTypeOf(weftDataType_t type) {
  switch (type) {
    case weftInt8: return MPI_INT8_T;
    case weftUint8: return MPI_UINT8_T;
    case weftInt32: return MPI_INT32_T;
    case weftUint32: return MPI_UINT32_T;
    case weftInt64: return MPI_INT64_T;
    case weftUint64: return MPI_UINT64_T;
    case weftFloat16:
    case weftBfloat16: return MPI_UINT16_T;
    case weftFloat32: return MPI_FLOAT;
    case weftFloat64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

Status SelectWire(weftDataType_t type, weftRedOp_t op, Wire* w) {
  if (!g_ops_ready.load(std::memory_order_acquire)) {
    std::call_once(g_ops_once, [] {
      CreateOps();
      g_ops_ready.store(true, std::memory_order_release);
    });
  }
  if (g_ops.err != MPI_SUCCESS) return weftMpiError;
  static const MPI_Op kBuiltin[weftNumOps] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_SUM};
  *w = Wire{};
  w->divide = op == weftAvg;
  if (type == weftFloat16 || type == weftBfloat16) {
    w->conv = type == weftFloat16 ? Wire::Conv::kHalfToF32 : Wire::Conv::kBf16ToF32;
    w->type = MPI_FLOAT;
    w->size = 4;
    w->op = kBuiltin[op];
    return weftSuccess;
  }
  if (op == weftAvg && !IsFloatType(type)) {
    w->conv = (type == weftInt8 || type == weftInt32 || type == weftInt64)
                  ? Wire::Conv::kSignedToI128
                  : Wire::Conv::kUnsignedToU128;
    w->type = g_ops.i128_type;
    w->size = 16;
    w->op = g_ops.sum128;
    return weftSuccess;
  }
  w->type = MpiTypeOf(type);
  w->size = TypeSize(type);
  w->op = kBuiltin[op];
  if ((type == weftInt8 || type == weftUint8) && (op == weftSum || op == weftProd)) {
    w->op = op == weftSum ? g_ops.sum8 : g_ops.prod8;
  }
  return weftSuccess;
}

void ToWire(const Wire& w, weftDataType_t type, const void* src, void* dst, size_t n) {
  switch (w.conv) {
    case Wire::Conv::kNone: std::memcpy(dst, src, n * w.size); break;
    case Wire::Conv::kHalfToF32:
    case Wire::Conv::kBf16ToF32: {
      const auto* s = static_cast<const uint16_t*>(src);
      float* d = static_cast<float*>(dst);
      const bool half = w.conv == Wire::Conv::kHalfToF32;
      for (size_t i = 0; i < n; ++i) d[i] = half ? HalfToFloat(s[i]) : Bf16ToFloat(s[i]);
      break;
    }
    case Wire::Conv::kSignedToI128:
      if (type == weftInt8) Widen<int8_t, i128>(src, dst, n);
      if (type == weftInt32) Widen<int32_t, i128>(src, dst, n);
      if (type == weftInt64) Widen<int64_t, i128>(src, dst, n);
      break;
    case Wire::Conv::kUnsignedToU128:
      if (type == weftUint8) Widen<uint8_t, u128>(src, dst, n);
      if (type == weftUint32) Widen<uint32_t, u128>(src, dst, n);
      if (type == weftUint64) Widen<uint64_t, u128>(src, dst, n);
      break;
  }
}

void FromWire(const Wire& w, weftDataType_t type, const void* src, void* dst, size_t n,
              int nranks) {
  switch (w.conv) {
    case Wire::Conv::kNone:
      if (src != dst) std::memcpy(dst, src, n * w.size);
      if (w.divide) DivideFloats(dst, n, type, nranks);
      break;
    case Wire::Conv::kHalfToF32:
    case Wire::Conv::kBf16ToF32: {
      const float* s = static_cast<const float*>(src);
      auto* d = static_cast<uint16_t*>(dst);
      const bool half = w.conv == Wire::Conv::kHalfToF32;
      const float div = w.divide ? static_cast<float>(nranks) : 1.0f;
      for (size_t i = 0; i < n; ++i) {
        float v = w.divide ? s[i] / div : s[i];
        d[i] = half ? FloatToHalf(v) : FloatToBf16(v);
      }
      break;
    }
    case Wire::Conv::kSignedToI128:
      if (type == weftInt8) Narrow<int8_t, i128>(src, dst, n, nranks);
      if (type == weftInt32) Narrow<int32_t, i128>(src, dst, n, nranks);
      if (type == weftInt64) Narrow<int64_t, i128>(src, dst, n, nranks);
      break;
    case Wire::Conv::kUnsignedToU128:
      if (type == weftUint8) Narrow<uint8_t, u128>(src, dst, n, nranks);
      if (type == weftUint32) Narrow<uint32_t, u128>(src, dst, n, nranks);
      if (type == weftUint64) Narrow<uint64_t, u128>(src, dst, n, nranks);
      break;
  }
}

}  // namespace weft
