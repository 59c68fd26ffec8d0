// Device buffers on the emulated backend (run with WEFT_DEVICE=emulated): the staging pool's
// reuse and cap, stream order, wrong pointers and streams rejected, persistent plans, IPC
// handles and the backend's reduce kernel. Links the internal library to reach the backend
// (allocating on another device, queueing slow work on a stream). --expect-init-error: only
// check that weftCommInitMPI fails with weftInvalidArgument (a bad WEFT_DEVICES).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core/params.h"
#include "device/backend.h"
#include "device/emulated/emulated_stream.h"
#include "device_buffers.h"
#include "mp_check.h"

namespace {

using mpt::AllEqual;
using mpt::DeviceFloats;
using mpt::Report;
using mpt::Why;

struct Ctx {
  weftComm_t comm;
  int rank, size;
  Report* report;
  weft::device::Backend* backend;
};

// A repeated call allocates nothing after the first, for every kind of layout.
void ZeroAllocationsAfterWarmup(Ctx& x) {
  const size_t n = (3u << 20) / sizeof(float) + 5;  // 3 MiB + odd: several 1 MiB chunks
  void* s = DeviceFloats(n * x.size, 1.0f);
  void* r = DeviceFloats(n * x.size, 0.0f);
  auto run = [&] {
    weftResult_t e = weftAllReduce(s, r, n, weftFloat, weftSum, x.comm, nullptr);
    if (e == weftSuccess) e = weftReduceScatter(s, r, n, weftFloat, weftSum, x.comm, nullptr);
    if (e == weftSuccess) e = weftAllGather(s, r, n, weftFloat, x.comm, nullptr);
    if (e == weftSuccess) e = weftAllToAll(s, r, n, weftFloat, x.comm, nullptr);
    if (e == weftSuccess) e = weftBroadcast(s, r, n, weftFloat, 0, x.comm, nullptr);
    return e;
  };
  weftResult_t e = run();
  weftStagingStats_t warm{}, after{};
  weftCommStagingStats(x.comm, &warm);
  for (int i = 0; i < 5 && e == weftSuccess; ++i) e = run();
  weftCommStagingStats(x.comm, &after);
  x.report->Case(e == weftSuccess, "repeated staged collectives", Why(e, x.comm));
  x.report->Case(warm.allocations > 0 && after.allocations == warm.allocations &&
                     after.held_bytes == warm.held_bytes,
                 "zero staging allocations after warm-up",
                 std::to_string(warm.allocations) + " allocations after warm-up, " +
                     std::to_string(after.allocations) + " after 5 more rounds");
  x.report->Case(AllEqual(r, 0, n, 1.0f), "broadcast result after the rounds", "wrong data");
  weftDeviceFree(s);
  weftDeviceFree(r);
}

// A communicator made with a small cap never keeps more than it after a larger call.
void CapHonoured(Ctx& x) {
  const size_t cap = 1 << 20;
  setenv("WEFT_STAGING_CACHE_MAX", std::to_string(cap).c_str(), 1);
  weft::ReloadParams();
  weftComm_t small = nullptr;
  weftResult_t e = weftCommInitMPI(&small, MPI_COMM_WORLD);
  unsetenv("WEFT_STAGING_CACHE_MAX");
  weft::ReloadParams();
  x.report->Case(e == weftSuccess, "comm with a 1 MiB staging cap", Why(e, nullptr));
  if (e != weftSuccess) return;
  const size_t n = (8u << 20) / sizeof(float);  // 8 MiB: slots of 6 MiB in all
  void* d = DeviceFloats(n, 2.0f);
  e = weftAllReduce(d, d, n, weftFloat, weftSum, small, nullptr);
  weftStagingStats_t st{};
  weftCommStagingStats(small, &st);
  x.report->Case(e == weftSuccess && AllEqual(d, 0, n, 2.0f * x.size),
                 "allreduce larger than the cap", Why(e, small));
  x.report->Case(st.held_bytes <= cap && st.idle_bytes <= cap && st.frees > 0,
                 "pool within its cap after a larger call",
                 "holds " + std::to_string(st.held_bytes) + " bytes, cap " + std::to_string(cap));
  weftDeviceFree(d);
  weftCommDestroy(small);
}

// Inputs produced by slow work already on the stream are what the collective reads, and
// work queued after it sees the result.
void StreamOrder(Ctx& x) {
  weftStream_t st = nullptr;
  weftResult_t e = weftStreamCreate(&st);
  x.report->Case(e == weftSuccess, "stream create", Why(e, nullptr));
  if (e != weftSuccess) return;
  const size_t n = 300000;
  void* d = DeviceFloats(n, 0.0f);
  std::vector<float> src(n, static_cast<float>(x.rank + 1)), back(n, -1.0f);
  auto* es = static_cast<weft::device::EmulatedStream*>(st);
  es->Enqueue([] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  bool ok = x.backend->CopyAsync(d, src.data(), n * sizeof(float), st) == weftSuccess;
  e = weftAllReduce(d, d, n, weftFloat, weftSum, x.comm, st);
  ok &= x.backend->CopyAsync(back.data(), d, n * sizeof(float), st) == weftSuccess;
  ok &= weftStreamSynchronize(st) == weftSuccess;
  const float want = x.size * (x.size + 1) / 2.0f;
  size_t wrong = 0;
  for (float v : back) wrong += v != want;
  x.report->Case(e == weftSuccess && ok && wrong == 0, "collective ordered on its stream",
                 e != weftSuccess ? Why(e, x.comm) : std::to_string(wrong) + " wrong");

  // Host buffers on a stream: the stream's pending copy into them lands first.
  std::vector<float> hs(n, 0.0f), hr(n, 0.0f);
  es->Enqueue([] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  ok = x.backend->CopyAsync(hs.data(), src.data(), n * sizeof(float), st) == weftSuccess;
  e = weftAllReduce(hs.data(), hr.data(), n, weftFloat, weftSum, x.comm, st);
  wrong = 0;
  for (float v : hr) wrong += v != want;
  x.report->Case(e == weftSuccess && ok && wrong == 0, "host buffers wait for their stream",
                 e != weftSuccess ? Why(e, x.comm) : std::to_string(wrong) + " wrong");
  weftDeviceFree(d);
  weftStreamDestroy(st);
}

void Expect(Ctx& x, weftResult_t got, weftResult_t want, const std::string& name,
            const std::string& must_say) {
  std::string text = weftGetLastError(x.comm);
  x.report->Case(got == want && text.find(must_say) != std::string::npos, name,
                 std::string("got ") + weftGetErrorString(got) + ": " + text);
}

void BadPointers(Ctx& x) {
  void* d = DeviceFloats(100, 1.0f);
  Expect(x, weftAllReduce(d, d, 200, weftFloat, weftSum, x.comm, nullptr), weftInvalidArgument,
         "device buffer past its allocation", "allocation");
  int stream_dummy = 0;
  Expect(x, weftAllReduce(d, d, 100, weftFloat, weftSum, x.comm, &stream_dummy),
         weftInvalidArgument, "a stream the backend did not make", "stream");
  int mine = -1, count = 0;
  weftCommDevice(x.comm, &mine);
  weftDeviceCount(&count);
  if (count > 1) {
    void* other = nullptr;
    bool ok = x.backend->SetDevice((mine + 1) % count) == weftSuccess &&
              x.backend->Alloc(400, &other) == weftSuccess &&
              x.backend->SetDevice(mine) == weftSuccess;
    x.report->Case(ok, "allocate on another device", weftGetLastError(nullptr));
    Expect(x, weftAllReduce(other, d, 100, weftFloat, weftSum, x.comm, nullptr),
           weftInvalidArgument, "buffer of another device", "bound to device");
    weftDeviceFree(other);
  }
  weftDeviceFree(d);
}

void DevicePlan(Ctx& x) {
  const size_t n = 1000;
  void* s = DeviceFloats(n, 3.0f);
  void* r = DeviceFloats(n, 0.0f);
  weftPlan_t plan = nullptr;
  weftResult_t e = weftAllReduceInit(s, r, n, weftFloat, weftMax, x.comm, &plan);
  for (int i = 0; i < 2 && e == weftSuccess; ++i) {
    e = weftPlanStart(plan, nullptr);
    if (e == weftSuccess) e = weftPlanWait(plan);
  }
  char text[512] = {0};
  if (plan) weftPlanDescribe(plan, text, sizeof(text), nullptr);
  x.report->Case(e == weftSuccess && AllEqual(r, 0, n, 3.0f), "plan on device buffers",
                 Why(e, x.comm));
  x.report->Case(std::string(text).find("staged") != std::string::npos, "plan says it stages",
                 text);
  if (plan) weftPlanFree(plan);
  weftDeviceFree(s);
  weftDeviceFree(r);
}

// Each rank opens its right neighbour's allocation through an IPC handle and reads it.
void Ipc(Ctx& x) {
  const size_t n = 1024;
  void* d = DeviceFloats(n, 10.0f + x.rank);
  weft::device::IpcHandle mine{}, right{};
  bool ok = x.backend->IpcGet(d, &mine) == weftSuccess;
  const int to = (x.rank + x.size - 1) % x.size, from = (x.rank + 1) % x.size;
  MPI_Sendrecv(&mine, sizeof(mine), MPI_BYTE, to, 7, &right, sizeof(right), MPI_BYTE, from, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  void* peer = nullptr;
  ok = ok && x.backend->IpcOpen(right, &peer) == weftSuccess;
  ok = ok && AllEqual(peer, 0, n, 10.0f + from) && x.backend->IpcClose(peer) == weftSuccess;
  x.report->Case(ok, "IPC handle of a peer's allocation", weftGetLastError(nullptr));
  MPI_Barrier(MPI_COMM_WORLD);  // the peer keeps its allocation until every reader is done
  weftDeviceFree(d);
}

void ReduceKernel(Ctx& x) {
  const size_t n = 777;
  void* a = DeviceFloats(n, 1.5f);
  void* b = DeviceFloats(n, 2.0f);
  const void* srcs[3] = {a, b, a};
  bool ok = x.backend->Reduce(b, srcs, 3, n, weftFloat, weftSum, nullptr) == weftSuccess;
  x.report->Case(ok && AllEqual(b, 0, n, 5.0f), "backend reduce kernel (dst is a source)",
                 weftGetLastError(nullptr));
  weftDeviceFree(a);
  weftDeviceFree(b);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Report report(MPI_COMM_WORLD);
  Ctx x{nullptr, 0, 0, &report, nullptr};
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.size);
  weftResult_t r = weftCommInitMPI(&x.comm, MPI_COMM_WORLD);
  if (argc > 1 && std::string(argv[1]) == "--expect-init-error") {
    std::string text = weftGetLastError(nullptr);
    report.Case(r == weftInvalidArgument && text.find("does not exist") != std::string::npos,
                "a device id the backend lacks is refused", Why(r, nullptr));
    if (r == weftSuccess) weftCommDestroy(x.comm);
  } else {
    report.Case(r == weftSuccess, "weftCommInitMPI", Why(r, nullptr));
    const char* name = "";
    weftDeviceBackend(&name);
    report.Case(std::string(name) == "emulated", "backend is emulated (WEFT_DEVICE=emulated)",
                name);
    if (r == weftSuccess && std::string(name) == "emulated" &&
        weft::device::GetBackend(&x.backend) == weftSuccess) {
      ZeroAllocationsAfterWarmup(x);
      CapHonoured(x);
      StreamOrder(x);
      BadPointers(x);
      DevicePlan(x);
      Ipc(x);
      ReduceKernel(x);
      weftCommDestroy(x.comm);
    }
  }
  int rc = report.Finish("device_test");
  MPI_Finalize();
  return rc;
}
