// The emulated backend: host memory posing as device memory, so every device path runs and is
// tested on a CPU machine. Each allocation is a memfd mapped twice: the address handed out is
// mapped PROT_NONE (any direct host access to "device" memory faults, proving weft only
// touches it through this backend), the backend copies through a second, writable mapping.
// Copies can carry an injected latency and bandwidth cap (WEFT_EMULATED_COPY_*); streams are
// worker threads (emulated_stream.h). IPC handles name the memfd through /proc/<pid>/fd.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "comm/comm.h"
#include "core/dtype.h"
#include "core/params.h"
#include "device/backend.h"
#include "device/emulated/emulated_stream.h"
#include "exec/kway_reduce.h"

namespace weft::device {
namespace {

constexpr uint32_t kIpcMagic = 0x77656d75;  // "wemu"

struct Allocation {
  unsigned char* addr = nullptr;     // what callers see (PROT_NONE)
  unsigned char* backing = nullptr;  // what the backend reads and writes
  size_t size = 0, mapped = 0;
  int fd = -1;
  int device = 0;
  bool from_ipc = false;
  uint64_t serial = 0;  // unique per allocation in its process: fd numbers are reused
};

struct IpcBody {
  uint32_t magic;
  int32_t pid, fd, device;
  uint64_t size;
  uint64_t serial;  // a later allocation on a reused fd gets another handle
};
static_assert(sizeof(IpcBody) <= sizeof(IpcHandle::bytes));

class EmulatedBackend final : public Backend {
 public:
  EmulatedBackend() {
    const Params& p = GetParams();
    devices_ = static_cast<int>(p.WEFT_EMULATED_DEVICES);
    latency_ns_ = p.WEFT_EMULATED_COPY_LATENCY_US * 1000;
    gbps_ = static_cast<double>(p.WEFT_EMULATED_COPY_GBPS);
  }
  ~EmulatedBackend() override {
    for (auto& [base, a] : allocs_) Unmap(a);
  }

  const char* name() const override { return "emulated"; }
  Caps caps() const override { return Caps{true, true, false, true}; }
  int DeviceCount() const override { return devices_; }
  Status SetDevice(int device) override {
    if (device < 0 || device >= devices_) {
      return FailNoComm(weftInvalidArgument, "device %d does not exist (emulated backend has %d)",
                        device, devices_);
    }
    current_.store(device);
    return weftSuccess;
  }
  int CurrentDevice() const override { return current_.load(); }

  Status Alloc(size_t bytes, void** ptr) override {
    *ptr = nullptr;
    if (bytes == 0) return weftSuccess;
    Allocation a;
    a.fd = memfd_create("weft-emulated-device", MFD_CLOEXEC);
    if (a.fd < 0) return FailNoComm(weftSystemError, "emulated alloc: memfd_create failed");
    a.size = bytes;
    a.mapped = (bytes + 4095) / 4096 * 4096;
    a.device = current_.load();
    a.serial = next_serial_.fetch_add(1) + 1;
    if (ftruncate(a.fd, static_cast<off_t>(a.mapped)) != 0 || !Map(&a)) {
      close(a.fd);
      return FailNoComm(weftSystemError, "emulated alloc of %zu bytes failed", bytes);
    }
    *ptr = a.addr;
    std::unique_lock lock(mu_);
    allocs_[reinterpret_cast<uintptr_t>(a.addr)] = a;
    return weftSuccess;
  }
  Status Free(void* ptr) override {
    if (ptr == nullptr) return weftSuccess;
    Allocation a;
    {
      std::unique_lock lock(mu_);
      auto it = allocs_.find(reinterpret_cast<uintptr_t>(ptr));
      if (it == allocs_.end() || it->second.from_ipc) {
        return FailNoComm(weftInvalidArgument, "device free: %p is not an allocation's base", ptr);
      }
      a = it->second;
      allocs_.erase(it);
    }
    Unmap(a);
    return weftSuccess;
  }

  // The emulated "device-aware MPI": MPI gets the backing mapping, as a CUDA-aware MPI reaches
  // device memory by its own means; weft's code never sees the difference.
  bool MpiTakesDeviceMemory(const char** why) override {
    const bool yes = GetParams().WEFT_EMULATED_MPI_AWARE != 0;
    *why = yes ? "WEFT_EMULATED_MPI_AWARE=1" : "the emulated MPI is not device-aware by default";
    return yes;
  }
  void* MpiAddress(const void* ptr) override {
    std::shared_lock lock(mu_);
    const Allocation* a = Find(ptr);
    if (a == nullptr) return const_cast<void*>(ptr);
    return a->backing + (static_cast<const unsigned char*>(ptr) - a->addr);
  }
  Status HostAlloc(size_t bytes, void** ptr, bool* pinned) override {
    return PageableHostAlloc(bytes, ptr, pinned);  // nothing to pin
  }
  Status HostFree(void* ptr) override { return PageableHostFree(ptr); }
  Status Query(const void* ptr, PtrInfo* info) override {
    *info = PtrInfo{};
    std::shared_lock lock(mu_);
    const Allocation* a = Find(ptr);
    if (a != nullptr) *info = PtrInfo{MemKind::kDevice, a->device, a->addr, a->size};
    return weftSuccess;
  }

