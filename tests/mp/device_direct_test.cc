// The GPU-aware MPI path on the emulated backend (run with WEFT_DEVICE=emulated and
// WEFT_EMULATED_MPI_AWARE=1): large calls on device buffers go to MPI directly (counted by
// weftCommStagingStats' direct_calls, no staging allocation), calls whose native program has a
// host pass (Avg, in-place reduce_scatter off rank 0) and one-hop calls still stage, a host
// rank joins a device rank's direct call, the user's stream is waited for, plans go direct,
// and WEFT_MPI_DEVICE=0 turns it off. Every result is checked.
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/params.h"
#include "device/backend.h"
#include "device/emulated/emulated_stream.h"
#include "mp_check.h"

namespace {

using mpt::Report;

struct Ctx {
  weftComm_t comm;
  int rank, size;
  Report* report;
};

constexpr size_t kBig = (3u << 20) / sizeof(float) + 5;  // several 1 MiB staging chunks, odd

std::string Why(weftResult_t r, weftComm_t c) {
  return std::string(weftGetErrorString(r)) + ": " + weftGetLastError(c);
}

void* DeviceFloats(size_t n, float fill) {
  void* d = nullptr;
  if (weftDeviceMalloc(&d, n * sizeof(float)) != weftSuccess) return nullptr;
  std::vector<float> h(n, fill);
  if (weftDeviceMemcpy(d, h.data(), n * sizeof(float)) != weftSuccess) return nullptr;
  return d;
}

// Elements [from, from + n) of a device buffer all equal want.
bool AllEqual(const void* dev, size_t from, size_t n, float want) {
  std::vector<float> h(from + n);
  if (weftDeviceMemcpy(h.data(), dev, h.size() * sizeof(float)) != weftSuccess) return false;
  for (size_t i = from; i < from + n; ++i) {
    if (h[i] != want) return false;
  }
  return true;
}

weftStagingStats_t Stats(weftComm_t c) {
  weftStagingStats_t s{};
  weftCommStagingStats(c, &s);
  return s;
}

// Runs call on comm c; checks its result and whether it went direct (always staged at 1 rank).
void Expect(Ctx& x, weftComm_t c, const std::string& name, bool direct,
            const std::function<weftResult_t()>& call, const std::function<bool()>& result) {
  const weftStagingStats_t before = Stats(c);
  weftResult_t e = call();
  const weftStagingStats_t after = Stats(c);
  x.report->Case(e == weftSuccess && result(), name + ": result", Why(e, c));
  const bool went = after.direct_calls == before.direct_calls + 1;
  const bool want = direct && x.size > 1;
  x.report->Case(went == want && after.direct_calls <= before.direct_calls + 1,
                 name + (want ? ": handed to MPI directly" : ": staged"),
                 "direct_calls " + std::to_string(before.direct_calls) + " -> " +
                     std::to_string(after.direct_calls));
  if (want) {
    x.report->Case(after.allocations == before.allocations, name + ": no staging allocation",
                   std::to_string(after.allocations - before.allocations) + " made");
  }
}

void Collectives(Ctx& x) {
  const float p = static_cast<float>(x.size), me = static_cast<float>(x.rank + 1);
  const float sum = p * (p + 1) / 2;  // of rank + 1 over ranks
  void* s = DeviceFloats(kBig * x.size, me);
  void* r = DeviceFloats(kBig * x.size, 0.0f);
  Expect(
      x, x.comm, "allreduce", true,
      [&] { return weftAllReduce(s, r, kBig, weftFloat, weftSum, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum); });
  Expect(
      x, x.comm, "allreduce in place", true,
      [&] { return weftAllReduce(r, r, kBig, weftFloat, weftMax, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum); });
  const int root = 1 % x.size;
  Expect(
      x, x.comm, "bcast, root out of place", true,
      [&] { return weftBroadcast(s, r, kBig, weftFloat, root, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, root + 1.0f) && AllEqual(s, 0, kBig, me); });
  Expect(
      x, x.comm, "reduce", true,
      [&] { return weftReduce(s, r, kBig, weftFloat, weftSum, 0, x.comm, nullptr); },
      [&] { return x.rank != 0 || AllEqual(r, 0, kBig, sum); });
  Expect(
      x, x.comm, "allgather", true,
      [&] { return weftAllGather(s, r, kBig, weftFloat, x.comm, nullptr); },
      [&] {
        bool ok = true;
        for (int q = 0; q < x.size; ++q) ok &= AllEqual(r, q * kBig, kBig, q + 1.0f);
        return ok;
      });
  Expect(
      x, x.comm, "reduce_scatter", true,
      [&] { return weftReduceScatter(s, r, kBig, weftFloat, weftSum, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum); });
  Expect(
      x, x.comm, "alltoall", true,
      [&] { return weftAllToAll(s, r, kBig, weftFloat, x.comm, nullptr); },
      [&] {
        bool ok = true;
        for (int q = 0; q < x.size; ++q) ok &= AllEqual(r, q * kBig, kBig, q + 1.0f);
        return ok;
      });
  // Host passes: the mean is divided on the host, and MPI leaves an in-place reduce_scatter's
  // result at block 0, not at block `rank`: both stage on every rank.
  Expect(
      x, x.comm, "allreduce avg", false,
      [&] { return weftAllReduce(s, r, kBig, weftFloat, weftAvg, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum / p); });
  void* whole = DeviceFloats(kBig * x.size, me);
  Expect(
      x, x.comm, "reduce_scatter in place", x.size == 1,
      [&] {
        char* mine = static_cast<char*>(whole) + x.rank * kBig * sizeof(float);
        return weftReduceScatter(whole, mine, kBig, weftFloat, weftSum, x.comm, nullptr);
      },
      [&] { return AllEqual(whole, x.rank * kBig, kBig, sum); });
  // One staging chunk: a single hop, decided by each rank alone.
  Expect(
      x, x.comm, "small allreduce", false,
      [&] { return weftAllReduce(s, r, 1000, weftFloat, weftSum, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, 1000, sum); });
  weftDeviceFree(whole);
  weftDeviceFree(s);
  weftDeviceFree(r);
}

// Rank 0 passes device buffers, the others host buffers: one direct call on every rank.
void Mixed(Ctx& x) {
  const float p = static_cast<float>(x.size);
  std::vector<float> hs(kBig, 1.0f), hr(kBig, 0.0f);
  void* s = x.rank == 0 ? DeviceFloats(kBig, 1.0f) : hs.data();
  void* r = x.rank == 0 ? DeviceFloats(kBig, 0.0f) : hr.data();
  Expect(
      x, x.comm, "device and host ranks", true,
      [&] { return weftAllReduce(s, r, kBig, weftFloat, weftSum, x.comm, nullptr); },
      [&] {
        if (x.rank == 0) return AllEqual(r, 0, kBig, p);
        for (float v : hr) {
          if (v != p) return false;
        }
        return true;
      });
  if (x.rank == 0) {
    weftDeviceFree(s);
    weftDeviceFree(r);
  }
}

// MPI does not follow streams: the input written by slow work queued on the user's stream is
// what MPI reads.
void StreamOrder(Ctx& x) {
  weftStream_t st = nullptr;
  weftResult_t e = weftStreamCreate(&st);
  x.report->Case(e == weftSuccess, "stream create", Why(e, nullptr));
  if (e != weftSuccess) return;
  weft::device::Backend* b = nullptr;
  if (weft::device::GetBackend(&b) != weftSuccess) return;
  void* d = DeviceFloats(kBig, 0.0f);
  std::vector<float> src(kBig, x.rank + 1.0f);
  static_cast<weft::device::EmulatedStream*>(st)->Enqueue(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(50)); });
  bool ok = b->CopyAsync(d, src.data(), kBig * sizeof(float), st) == weftSuccess;
  const float p = static_cast<float>(x.size);
  Expect(
      x, x.comm, "after the stream's work", true,
      [&] { return weftAllReduce(d, d, kBig, weftFloat, weftSum, x.comm, st); },
      [&] { return ok && AllEqual(d, 0, kBig, p * (p + 1) / 2); });
  weftDeviceFree(d);
  weftStreamDestroy(st);
}

