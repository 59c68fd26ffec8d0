// Device helpers of the C API: memory, copies and streams of the active backend, and a
// communicator's device and staging counters.
#include "capi/guard.h"
#include "device/backend.h"
#include "device/comm_device.h"
#include "weft/weft.h"

namespace weft {
namespace {

// The active backend, or the reason there is none recorded for the caller.
Status Backend(const char* fn, device::Backend** b) {
  if (device::GetBackend(b) != weftSuccess) {
    return FailNoComm(weftInvalidArgument, "%s: %s", fn, ThreadLastError());
  }
  return weftSuccess;
}

// Runs one backend call; its failure text gets the API name in front.
Status Call(const char* fn, Status s) {
  if (s == weftSuccess) return s;
  std::string why = ThreadLastError();
  return FailNoComm(s, "%s: %s", fn, why.c_str());
}

}  // namespace
}  // namespace weft

using weft::Guarded;
using weft::device::Backend;

extern "C" {

weftResult_t weftDeviceBackend(const char** name) {
  return Guarded("weftDeviceBackend", [&]() -> weftResult_t {
    if (name == nullptr) return weft::FailNoComm(weftInvalidArgument, "weftDeviceBackend: NULL");
    Backend* b = nullptr;
    weftResult_t s = weft::device::GetBackend(&b);
    *name = b->name();
    return s;
  });
}

weftResult_t weftDeviceCount(int* count) {
  return Guarded("weftDeviceCount", [&]() -> weftResult_t {
    if (count == nullptr) return weft::FailNoComm(weftInvalidArgument, "weftDeviceCount: NULL");
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftDeviceCount", &b));
    *count = b->DeviceCount();
    return weftSuccess;
  });
}

weftResult_t weftDeviceMalloc(void** ptr, size_t bytes) {
  return Guarded("weftDeviceMalloc", [&]() -> weftResult_t {
    if (ptr == nullptr)
      return weft::FailNoComm(weftInvalidArgument, "weftDeviceMalloc: ptr is NULL");
    *ptr = nullptr;
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftDeviceMalloc", &b));
    return weft::Call("weftDeviceMalloc", b->Alloc(bytes, ptr));
  });
}

weftResult_t weftDeviceFree(void* ptr) {
  return Guarded("weftDeviceFree", [&]() -> weftResult_t {
    if (ptr == nullptr) return weftSuccess;
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftDeviceFree", &b));
    return weft::Call("weftDeviceFree", b->Free(ptr));
  });
}

weftResult_t weftDeviceMemcpy(void* dst, const void* src, size_t bytes) {
  return Guarded("weftDeviceMemcpy", [&]() -> weftResult_t {
    if (bytes > 0 && (dst == nullptr || src == nullptr))
      return weft::FailNoComm(weftInvalidArgument, "weftDeviceMemcpy: NULL buffer");
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftDeviceMemcpy", &b));
    return weft::Call("weftDeviceMemcpy", b->Copy(dst, src, bytes));
  });
}

weftResult_t weftStreamCreate(weftStream_t* stream) {
  return Guarded("weftStreamCreate", [&]() -> weftResult_t {
    if (stream == nullptr) return weft::FailNoComm(weftInvalidArgument, "weftStreamCreate: NULL");
    *stream = nullptr;
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftStreamCreate", &b));
    return weft::Call("weftStreamCreate", b->StreamCreate(stream));
  });
}

weftResult_t weftStreamDestroy(weftStream_t stream) {
  return Guarded("weftStreamDestroy", [&]() -> weftResult_t {
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftStreamDestroy", &b));
    return weft::Call("weftStreamDestroy", b->StreamDestroy(stream));
  });
}

weftResult_t weftStreamSynchronize(weftStream_t stream) {
  return Guarded("weftStreamSynchronize", [&]() -> weftResult_t {
    Backend* b = nullptr;
    WEFT_CHECK(weft::Backend("weftStreamSynchronize", &b));
    return weft::Call("weftStreamSynchronize", b->StreamSync(stream));
  });
}

weftResult_t weftCommDevice(const weftComm_t comm, int* device) {
  return Guarded("weftCommDevice", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommDevice", comm));
    if (device == nullptr) return comm->Fail(weftInvalidArgument, "weftCommDevice: device is NULL");
    *device = comm->device->binding().device;
    return weftSuccess;
  });
}

weftResult_t weftCommStagingStats(const weftComm_t comm, weftStagingStats_t* stats) {
  return Guarded("weftCommStagingStats", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommStagingStats", comm));
    if (stats == nullptr)
      return comm->Fail(weftInvalidArgument, "weftCommStagingStats: stats is NULL");
    weft::device::StagingStats s = comm->device->pool().stats();
    *stats = weftStagingStats_t{s.held_bytes,
                                s.idle_bytes,
                                s.allocations,
                                s.frees,
                                s.pinned,
                                comm->device->direct_calls,
                                comm->device->ipc_calls,
                                comm->device->nccl_calls};
    return weftSuccess;
  });
}

}  // extern "C"