  Status Copy(void* dst, const void* src, size_t bytes) override {
    unsigned char *d = nullptr, *s = nullptr;
    bool device = false;
    WEFT_CHECK(Resolve(dst, bytes, &d, &device));
    WEFT_CHECK(Resolve(src, bytes, &s, &device));
    RunCopy(d, s, bytes, device);
    return weftSuccess;
  }
  Status CopyAsync(void* dst, const void* src, size_t bytes, Stream st) override {
    WEFT_CHECK(CheckStream(st));
    if (st == nullptr) return Copy(dst, src, bytes);
    unsigned char *d = nullptr, *s = nullptr;
    bool device = false;
    WEFT_CHECK(Resolve(dst, bytes, &d, &device));
    WEFT_CHECK(Resolve(src, bytes, &s, &device));
    static_cast<EmulatedStream*>(st)->Enqueue(
        [this, d, s, bytes, device] { RunCopy(d, s, bytes, device); });
    return weftSuccess;
  }

  Status StreamCreate(Stream* s) override {
    auto* st = new EmulatedStream();
    std::lock_guard lock(streams_mu_);
    streams_.insert(st);
    *s = st;
    return weftSuccess;
  }
  Status StreamDestroy(Stream s) override {
    if (s == nullptr) return FailNoComm(weftInvalidArgument, "stream destroy: stream is NULL");
    WEFT_CHECK(CheckStream(s));
    {
      std::lock_guard lock(streams_mu_);
      streams_.erase(static_cast<EmulatedStream*>(s));
    }
    delete static_cast<EmulatedStream*>(s);  // drains its queue first
    return weftSuccess;
  }
  Status StreamSync(Stream s) override {
    WEFT_CHECK(CheckStream(s));
    if (s != nullptr) {
      auto* st = static_cast<EmulatedStream*>(s);
      st->WaitFor(st->Tail());
    }
    return weftSuccess;
  }
  Status CheckStream(Stream s) override {
    if (s == nullptr) return weftSuccess;
    std::lock_guard lock(streams_mu_);
    if (streams_.count(static_cast<EmulatedStream*>(s)) == 0) {
      return FailNoComm(weftInvalidArgument,
                        "stream %p is not a stream of the emulated backend (create it with "
                        "weftStreamCreate)",
                        s);
    }
    return weftSuccess;
  }
  Status EventCreate(Event* e) override {
    *e = new EmulatedEvent();
    return weftSuccess;
  }
  Status EventDestroy(Event e) override {
    delete static_cast<EmulatedEvent*>(e);
    return weftSuccess;
  }
  Status EventRecord(Event e, Stream s) override {
    WEFT_CHECK(CheckStream(s));
    auto* ev = static_cast<EmulatedEvent*>(e);
    ev->stream = static_cast<EmulatedStream*>(s);
    ev->seq = s == nullptr ? 0 : ev->stream->Tail();
    return weftSuccess;
  }
  Status EventSync(Event e) override {
    auto* ev = static_cast<EmulatedEvent*>(e);
    if (ev->stream != nullptr) ev->stream->WaitFor(ev->seq);
    return weftSuccess;
  }
  Status StreamWaitEvent(Stream s, Event e) override {
    WEFT_CHECK(CheckStream(s));
    EmulatedEvent ev = *static_cast<EmulatedEvent*>(e);
    if (s == nullptr || ev.stream == nullptr) return EventSync(&ev);
    if (ev.stream != s)
      static_cast<EmulatedStream*>(s)->Enqueue([ev] { ev.stream->WaitFor(ev.seq); });
    return weftSuccess;
  }

  Status Reduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t t,
                weftRedOp_t op, Stream st) override {
    WEFT_CHECK(CheckStream(st));
    const size_t bytes = n * TypeSize(t);
    unsigned char* d = nullptr;
    bool device = false;
    WEFT_CHECK(Resolve(dst, bytes, &d, &device));
    std::vector<const void*> s(k);
    for (int i = 0; i < k; ++i) {
      unsigned char* p = nullptr;
      WEFT_CHECK(Resolve(srcs[i], bytes, &p, &device));
      s[i] = p;
    }
    auto work = [d, s, k, n, t, op] { KWayReduce(d, s.data(), k, n, t, op); };
    if (st == nullptr) {
      work();
    } else {
      static_cast<EmulatedStream*>(st)->Enqueue(work);
    }
    return weftSuccess;
  }

