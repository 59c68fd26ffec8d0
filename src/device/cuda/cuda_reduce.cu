// Element-wise k-way reduction kernels: one grid-stride loop per (type, op), reading up to
// kMaxSrcs sources per launch (more sources chain launches, accumulating into dst).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "device/cuda/cuda_reduce.h"

namespace weft::device {
namespace {

constexpr int kMaxSrcs = 8;

struct Srcs {
  const void* p[kMaxSrcs];
};

template <typename T>
struct Acc {
  using type = T;
};
template <>
struct Acc<__half> {
  using type = float;
};
template <>
struct Acc<__nv_bfloat16> {
  using type = float;
};

template <typename A>
__device__ A Apply(A a, A b, weftRedOp_t op) {
  switch (op) {
    case weftProd:
      return a * b;
    case weftMax:
      return a > b ? a : b;
    case weftMin:
      return a < b ? a : b;
    default:
      return a + b;
  }
}

template <typename T>
__device__ typename Acc<T>::type Load(const void* p, size_t i) {
  return static_cast<typename Acc<T>::type>(static_cast<const T*>(p)[i]);
}

template <typename T>
__global__ void ReduceKernel(T* dst, Srcs s, int k, size_t n, weftRedOp_t op) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    typename Acc<T>::type a = Load<T>(s.p[0], i);
    for (int j = 1; j < k; ++j) a = Apply(a, Load<T>(s.p[j], i), op);
    dst[i] = static_cast<T>(a);
  }
}

template <typename T>
cudaError_t Launch(void* dst, const void* const* srcs, int k, size_t n, weftRedOp_t op,
                   cudaStream_t stream) {
  const int threads = 256;
  const size_t want = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(want < 4096 ? (want == 0 ? 1 : want) : 4096);
  // The first launch reads up to kMaxSrcs sources; each later one folds dst with the next
  // kMaxSrcs - 1, so the order of operands is srcs[0], srcs[1], ... throughout.
  int done = 0;
  while (done < k) {
    Srcs s{};
    int m = 0;
    if (done > 0) s.p[m++] = dst;
    while (m < kMaxSrcs && done < k) s.p[m++] = srcs[done++];
    ReduceKernel<T><<<blocks, threads, 0, stream>>>(static_cast<T*>(dst), s, m, n, op);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace

cudaError_t LaunchReduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t t,
                         weftRedOp_t op, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case weftInt8:
      return Launch<int8_t>(dst, srcs, k, n, op, stream);
    case weftUint8:
      return Launch<uint8_t>(dst, srcs, k, n, op, stream);
    case weftInt32:
      return Launch<int32_t>(dst, srcs, k, n, op, stream);
    case weftUint32:
      return Launch<uint32_t>(dst, srcs, k, n, op, stream);
    case weftInt64:
      return Launch<int64_t>(dst, srcs, k, n, op, stream);
    case weftUint64:
      return Launch<uint64_t>(dst, srcs, k, n, op, stream);
    case weftFloat16:
      return Launch<__half>(dst, srcs, k, n, op, stream);
    case weftBfloat16:
      return Launch<__nv_bfloat16>(dst, srcs, k, n, op, stream);
    case weftFloat32:
      return Launch<float>(dst, srcs, k, n, op, stream);
    case weftFloat64:
      return Launch<double>(dst, srcs, k, n, op, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace weft::device