void Plan(Ctx& x) {
  void* s = DeviceFloats(kBig, 3.0f);
  void* r = DeviceFloats(kBig, 0.0f);
  weftPlan_t plan = nullptr;
  weftResult_t e = weftAllReduceInit(s, r, kBig, weftFloat, weftMax, x.comm, &plan);
  x.report->Case(e == weftSuccess, "plan init", Why(e, x.comm));
  for (int i = 0; i < 2 && e == weftSuccess; ++i) {
    Expect(
        x, x.comm, "plan start " + std::to_string(i), true,
        [&] {
          weftResult_t s2 = weftPlanStart(plan, nullptr);
          return s2 == weftSuccess ? weftPlanWait(plan) : s2;
        },
        [&] { return AllEqual(r, 0, kBig, 3.0f); });
  }
  if (plan) weftPlanFree(plan);
  weftDeviceFree(s);
  weftDeviceFree(r);
}

// WEFT_MPI_DEVICE=0: the same MPI, but device buffers stage.
void TurnedOff(Ctx& x) {
  setenv("WEFT_MPI_DEVICE", "0", 1);
  weft::ReloadParams();
  weftComm_t off = nullptr;
  weftResult_t e = weftCommInitMPI(&off, MPI_COMM_WORLD);
  unsetenv("WEFT_MPI_DEVICE");
  weft::ReloadParams();
  x.report->Case(e == weftSuccess, "comm with WEFT_MPI_DEVICE=0", Why(e, nullptr));
  if (e != weftSuccess) return;
  void* s = DeviceFloats(kBig, 1.0f);
  void* r = DeviceFloats(kBig, 0.0f);
  Expect(
      x, off, "WEFT_MPI_DEVICE=0", false,
      [&] { return weftAllReduce(s, r, kBig, weftFloat, weftSum, off, nullptr); },
      [&] { return AllEqual(r, 0, kBig, static_cast<float>(x.size)); });
  x.report->Case(x.size == 1 || Stats(off).allocations > 0, "WEFT_MPI_DEVICE=0 stages");
  weftDeviceFree(s);
  weftDeviceFree(r);
  weftCommDestroy(off);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Report report(MPI_COMM_WORLD);
  Ctx x{nullptr, 0, 0, &report};
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.size);
  weftResult_t r = weftCommInitMPI(&x.comm, MPI_COMM_WORLD);
  report.Case(r == weftSuccess, "weftCommInitMPI", Why(r, nullptr));
  const char* name = "";
  weftDeviceBackend(&name);
  report.Case(std::string(name) == "emulated", "backend is emulated (WEFT_DEVICE=emulated)", name);
  if (r == weftSuccess && std::string(name) == "emulated") {
    Collectives(x);
    Mixed(x);
    StreamOrder(x);
    Plan(x);
    TurnedOff(x);
    weftCommDestroy(x.comm);
  }
  int rc = report.Finish("device_direct_test");
  MPI_Finalize();
  return rc;
}