  Status IpcGet(void* ptr, IpcHandle* h) override {
    std::shared_lock lock(mu_);
    auto it = allocs_.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == allocs_.end() || it->second.from_ipc) {
      return FailNoComm(weftInvalidArgument, "IPC handle: %p is not an allocation's base", ptr);
    }
    IpcBody b{kIpcMagic,          static_cast<int32_t>(getpid()), it->second.fd,
              it->second.device, it->second.size,                 it->second.serial};
    std::memset(h->bytes, 0, sizeof(h->bytes));
    std::memcpy(h->bytes, &b, sizeof(b));
    return weftSuccess;
  }
  Status IpcOpen(const IpcHandle& h, void** ptr) override {
    IpcBody b;
    std::memcpy(&b, h.bytes, sizeof(b));
    if (b.magic != kIpcMagic) return FailNoComm(weftInvalidArgument, "IPC open: not a handle");
    std::string path = "/proc/" + std::to_string(b.pid) + "/fd/" + std::to_string(b.fd);
    Allocation a;
    a.fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (a.fd < 0) {
      return FailNoComm(weftSystemError, "IPC open: cannot open %s (peer gone or not permitted)",
                        path.c_str());
    }
    a.size = b.size;
    a.mapped = (b.size + 4095) / 4096 * 4096;
    a.device = b.device;
    a.from_ipc = true;
    a.serial = b.serial;
    if (!Map(&a)) {
      close(a.fd);
      return FailNoComm(weftSystemError, "IPC open: mapping %s failed", path.c_str());
    }
    std::unique_lock lock(mu_);
    allocs_[reinterpret_cast<uintptr_t>(a.addr)] = a;
    *ptr = a.addr;
    return weftSuccess;
  }
  Status IpcClose(void* ptr) override {
    Allocation a;
    {
      std::unique_lock lock(mu_);
      auto it = allocs_.find(reinterpret_cast<uintptr_t>(ptr));
      if (it == allocs_.end() || !it->second.from_ipc) {
        return FailNoComm(weftInvalidArgument, "IPC close: %p was not opened from a handle", ptr);
      }
      a = it->second;
      allocs_.erase(it);
    }
    Unmap(a);
    return weftSuccess;
  }

 private:
  static bool Map(Allocation* a) {
    void* addr = mmap(nullptr, a->mapped, PROT_NONE, MAP_SHARED, a->fd, 0);
    void* back = mmap(nullptr, a->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, a->fd, 0);
    if (addr == MAP_FAILED || back == MAP_FAILED) {
      if (addr != MAP_FAILED) munmap(addr, a->mapped);
      if (back != MAP_FAILED) munmap(back, a->mapped);
      return false;
    }
    a->addr = static_cast<unsigned char*>(addr);
    a->backing = static_cast<unsigned char*>(back);
    return true;
  }
  static void Unmap(const Allocation& a) {
    munmap(a.addr, a.mapped);
    munmap(a.backing, a.mapped);
    close(a.fd);
  }

  // The allocation whose mapping holds p (callers hold mu_).
  const Allocation* Find(const void* p) const {
    auto u = reinterpret_cast<uintptr_t>(p);
    auto it = allocs_.upper_bound(u);
    if (it == allocs_.begin()) return nullptr;
    --it;
    return u < it->first + it->second.mapped ? &it->second : nullptr;
  }

  // Where the backend may touch [p, p + bytes): the backing mapping for device memory, p itself
  // for host memory. Fails if the range runs past its device allocation.
  Status Resolve(const void* p, size_t bytes, unsigned char** out, bool* device) {
    std::shared_lock lock(mu_);
    const Allocation* a = Find(p);
    if (a == nullptr) {
      *out = static_cast<unsigned char*>(const_cast<void*>(p));
      return weftSuccess;
    }
    size_t off = static_cast<const unsigned char*>(p) - a->addr;
    if (off + bytes > a->size) {
      return FailNoComm(weftInvalidArgument,
                        "device buffer %p of %zu bytes runs past its allocation (%zu bytes at %p)",
                        p, bytes, a->size, static_cast<void*>(a->addr));
    }
    *out = a->backing + off;
    *device = true;
    return weftSuccess;
  }

  // One copy as a device would do it: the bytes move, and a copy touching device memory takes
  // at least latency + bytes / bandwidth (the injected cost; the wait sleeps, so it does not
  // take a core from the ranks).
  void RunCopy(unsigned char* d, const unsigned char* s, size_t bytes, bool device) const {
    auto start = std::chrono::steady_clock::now();
    if (bytes) std::memmove(d, s, bytes);
    if (!device || (latency_ns_ == 0 && gbps_ == 0)) return;
    double ns = static_cast<double>(latency_ns_);
    if (gbps_ > 0) ns += static_cast<double>(bytes) / gbps_;
    std::this_thread::sleep_until(start + std::chrono::nanoseconds(static_cast<int64_t>(ns)));
  }

  int devices_ = 0;
  int64_t latency_ns_ = 0;
  double gbps_ = 0;
  std::atomic<int> current_{0};
  std::atomic<uint64_t> next_serial_{0};
  mutable std::shared_mutex mu_;
  std::map<uintptr_t, Allocation> allocs_;
  std::mutex streams_mu_;
  std::set<EmulatedStream*> streams_;
};

}  // namespace

Backend* MakeEmulatedBackend() { return new EmulatedBackend(); }

}  // namespace weft::device
