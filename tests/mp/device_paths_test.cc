// The paths a large call on device buffers can take besides staging, on the emulated backend
// (WEFT_DEVICE=emulated), one mode per run:
//   --direct  WEFT_EMULATED_MPI_AWARE=1 WEFT_DEVICE_IPC=0: the GPU-aware MPI path (mpi_direct.h)
//   --ipc     the device-to-device path between node peers (ipc_coll.h)
// Each case checks the result and the path taken (weftCommStagingStats counts direct and IPC
// calls; neither allocates staging memory): every collective, in place, a bcast root out of
// place, a plan, the user's stream waited for; and what must still stage (Avg's host division,
// an in-place reduce_scatter's move for MPI, in-place alltoall for IPC, one-hop calls, a host
// rank among device ranks for IPC) or is turned off (WEFT_MPI_DEVICE=0, WEFT_DEVICE_IPC=0).
#include <chrono>
#include <cstdlib>
#include <functional>
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

enum class Path { kStaged, kDirect, kIpc };

struct Ctx {
  weftComm_t comm;
  int rank, size;
  Report* report;
  bool ipc_mode;  // --ipc, else --direct
};

// The path a case expects in this run's mode.
Path In(const Ctx& x, Path direct_mode, Path ipc_mode) {
  return x.ipc_mode ? ipc_mode : direct_mode;
}

constexpr size_t kBig = (3u << 20) / sizeof(float) + 5;  // several 1 MiB staging chunks, odd

weftStagingStats_t Stats(weftComm_t c) {
  weftStagingStats_t s{};
  weftCommStagingStats(c, &s);
  return s;
}

