// The CUDA backend: the CUDA runtime for memory, copies, streams, events and IPC handles, and
// the kernels of cuda_reduce.cu. Built when nvcc is found (WEFT_WITH_CUDA); a process without
// a usable GPU gets the host backend instead (auto) or a clear error (WEFT_DEVICE=cuda).
#include <cuda.h>  // driver types only: the driver is reached through the runtime
#include <cuda_runtime.h>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_Query_cuda_support, where Open MPI built its CUDA extension
#endif

#include <cstring>
#include <mutex>
#include <set>

#include "comm/comm.h"
#include "core/build_config.h"
#include "device/backend.h"
#include "device/cuda/cuda_reduce.h"

namespace weft::device {
namespace {

static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(IpcHandle::bytes));

// cuMemGetAddressRange, found through the runtime's driver entry point (so libweft does not
// link libcuda and still loads where no driver is installed); null when unavailable.
using AddressRangeFn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
AddressRangeFn AddressRange() {
  static const AddressRangeFn fn = [] {
    void* p = nullptr;
#if CUDART_VERSION >= 12050
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      p = nullptr;
    }
#endif
    return reinterpret_cast<AddressRangeFn>(p);
  }();
  return fn;
}

Status Check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return weftSuccess;
  return FailNoComm(weftUnhandledDeviceError, "%s: %s (%s)", what, cudaGetErrorString(e),
                    cudaGetErrorName(e));
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int count) : count_(count) {}
  const char* name() const override { return "cuda"; }
  Caps caps() const override { return Caps{true, true, true, true, WEFT_WITH_NCCL_BUILT != 0}; }
  int DeviceCount() const override { return count_; }
  Status SetDevice(int device) override {
    if (device < 0 || device >= count_) {
      return FailNoComm(weftInvalidArgument, "device %d does not exist (this node has %d GPUs)",
                        device, count_);
    }
    return Check(cudaSetDevice(device), "cudaSetDevice");
  }
  int CurrentDevice() const override {
    int d = -1;
    return cudaGetDevice(&d) == cudaSuccess ? d : -1;
  }
  Status Alloc(size_t bytes, void** ptr) override {
    *ptr = nullptr;
    return bytes == 0 ? weftSuccess : Check(cudaMalloc(ptr, bytes), "cudaMalloc");
  }
  Status Free(void* ptr) override { return Check(cudaFree(ptr), "cudaFree"); }
  Status HostAlloc(size_t bytes, void** ptr, bool* pinned) override {
    *pinned = true;
    return Check(cudaHostAlloc(ptr, bytes, cudaHostAllocPortable), "cudaHostAlloc");
  }
  Status HostFree(void* ptr) override { return Check(cudaFreeHost(ptr), "cudaFreeHost"); }
  Status Query(const void* ptr, PtrInfo* info) override {
    *info = PtrInfo{};
    cudaPointerAttributes a{};
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) {
      cudaGetLastError();  // unregistered host memory on old runtimes: not an error
      return weftSuccess;
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) return weftSuccess;
    info->kind = MemKind::kDevice;
    info->device = a.device;
    // The allocation's bounds (buffers running past it are refused; IPC handles name whole
    // allocations); size 0 = unknown, where the driver entry point is not available.
    info->base = ptr;
    info->size = 0;
    CUdeviceptr base = 0;
    size_t size = 0;
    if (AddressRangeFn range = AddressRange();
        range != nullptr &&
        range(&base, &size, reinterpret_cast<CUdeviceptr>(ptr)) == CUDA_SUCCESS) {
      info->base = reinterpret_cast<const void*>(base);
      info->size = size;
    }
    return weftSuccess;
  }
  Status Copy(void* dst, const void* src, size_t bytes) override {
    return Check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
  }
  Status CopyAsync(void* dst, const void* src, size_t bytes, Stream s) override {
    return Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(s)),
                 "cudaMemcpyAsync");
  }
  Status StreamCreate(Stream* s) override {
    cudaStream_t st = nullptr;
    WEFT_CHECK(Check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate"));
    *s = st;
    return weftSuccess;
  }
  Status StreamDestroy(Stream s) override {
    return Check(cudaStreamDestroy(static_cast<cudaStream_t>(s)), "cudaStreamDestroy");
  }
  Status StreamSync(Stream s) override {
    return Check(cudaStreamSynchronize(static_cast<cudaStream_t>(s)), "cudaStreamSynchronize");
  }
  Status CheckStream(Stream s) override {
    // Any cudaStream_t of the user's is valid; querying it catches a destroyed or foreign one.
    if (s == nullptr) return weftSuccess;
    cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(s));
    if (e == cudaSuccess || e == cudaErrorNotReady) return weftSuccess;
    cudaGetLastError();
    return FailNoComm(weftInvalidArgument, "stream %p is not a CUDA stream: %s", s,
                      cudaGetErrorString(e));
  }
  Status EventCreate(Event* e) override {
    cudaEvent_t ev = nullptr;
    WEFT_CHECK(Check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate"));
    *e = ev;
    return weftSuccess;
  }
  Status EventDestroy(Event e) override {
    return Check(cudaEventDestroy(static_cast<cudaEvent_t>(e)), "cudaEventDestroy");
  }
  Status EventRecord(Event e, Stream s) override {
    return Check(cudaEventRecord(static_cast<cudaEvent_t>(e), static_cast<cudaStream_t>(s)),
                 "cudaEventRecord");
  }
  Status EventSync(Event e) override {
    return Check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize");
  }
  Status StreamWaitEvent(Stream s, Event e) override {
    return Check(cudaStreamWaitEvent(static_cast<cudaStream_t>(s), static_cast<cudaEvent_t>(e), 0),
                 "cudaStreamWaitEvent");
  }
  Status Reduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t t,
                weftRedOp_t op, Stream s) override {
    return Check(LaunchReduce(dst, srcs, k, n, t, op, static_cast<cudaStream_t>(s)),
                 "reduce kernel");
  }
  Status IpcGet(void* ptr, IpcHandle* h) override {
    cudaIpcMemHandle_t m;
    WEFT_CHECK(Check(cudaIpcGetMemHandle(&m, ptr), "cudaIpcGetMemHandle"));
    std::memset(h->bytes, 0, sizeof(h->bytes));
    std::memcpy(h->bytes, &m, sizeof(m));
    return weftSuccess;
  }
  Status IpcOpen(const IpcHandle& h, void** ptr) override {
    cudaIpcMemHandle_t m;
    std::memcpy(&m, h.bytes, sizeof(m));
    return Check(cudaIpcOpenMemHandle(ptr, m, cudaIpcMemLazyEnablePeerAccess),
                 "cudaIpcOpenMemHandle");
  }
  Status IpcClose(void* ptr) override {
    return Check(cudaIpcCloseMemHandle(ptr), "cudaIpcCloseMemHandle");
  }

  bool MpiTakesDeviceMemory(const char** why) override {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    // 1 only when Open MPI was built with CUDA and its runtime supports CUDA buffers.
    const bool yes = MPIX_Query_cuda_support() == 1;
    *why = yes ? "MPIX_Query_cuda_support() = 1" : "MPIX_Query_cuda_support() = 0";
    return yes;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    // MPICH 4: built with CUDA and GPU support enabled at run time (MPIR_CVAR_ENABLE_GPU).
    int yes = 0;
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) != MPI_SUCCESS) yes = 0;
    *why = yes ? "MPIX_GPU_query_support(CUDA) = 1" : "MPIX_GPU_query_support(CUDA) = 0";
    return yes != 0;
#else
    *why = "this MPI library has no query for CUDA support (WEFT_MPI_DEVICE=1 trusts that it has)";
    return false;
#endif
  }

 private:
  int count_;
};

}  // namespace

Backend* MakeCudaBackend(const char** why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device";
    return nullptr;
  }
  return new CudaBackend(count);
}

}  // namespace weft::device
