// The device layer: everything weft does with accelerator memory goes through one Backend
// (alloc, copies, pointer queries, streams and events, reduce kernels, IPC handles). The
// active backend is chosen once per process (WEFT_DEVICE); adding a vendor is one folder that
// implements this interface and registers a factory in backend.cc (docs/devices.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/status.h"

namespace weft::device {

/// Where a pointer lives.
enum class MemKind { kHost, kDevice };

/// What Backend::Query knows about a pointer. For device memory, base/size describe the whole
/// allocation that holds it (so a buffer running past its allocation is caught).
struct PtrInfo {
  MemKind kind = MemKind::kHost;
  int device = -1;
  const void* base = nullptr;
  size_t size = 0;
};

/// A backend's stream handle; nullptr is the backend's default stream (work on it completes
/// before the call that issued it returns).
using Stream = void*;
/// A point in a stream's work; complete once everything enqueued before it has run.
using Event = void*;

/// Opaque bytes that name device memory to another process on the same node.
struct IpcHandle {
  unsigned char bytes[64];
};

/// What a backend can do; lowering and routing pick paths from these, never from its name.
struct Caps {
  bool device_memory = false;  // has devices at all (false: the host backend)
  bool async_copies = false;   // CopyAsync overlaps with the host
  bool pinned_host = false;    // HostAlloc returns page-locked memory
  bool ipc = false;            // IpcGet/IpcOpen work between processes of a node
  bool nccl = false;           // NCCL takes its device memory and streams (the NCCL path)
};

/// One accelerator runtime. Every method returns a Status and, on failure, records the text
/// in the thread's last error (FailNoComm); none throws or aborts.
class Backend {
 public:
  virtual ~Backend() = default;
  /// Short name: "host", "emulated", "cuda".
  virtual const char* name() const = 0;
  virtual Caps caps() const = 0;
  /// Devices visible to this process (0 for host).
  virtual int DeviceCount() const = 0;
  /// Makes `device` current for this process's later allocations and kernels.
  [[nodiscard]] virtual Status SetDevice(int device) = 0;
  /// The current device (-1 for host).
  virtual int CurrentDevice() const = 0;

  [[nodiscard]] virtual Status Alloc(size_t bytes, void** ptr) = 0;
  [[nodiscard]] virtual Status Free(void* ptr) = 0;
  /// Host memory for staging: pinned where the backend can (*pinned says so).
  [[nodiscard]] virtual Status HostAlloc(size_t bytes, void** ptr, bool* pinned) = 0;
  [[nodiscard]] virtual Status HostFree(void* ptr) = 0;
  /// Classifies ptr. Memory the backend does not know is host memory.
  [[nodiscard]] virtual Status Query(const void* ptr, PtrInfo* info) = 0;

  /// Copies bytes in any direction and returns when done (ordered after the default stream).
  [[nodiscard]] virtual Status Copy(void* dst, const void* src, size_t bytes) = 0;
  /// Enqueues a copy on stream s.
  [[nodiscard]] virtual Status CopyAsync(void* dst, const void* src, size_t bytes, Stream s) = 0;
  [[nodiscard]] virtual Status StreamCreate(Stream* s) = 0;
  [[nodiscard]] virtual Status StreamDestroy(Stream s) = 0;
  [[nodiscard]] virtual Status StreamSync(Stream s) = 0;
  /// weftInvalidArgument unless s is nullptr or a stream this backend created.
  [[nodiscard]] virtual Status CheckStream(Stream s) = 0;
  [[nodiscard]] virtual Status EventCreate(Event* e) = 0;
  [[nodiscard]] virtual Status EventDestroy(Event e) = 0;
  /// Marks the current end of s's work in e.
  [[nodiscard]] virtual Status EventRecord(Event e, Stream s) = 0;
  /// Blocks the host until e is complete.
  [[nodiscard]] virtual Status EventSync(Event e) = 0;
  /// Later work on s waits for e (the host does not block).
  [[nodiscard]] virtual Status StreamWaitEvent(Stream s, Event e) = 0;

  /// dst[i] = op over srcs[0..k)[i] for n elements of type t, on device memory, enqueued on s
  /// (fp16/bf16 accumulate in fp32). dst may be one of srcs.
  [[nodiscard]] virtual Status Reduce(void* dst, const void* const* srcs, int k, size_t n,
                                      weftDataType_t t, weftRedOp_t op, Stream s) = 0;

  /// A handle for the allocation holding ptr (which must be a device allocation's base).
  [[nodiscard]] virtual Status IpcGet(void* ptr, IpcHandle* h) = 0;
  /// Maps a peer's allocation; *ptr is a device pointer valid until IpcClose.
  [[nodiscard]] virtual Status IpcOpen(const IpcHandle& h, void** ptr) = 0;
  [[nodiscard]] virtual Status IpcClose(void* ptr) = 0;

  /// Whether the process's MPI library reads and writes this backend's device memory in its
  /// own routines (a CUDA-aware MPI and the like), as that library reports it; *why says what
  /// answered. Asked once per communicator, after MPI_Init. Default: no.
  virtual bool MpiTakesDeviceMemory(const char** why) {
    *why = "the backend has no query for its MPI's device support";
    return false;
  }
  /// The address to give such an MPI for memory at ptr: ptr itself for a real device-aware
  /// MPI (the default); the emulated backend gives its host view of emulated device memory.
  virtual void* MpiAddress(const void* ptr) { return const_cast<void*>(ptr); }
};

/// The process's backend, created at first use from WEFT_DEVICE (auto: cuda when built and a
/// device is present, else host). When WEFT_DEVICE names a backend that is not built or not
/// usable, every call fails the same way (weftInvalidArgument / weftUnhandledDeviceError) and
/// *out is the host backend.
[[nodiscard]] Status GetBackend(Backend** out);
/// True when the named backend is compiled into this build.
bool Built(const char* name);
/// Names of the backends compiled in, comma separated ("host,emulated,cuda").
const char* BuiltNames();

/// Page-aligned plain host memory (staging for backends that cannot pin).
[[nodiscard]] Status PageableHostAlloc(size_t bytes, void** ptr, bool* pinned);
/// Frees PageableHostAlloc's memory.
Status PageableHostFree(void* ptr);

// Factories, one per backend folder (nullptr when the runtime is unusable; *why says why).
Backend* MakeHostBackend();
Backend* MakeEmulatedBackend();
Backend* MakeCudaBackend(const char** why);

}  // namespace weft::device
