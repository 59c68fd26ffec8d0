#include "bench_device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_vcolls.h"
#include "core/dtype.h"

namespace bench {
namespace {

struct ModeInfo {
  const char* name;
  Impl impl;
};
constexpr ModeInfo kModes[] = {{"copy_d2h", Impl::kCopyD2H},
                               {"copy_h2d", Impl::kCopyH2D},
                               {"copy_roundtrip", Impl::kCopyRoundtrip},
                               {"host", Impl::kNative},
                               {"stage_alloc", Impl::kStageAlloc},
                               {"stage_reuse", Impl::kStageReuse},
                               {"weft", Impl::kWeftDevice}};

unsigned char* U(void* p) { return static_cast<unsigned char*>(p); }

int Copy(void* dst, const void* src, size_t bytes) {
  return bytes == 0 ? 0 : static_cast<int>(weftDeviceMemcpy(dst, src, bytes));
}

// Bytes the call reads from its input buffer and writes to its output buffer.
size_t InBytes(const Shape& s, bool ip) { return ip ? s.buf_bytes : s.send_bytes; }
size_t OutBytes(const Shape& s, bool ip) { return ip ? s.buf_bytes : s.recv_bytes; }

// Staging by hand around the native routine: device -> host, MPI, host -> device.
int StageByHand(const Ctx& x, const Shape& s, bool ip, unsigned char* hs, unsigned char* hr) {
  DeviceScratch& d = *x.dev;
  int rc = Copy(ip ? hr : hs, ip ? d.recv : d.send, InBytes(s, ip));
  if (rc == 0) rc = RunNative(x, s, ip, hs, hr);
  if (rc == 0) rc = Copy(d.recv, hr, OutBytes(s, ip));
  return rc;
}

// One timed call of a mode on x.dev's buffers.
int RunMode(Impl impl, const Ctx& x, const Shape& s, bool ip) {
  DeviceScratch& d = *x.dev;
  switch (impl) {
    case Impl::kCopyD2H:
      return Copy(d.hsend.data(), ip ? d.recv : d.send, InBytes(s, ip));
    case Impl::kCopyH2D:
      return Copy(d.recv, d.hrecv.data(), OutBytes(s, ip));
    case Impl::kCopyRoundtrip: {
      int rc = Copy(d.hsend.data(), ip ? d.recv : d.send, InBytes(s, ip));
      return rc ? rc : Copy(d.recv, d.hrecv.data(), OutBytes(s, ip));
    }
    case Impl::kNative:
      return RunNative(x, s, ip, d.hsend.data(), d.hrecv.data());
    case Impl::kStageReuse:
      return StageByHand(x, s, ip, d.hsend.data(), d.hrecv.data());
    case Impl::kStageAlloc: {
      // A fresh host allocation per call, as a naive staging layer does.
      auto* hs = static_cast<unsigned char*>(std::malloc(std::max<size_t>(s.send_bytes, 1)));
      auto* hr = static_cast<unsigned char*>(std::malloc(std::max<size_t>(s.buf_bytes, 1)));
      int rc = hs && hr ? StageByHand(x, s, ip, hs, hr) : MPI_ERR_NO_MEM;
      std::free(hs);
      std::free(hr);
      return rc;
    }
    case Impl::kWeftDevice:
      return RunWeft(x, s, ip, U(d.send), U(d.recv));
    case Impl::kWeft:
      break;
  }
  return weftInternalError;
}

bool IsCopy(Impl m) {
  return m == Impl::kCopyD2H || m == Impl::kCopyH2D || m == Impl::kCopyRoundtrip;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Median over iterations of the slowest rank's time of one mode; false on a failed call.
bool Time(Impl m, const Ctx& x, const Options& o, const Shape& s, bool ip, double* us) {
  bool ok = true;
  std::vector<double> t(o.iters);
  for (int i = 0; i < o.warmup + o.iters && ok; ++i) {
    MPI_Barrier(x.mpi);
    double t0 = MPI_Wtime();
    ok = RunMode(m, x, s, ip) == 0;
    if (i >= o.warmup) t[i - o.warmup] = MPI_Wtime() - t0;
  }
  int all = ok;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, x.mpi);
  if (!all) return false;
  MPI_Allreduce(MPI_IN_PLACE, t.data(), o.iters, MPI_DOUBLE, MPI_MAX, x.mpi);
  *us = Median(t) * 1e6;
  return true;
}

void Header(const Ctx& x, const Options& o) {
  const char* backend = "?";
  weftDeviceBackend(&backend);
  std::printf(
      "#\n# weft-bench %s on device memory: %d ranks, backend %s, %s, op %s, warmup %d, iters "
      "%d\n# modes: host = native MPI on host buffers; stage_alloc / stage_reuse = device -> "
      "host, native MPI, host -> device (new host buffers per call / reused); weft = weft on "
      "the device buffers; copy_* = the copies alone\n",
      CollName(x.coll), x.size, backend, weft::TypeName(x.type), weft::OpName(x.op), o.warmup,
      o.iters);
  std::printf("# %10s %11s %5s %-15s %10s %8s %8s %7s %10s\n", "size(B)", "count", "place", "mode",
              "time(us)", "algbw", "busbw", "#wrong", "reuse/mode");
}

}  // namespace

bool ParseMode(const std::string& name, Impl* out) {
  for (const ModeInfo& m : kModes) {
    if (name == m.name) {
      *out = m.impl;
      return true;
    }
  }
  return false;
}

const char* ModeName(Impl impl) {
  for (const ModeInfo& m : kModes) {
    if (m.impl == impl) return m.name;
  }
  return "?";
}

int RunDeviceViaHost(Impl impl, const Ctx& x, const Shape& s, bool ip, unsigned char* send,
                     unsigned char* recv) {
  DeviceScratch& d = *x.dev;
  int rc = ip ? 0 : Copy(d.send, send, s.send_bytes);
  if (rc == 0) rc = Copy(d.recv, recv, OutBytes(s, ip));
  if (rc == 0) rc = RunMode(impl, x, s, ip);
  if (rc == 0) rc = Copy(recv, d.recv, OutBytes(s, ip));
  return rc;
}

bool RunDeviceBench(Ctx& x, const Options& o, std::vector<Record>* rows, long long* wrong) {
  for (Coll c : o.colls) {
    x.coll = c;
    if (x.rank == 0) Header(x, o);
    for (size_t b = o.min_bytes; b <= o.max_bytes;) {
      const Shape s = ShapeOf(x, b);
      DeviceScratch d;
      d.hsend.assign(std::max<size_t>(s.buf_bytes, 1), 0);
      d.hrecv.assign(std::max<size_t>(s.buf_bytes, 1), 0);
      if (weftDeviceMalloc(&d.send, std::max<size_t>(s.send_bytes, 1)) != weftSuccess ||
          weftDeviceMalloc(&d.recv, std::max<size_t>(s.buf_bytes, 1)) != weftSuccess) {
        std::fprintf(stderr, "weft-bench: device allocation failed: %s\n",
                     weftGetLastError(nullptr));
        return false;
      }
      x.dev = &d;
      for (bool ip : {false, true}) {
        if ((ip && !o.in_place) || (!ip && !o.out_of_place)) continue;
        double reuse_us = 0;
        for (int mi : o.modes) {
          const Impl m = static_cast<Impl>(mi);
          if (m == Impl::kNative && !NativeSupports(x, s)) continue;
          if (m != Impl::kWeftDevice && !IsCopy(m) && !NativeSupports(x, s)) continue;
          double us = 0;
          if (!Time(m, x, o, s, ip, &us)) return false;
          if (m == Impl::kStageReuse) reuse_us = us;
          Record r;
          r.collective = CollName(c);
          r.bytes = RowBytes(x, s);
          r.count = s.count;
          r.dtype = weft::TypeName(x.type);
          r.op = weft::OpName(x.op);
          r.root = Rooted(c) ? x.root : -1;
          r.in_place = ip;
          r.impl = ModeName(m);
          r.time_us = us;
          r.algbw = us > 0 ? s.alg_bytes / us / 1e3 : 0;
          r.busbw = IsCopy(m) ? r.algbw : r.algbw * s.bus_factor;
          r.wrong = -1;
          if (o.check && !IsCopy(m)) {
            long long w =
                static_cast<long long>(Validate(m, x, s, ip, d.hsend.data(), d.hrecv.data()));
            MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_LONG_LONG, MPI_SUM, x.mpi);
            r.wrong = w;
            if (m != Impl::kNative) *wrong += w;
          }
          if (x.rank == 0) {
            char ratio[16] = "";
            if (reuse_us > 0 && us > 0) std::snprintf(ratio, sizeof(ratio), "%.2fx", reuse_us / us);
            std::printf("  %10zu %11zu %5s %-15s %10.2f %8.2f %8.2f %7s %10s\n", r.bytes, r.count,
                        ip ? "in" : "out", r.impl.c_str(), r.time_us, r.algbw, r.busbw,
                        r.wrong < 0 ? "N/A" : std::to_string(r.wrong).c_str(), ratio);
            std::fflush(stdout);
          }
          rows->push_back(r);
        }
      }
      x.dev = nullptr;
      weftDeviceFree(d.send);
      weftDeviceFree(d.recv);
      size_t nb = static_cast<size_t>(static_cast<double>(b) * o.factor + 0.5);
      b = std::max(nb, b + 1);
    }
  }
  return true;
}

}  // namespace bench
