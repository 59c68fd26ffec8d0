#include "bench_overlap.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

namespace bench {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Busy work for `seconds` (OSU calibrates a loop of arithmetic; reading the clock is as good
// at these durations and needs no calibration). Returns the time it took.
double Compute(double seconds, bool sleeps) {
  const double t0 = MPI_Wtime();
  if (sleeps) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    return MPI_Wtime() - t0;
  }
  volatile double sink = 1.0;
  while (MPI_Wtime() - t0 < seconds) {
    for (int i = 0; i < 64; ++i) sink = sink * 1.0000001 + 1e-9;
  }
  return MPI_Wtime() - t0;
}

// One post, optional compute, wait; the time of it all in *total and the compute's in *comp.
bool Once(const Ctx& x, const Shape& s, bool weft, unsigned char* send, unsigned char* recv,
          double compute_s, bool sleeps, double* total, double* comp) {
  MPI_Barrier(x.mpi);
  const double t0 = MPI_Wtime();
  int rc;
  if (weft) {
    weftRequest_t req = nullptr;
    rc = PostWeft(x, s, false, send, recv, &req);
    *comp = compute_s > 0 ? Compute(compute_s, sleeps) : 0;
    if (rc == weftSuccess) rc = weftRequestWait(&req);
  } else {
    MPI_Request req = MPI_REQUEST_NULL;
    rc = PostNative(x, s, false, send, recv, &req);
    *comp = compute_s > 0 ? Compute(compute_s, sleeps) : 0;
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  *total = MPI_Wtime() - t0;
  return rc == 0;
}

// Median over iterations of the slowest rank's time.
double Slowest(const Ctx& x, std::vector<double> t) {
  MPI_Allreduce(MPI_IN_PLACE, t.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, x.mpi);
  return Median(t);
}

}  // namespace

bool MeasureOverlap(const Ctx& x, const Options& o, const Shape& s, bool weft, Overlap* out) {
  std::vector<unsigned char> send(std::max<size_t>(s.send_bytes, 1)),
      recv(std::max<size_t>(s.recv_bytes, 1));
  bool ok = true;
  double total = 0, comp = 0;
  for (int i = 0; i < o.warmup && ok; ++i) {
    ok &= Once(x, s, weft, send.data(), recv.data(), 0, false, &total, &comp);
  }
  std::vector<double> pure(o.iters), totals(o.iters), comps(o.iters);
  for (int i = 0; i < o.iters && ok; ++i) {
    ok &= Once(x, s, weft, send.data(), recv.data(), 0, false, &pure[i], &comp);
  }
  int all_ok = ok;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, x.mpi);
  if (!all_ok) return false;
  out->pure_us = Slowest(x, pure) * 1e6;
  // Every rank computes for the same time: the slowest rank's pure time.
  for (int i = 0; i < o.iters && ok; ++i) {
    ok &= Once(x, s, weft, send.data(), recv.data(), out->pure_us * 1e-6, o.overlap_sleeps,
               &totals[i], &comps[i]);
  }
  all_ok = ok;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, x.mpi);
  if (!all_ok) return false;
  out->total_us = Slowest(x, totals) * 1e6;
  out->compute_us = Slowest(x, comps) * 1e6;
  const double exposed = out->total_us - out->compute_us;
  out->percent =
      out->pure_us > 0 ? std::clamp(100.0 * (1.0 - exposed / out->pure_us), 0.0, 100.0) : 0.0;
  return true;
}

bool RunOverlapTables(Ctx x, const Options& o) {
  for (Coll c : o.colls) {
    x.coll = c;
    if (x.rank == 0) {
      std::printf(
          "#\n# %s overlap (OSU's definition): post, compute%s for the pure time, wait; no "
          "calls during the compute\n# %12s %12s %10s %12s %10s\n",
          CollName(c), o.overlap_sleeps ? " (sleeping)" : "", "size(B)", "native_us", "native_%",
          "weft_us", "weft_%");
    }
    for (size_t b = o.min_bytes; b <= o.max_bytes;) {
      const Shape s = ShapeOf(x, b);
      if (s.count > 0) {
        Overlap n, w;
        const bool native = NativeSupports(x, s);
        if ((native && !MeasureOverlap(x, o, s, false, &n)) || !MeasureOverlap(x, o, s, true, &w)) {
          return false;
        }
        if (x.rank == 0) {
          if (native) {
            std::printf("  %12zu %12.2f %10.1f %12.2f %10.1f\n", s.send_bytes, n.pure_us, n.percent,
                        w.pure_us, w.percent);
          } else {
            std::printf("  %12zu %12s %10s %12.2f %10.1f\n", s.send_bytes, "n/a", "n/a", w.pure_us,
                        w.percent);
          }
        }
      }
      const size_t nb = static_cast<size_t>(std::llround(static_cast<double>(b) * o.factor));
      b = std::max(nb, b + 1);
    }
  }
  return true;
}

}  // namespace bench
