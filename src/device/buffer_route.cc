#include "device/buffer_route.h"

#include "comm/comm.h"
#include "core/dtype.h"
#include "core/hot_path.h"
#include "device/comm_device.h"

namespace weft::device {
namespace {

Status Classify(Comm& comm, const char* fn, const char* which, const void* p, size_t bytes,
                bool* device) {
  *device = false;
  if (bytes == 0 || p == nullptr) return weftSuccess;
  CommDevice& dev = *comm.device;
  PtrInfo info;
  if (dev.backend().Query(p, &info) != weftSuccess) {
    return comm.Fail(weftUnhandledDeviceError, "%s: %s", fn, ThreadLastError());
  }
  if (info.kind == MemKind::kHost) return weftSuccess;
  if (info.device != dev.binding().device) {
    return comm.Fail(weftInvalidArgument,
                     "%s: %s %p is memory of device %d but this communicator is bound to device "
                     "%d",
                     fn, which, p, info.device, dev.binding().device);
  }
  auto begin = static_cast<const unsigned char*>(p);
  auto base = static_cast<const unsigned char*>(info.base);
  if (info.size > 0 && begin + bytes > base + info.size) {
    return comm.Fail(weftInvalidArgument,
                     "%s: %s %p needs %zu bytes but its device allocation ends %zu bytes after it",
                     fn, which, p, bytes, static_cast<size_t>(base + info.size - begin));
  }
  *device = true;
  return weftSuccess;
}

}  // namespace

WEFT_HOT Status RouteBuffers(Comm& comm, const CollArgs& a, BufferRoute* out) {
  *out = BufferRoute{};
  if (!comm.device->device_memory()) return weftSuccess;
  const char* fn = CollApiName(a.kind);
  Extents e;
  if (!ComputeExtents(comm, a, TypeSize(a.type), &e)) return weftInternalError;  // validated
  WEFT_CHECK(Classify(comm, fn, "sendbuff", a.send, e.send, &out->send_device));
  WEFT_CHECK(Classify(comm, fn, "recvbuff", a.recv, e.recv, &out->recv_device));
  return weftSuccess;
}

}  // namespace weft::device
