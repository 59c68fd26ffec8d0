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

// weft's own MPI ops (sum, prod, max, min), used where a library's built-in op is wrong.
struct UserOps {
  MPI_Op op[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  int err = MPI_SUCCESS;
};

UserOps g_ops;
std::once_flag g_ops_once;
std::atomic<bool> g_ops_ready{false};  // skips call_once on every call after the first

weftDataType_t TypeOfMpi(MPI_Datatype t) {
  for (int i = 0; i < weftNumTypes; ++i) {
    auto w = static_cast<weftDataType_t>(i);
    if (MpiTypeOf(w) == t) return w;
  }
  return weftInt8;  // unreachable: weft only passes MpiTypeOf types to its ops
}

template <weftRedOp_t kOp>
void UserOp(void* in, void* inout, int* len, MPI_Datatype* t) {
  ReduceInPlace(inout, in, static_cast<size_t>(*len), TypeOfMpi(*t), kOp);
}

int FreeOpsAtFinalize(MPI_Comm, int, void*, void*) {
  for (MPI_Op& op : g_ops.op) {
    if (op != MPI_OP_NULL) PMPI_Op_free(&op);
  }
  return MPI_SUCCESS;
}

void CreateOps() {
  int& e = g_ops.err;
  if (!e) e = PMPI_Op_create(&UserOp<weftSum>, 1, &g_ops.op[weftSum]);
  if (!e) e = PMPI_Op_create(&UserOp<weftProd>, 1, &g_ops.op[weftProd]);
  if (!e) e = PMPI_Op_create(&UserOp<weftMax>, 1, &g_ops.op[weftMax]);
  if (!e) e = PMPI_Op_create(&UserOp<weftMin>, 1, &g_ops.op[weftMin]);
  // MPI_Finalize deletes MPI_COMM_SELF's attributes first: free the ops there.
  int key = MPI_KEYVAL_INVALID;
  if (!e) e = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &FreeOpsAtFinalize, &key, nullptr);
  if (!e) e = PMPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
}

// Built-in ops that some MPI library in use gets wrong, measured on this project's machines:
// Open MPI 4.1.4's int8 Sum saturates instead of wrapping (uint8 and Prod take weft's op too,
// as a precaution: not measured failing), and MPICH 4.0.2
// compares MPI_UINT8_T, MPI_UINT32_T and MPI_UINT64_T as signed in Max and Min
// (min(2^63 + 1, 5) came back as 2^63 + 1). weft's own op is used for these whatever the
// library, so results never depend on it.
bool BuiltinIsWrong(weftDataType_t type, weftRedOp_t op) {
  const bool eight_bit = type == weftInt8 || type == weftUint8;
  const bool is_unsigned = type == weftUint8 || type == weftUint32 || type == weftUint64;
  return (eight_bit && (op == weftSum || op == weftProd)) ||
         (is_unsigned && (op == weftMax || op == weftMin));
}

// Integer Avg: each value v becomes two int64 words, lo = v mod 2^32 and hi = v >> 32
// (arithmetic for signed types), so MPI's built-in int64 Sum adds them without overflow
// for fewer than 2^31 ranks, and S = hi_sum * 2^32 + lo_sum is the exact sum.
template <typename T>
void Split(const void* src, void* dst, size_t n) {
  const T* s = static_cast<const T*>(src);
  int64_t* d = static_cast<int64_t*>(dst);
  for (size_t i = 0; i < n; ++i) {
    const i128 v = s[i];
    d[2 * i] = static_cast<int64_t>(v & 0xffffffff);
    d[2 * i + 1] = static_cast<int64_t>(v >> 32);
  }
}

// The mean, truncated toward zero (C division of the exact sum).
template <typename T>
void Join(const void* src, void* dst, size_t n, int nranks) {
  const int64_t* s = static_cast<const int64_t*>(src);
  T* d = static_cast<T*>(dst);
  for (size_t i = 0; i < n; ++i) {
    const i128 sum = static_cast<i128>(s[2 * i + 1]) * (i128{1} << 32) + s[2 * i];
    d[i] = static_cast<T>(sum / nranks);
  }
}

}  // namespace

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
    w->conv = Wire::Conv::kSplit64;
    w->type = MPI_INT64_T;
    w->per_elem = 2;
    w->size = 16;
    w->op = MPI_SUM;
    return weftSuccess;
  }
  w->type = MpiTypeOf(type);
  w->size = TypeSize(type);
  w->op = kBuiltin[op];
  if (BuiltinIsWrong(type, op)) w->op = g_ops.op[op];
  return weftSuccess;
}

void ToWire(const Wire& w, weftDataType_t type, const void* src, void* dst, size_t n) {
  switch (w.conv) {
    case Wire::Conv::kNone:
      std::memcpy(dst, src, n * w.size);
      break;
    case Wire::Conv::kHalfToF32:
    case Wire::Conv::kBf16ToF32: {
      const auto* s = static_cast<const uint16_t*>(src);
      float* d = static_cast<float*>(dst);
      const bool half = w.conv == Wire::Conv::kHalfToF32;
      for (size_t i = 0; i < n; ++i) d[i] = half ? HalfToFloat(s[i]) : Bf16ToFloat(s[i]);
      break;
    }
    case Wire::Conv::kSplit64:
      switch (type) {
        case weftInt8:
          Split<int8_t>(src, dst, n);
          break;
        case weftUint8:
          Split<uint8_t>(src, dst, n);
          break;
        case weftInt32:
          Split<int32_t>(src, dst, n);
          break;
        case weftUint32:
          Split<uint32_t>(src, dst, n);
          break;
        case weftInt64:
          Split<int64_t>(src, dst, n);
          break;
        default:
          Split<uint64_t>(src, dst, n);
          break;
      }
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
    case Wire::Conv::kSplit64:
      switch (type) {
        case weftInt8:
          Join<int8_t>(src, dst, n, nranks);
          break;
        case weftUint8:
          Join<uint8_t>(src, dst, n, nranks);
          break;
        case weftInt32:
          Join<int32_t>(src, dst, n, nranks);
          break;
        case weftUint32:
          Join<uint32_t>(src, dst, n, nranks);
          break;
        case weftInt64:
          Join<int64_t>(src, dst, n, nranks);
          break;
        default:
          Join<uint64_t>(src, dst, n, nranks);
          break;
      }
      break;
  }
}

}  // namespace weft
