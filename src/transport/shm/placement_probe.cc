#include "transport/shm/placement_probe.h"

#include <algorithm>
#include <chrono>

#include "core/spin_wait.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBatches = 8;  // the fastest batch counts: a preempted one is discarded
constexpr int kTripsPerBatch = 8;
constexpr uint64_t kValuesPerProbe = 1024;  // > kBatches * kTripsPerBatch
// Polls before yielding: a peer may reach the probe a moment late, and a yield inside a timed
// batch would spoil it.
constexpr uint64_t kSpins = 4096;

}  // namespace

Status ProbePlacement(ShmSegment& seg, int timeout_s, PlacementProbe* out, const char** why) {
  const uint64_t gen = ++seg.probes;
  const uint64_t first = gen * kValuesPerProbe;
  std::atomic<uint64_t>& verdict = seg.ProbePing(0, 1);
  if (seg.rank() == 0) {
    double worst = 0;
    for (int r = 1; r < seg.nranks(); ++r) {
      std::atomic<uint64_t>& ping = seg.ProbePing(r);
      std::atomic<uint64_t>& echo = seg.ProbeEcho(r);
      uint64_t v = first;
      double best = 1e300;
      for (int b = 0; b < kBatches; ++b) {
        const auto t0 = Clock::now();
        for (int i = 0; i < kTripsPerBatch; ++i) {
          ping.store(++v, std::memory_order_release);
          auto back = [&] { return echo.load(std::memory_order_acquire) == v; };
          if (!SpinThenYield(back, kSpins, timeout_s)) {
            *why = "a node peer did not answer the placement probe";
            return weftTimeout;
          }
        }
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        best = std::min(best, ns / kTripsPerBatch);
      }
      worst = std::max(worst, best);
    }
    out->max_rtt_ns = worst;
    out->remote = worst > kRemoteRttNs;
    verdict.store(gen * 2 + (out->remote ? 1 : 0), std::memory_order_release);
    return weftSuccess;
  }
  std::atomic<uint64_t>& ping = seg.ProbePing(seg.rank());
  std::atomic<uint64_t>& echo = seg.ProbeEcho(seg.rank());
  for (uint64_t v = first + 1; v <= first + kBatches * kTripsPerBatch; ++v) {
    auto pinged = [&] { return ping.load(std::memory_order_acquire) == v; };
    if (!SpinThenYield(pinged, kSpins, timeout_s)) {
      *why = "node rank 0 did not run the placement probe";
      return weftTimeout;
    }
    echo.store(v, std::memory_order_release);
  }
  auto decided = [&] { return verdict.load(std::memory_order_acquire) / 2 == gen; };
  if (!SpinThenYield(decided, kSpins, timeout_s)) {
    *why = "node rank 0 did not publish the placement probe's verdict";
    return weftTimeout;
  }
  out->remote = verdict.load(std::memory_order_relaxed) % 2 == 1;
  out->max_rtt_ns = 0;  // measured on node rank 0 only
  return weftSuccess;
}

}  // namespace weft