// Runs call on comm c; checks its result and the path it took (always staged at 1 rank).
void Expect(Ctx& x, weftComm_t c, const std::string& name, Path path,
            const std::function<weftResult_t()>& call, const std::function<bool()>& result) {
  const weftStagingStats_t before = Stats(c);
  weftResult_t e = call();
  const weftStagingStats_t after = Stats(c);
  x.report->Case(e == weftSuccess && result(), name + ": result", Why(e, c));
  const Path want = x.size > 1 ? path : Path::kStaged;
  const auto direct = after.direct_calls - before.direct_calls;
  const auto ipc = after.ipc_calls - before.ipc_calls;
  const bool ok =
      direct == (want == Path::kDirect ? 1u : 0u) && ipc == (want == Path::kIpc ? 1u : 0u);
  const char* label = want == Path::kDirect ? ": handed to MPI directly"
                      : want == Path::kIpc  ? ": device to device (IPC)"
                                            : ": staged";
  x.report->Case(ok, name + label,
                 "direct calls +" + std::to_string(direct) + ", IPC calls +" + std::to_string(ipc));
  if (want != Path::kStaged) {
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
      x, x.comm, "allreduce", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftAllReduce(s, r, kBig, weftFloat, weftSum, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum); });
  Expect(
      x, x.comm, "allreduce in place", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftAllReduce(r, r, kBig, weftFloat, weftMax, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum); });
  const int root = 1 % x.size;
  Expect(
      x, x.comm, "bcast, root out of place", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftBroadcast(s, r, kBig, weftFloat, root, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, root + 1.0f) && AllEqual(s, 0, kBig, me); });
  Expect(
      x, x.comm, "reduce", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftReduce(s, r, kBig, weftFloat, weftSum, 0, x.comm, nullptr); },
      [&] { return x.rank != 0 || AllEqual(r, 0, kBig, sum); });
  Expect(
      x, x.comm, "allgather", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftAllGather(s, r, kBig, weftFloat, x.comm, nullptr); },
      [&] {
        bool ok = true;
        for (int q = 0; q < x.size; ++q) ok &= AllEqual(r, q * kBig, kBig, q + 1.0f);
        return ok;
      });
  Expect(
      x, x.comm, "reduce_scatter", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftReduceScatter(s, r, kBig, weftFloat, weftSum, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum); });
  Expect(
      x, x.comm, "alltoall", In(x, Path::kDirect, Path::kIpc),
      [&] { return weftAllToAll(s, r, kBig, weftFloat, x.comm, nullptr); },
      [&] {
        bool ok = true;
        for (int q = 0; q < x.size; ++q) ok &= AllEqual(r, q * kBig, kBig, q + 1.0f);
        return ok;
      });
  // Host passes: the mean is divided on the host, and MPI leaves an in-place reduce_scatter's
  // result at block 0, not at block `rank`: both stage on every rank.
  Expect(
      x, x.comm, "allreduce avg", Path::kStaged,
      [&] { return weftAllReduce(s, r, kBig, weftFloat, weftAvg, x.comm, nullptr); },
      [&] { return AllEqual(r, 0, kBig, sum / p); });
  void* whole = DeviceFloats(kBig * x.size, me);
  Expect(
      x, x.comm, "reduce_scatter in place", In(x, Path::kStaged, Path::kIpc),
      [&] {
        char* mine = static_cast<char*>(whole) + x.rank * kBig * sizeof(float);
        return weftReduceScatter(whole, mine, kBig, weftFloat, weftSum, x.comm, nullptr);
      },
      [&] { return AllEqual(whole, x.rank * kBig, kBig, sum); });
  // One staging chunk: a single hop, decided by each rank alone.
  Expect(
      x, x.comm, "small allreduce", Path::kStaged,
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
      x, x.comm, "device and host ranks", In(x, Path::kDirect, Path::kStaged),
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
      x, x.comm, "after the stream's work", In(x, Path::kDirect, Path::kIpc),
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
        x, x.comm, "plan start " + std::to_string(i), In(x, Path::kDirect, Path::kIpc),
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

// The path turned off (WEFT_MPI_DEVICE=0, or WEFT_DEVICE_IPC=0): the same call stages.
void TurnedOff(Ctx& x) {
  const char* knob = x.ipc_mode ? "WEFT_DEVICE_IPC" : "WEFT_MPI_DEVICE";
  const std::string name = std::string(knob) + "=0";
  setenv(knob, "0", 1);
  weft::ReloadParams();
  weftComm_t off = nullptr;
  weftResult_t e = weftCommInitMPI(&off, MPI_COMM_WORLD);
  void* s = DeviceFloats(kBig, 1.0f);
  void* r = DeviceFloats(kBig, 0.0f);
  x.report->Case(e == weftSuccess, "comm with " + name, Why(e, nullptr));
  if (e == weftSuccess) {
    Expect(
        x, off, name, Path::kStaged,
        [&] { return weftAllReduce(s, r, kBig, weftFloat, weftSum, off, nullptr); },
        [&] { return AllEqual(r, 0, kBig, static_cast<float>(x.size)); });
    x.report->Case(x.size == 1 || Stats(off).allocations > 0, name + " stages");
    weftCommDestroy(off);
  }
  unsetenv(knob);
  weft::ReloadParams();
  weftDeviceFree(s);
  weftDeviceFree(r);
}

// In-place alltoall: MPI takes it in place; the IPC path would overwrite blocks peers still
// read, so it stages.
void AllToAllInPlace(Ctx& x) {
  void* b = DeviceFloats(kBig * x.size, x.rank + 1.0f);
  Expect(
      x, x.comm, "alltoall in place", In(x, Path::kDirect, Path::kStaged),
      [&] { return weftAllToAll(b, b, kBig, weftFloat, x.comm, nullptr); },
      [&] {
        bool ok = true;
        for (int q = 0; q < x.size; ++q) ok &= AllEqual(b, q * kBig, kBig, q + 1.0f);
        return ok;
      });
  weftDeviceFree(b);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Report report(MPI_COMM_WORLD);
  Ctx x{nullptr, 0, 0, &report, argc > 1 && std::string(argv[1]) == "--ipc"};
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
    AllToAllInPlace(x);
    TurnedOff(x);
    weftCommDestroy(x.comm);
  }
  int rc = report.Finish(x.ipc_mode ? "device_paths_test --ipc" : "device_paths_test --direct");
  MPI_Finalize();
  return rc;
}
