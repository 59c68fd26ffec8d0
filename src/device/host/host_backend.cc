// The host backend: no devices. Every pointer is host memory and copies are memcpy; it keeps
// the device layer's interface total so callers need no "is there a backend" branches.
#include <cstring>

#include "comm/comm.h"
#include "device/backend.h"

namespace weft::device {
namespace {

class HostBackend final : public Backend {
 public:
  const char* name() const override { return "host"; }
  Caps caps() const override { return Caps{}; }
  int DeviceCount() const override { return 0; }
  Status SetDevice(int device) override {
    return FailNoComm(weftInvalidArgument, "device %d: the host backend has no devices", device);
  }
  int CurrentDevice() const override { return -1; }
  Status Alloc(size_t, void**) override { return NoDevices("device memory"); }
  Status Free(void*) override { return NoDevices("device memory"); }
  Status HostAlloc(size_t bytes, void** ptr, bool* pinned) override {
    return PageableHostAlloc(bytes, ptr, pinned);  // nothing to pin
  }
  Status HostFree(void* ptr) override { return PageableHostFree(ptr); }
  Status Query(const void*, PtrInfo* info) override {
    *info = PtrInfo{};
    return weftSuccess;
  }
  Status Copy(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memmove(dst, src, bytes);
    return weftSuccess;
  }
  Status CopyAsync(void* dst, const void* src, size_t bytes, Stream s) override {
    WEFT_CHECK(CheckStream(s));
    return Copy(dst, src, bytes);
  }
  Status StreamCreate(Stream*) override { return NoDevices("streams"); }
  Status StreamDestroy(Stream) override { return NoDevices("streams"); }
  Status StreamSync(Stream s) override { return CheckStream(s); }
  Status CheckStream(Stream s) override {
    if (s == nullptr) return weftSuccess;
    return FailNoComm(weftNotSupported,
                      "a stream was given but the device backend is host (no devices; set "
                      "WEFT_DEVICE or pass NULL for host buffers)");
  }
  Status EventCreate(Event*) override { return NoDevices("events"); }
  Status EventDestroy(Event) override { return NoDevices("events"); }
  Status EventRecord(Event, Stream) override { return NoDevices("events"); }
  Status EventSync(Event) override { return NoDevices("events"); }
  Status StreamWaitEvent(Stream, Event) override { return NoDevices("events"); }
  Status Reduce(void*, const void* const*, int, size_t, weftDataType_t, weftRedOp_t,
                Stream) override {
    return NoDevices("device reductions");
  }
  Status IpcGet(void*, IpcHandle*) override { return NoDevices("IPC handles"); }
  Status IpcOpen(const IpcHandle&, void**) override { return NoDevices("IPC handles"); }
  Status IpcClose(void*) override { return NoDevices("IPC handles"); }

 private:
  static Status NoDevices(const char* what) {
    return FailNoComm(weftNotSupported, "%s: the device backend is host (no devices)", what);
  }
};

}  // namespace

Backend* MakeHostBackend() { return new HostBackend(); }

}  // namespace weft::device
