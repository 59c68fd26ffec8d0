#include "transport/shm/placement_probe.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "core/spin_wait.h"
#include "exec/stream_copy.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBatches = 8;  // the fastest batch counts: a preempted one is discarded
constexpr int kTripsPerBatch = 8;
// Handovers of the probe block per store kind, in pairs alternating plain and streamed (P P S S
// P P S S): a change of the machine's state in the middle hits both, and the second of each pair
// finds the lines where that kind's last handover left them, as in a run of executions; the
// fastest counts.
constexpr int kTrials = 4;
int StoreKind(uint64_t handover) { return static_cast<int>(handover / 2 % 2); }  // 1: streamed
constexpr uint64_t kValuesPerProbe = 1024;  // > kBatches * kTripsPerBatch + 2 * kTrials
// Polls before yielding: a peer may reach the probe a moment late, and a yield inside a timed
// batch would spoil it.
constexpr uint64_t kSpins = 4096;

double Nanos(Clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// Node rank 0's side with peer r; v is the last value pinged. Returns false on a timeout.
bool TimePeer(ShmSegment& seg, int r, int timeout_s, uint64_t* v, double* rtt_ns,
              double handover_ns[2], std::vector<unsigned char>& local) {
  std::atomic<uint64_t>& ping = seg.ProbePing(r);
  std::atomic<uint64_t>& echo = seg.ProbeEcho(r);
  auto trip = [&] {
    ping.store(++*v, std::memory_order_release);
    auto back = [&] { return echo.load(std::memory_order_acquire) == *v; };
    return SpinThenYield(back, kSpins, timeout_s);
  };
  *rtt_ns = 1e300;
  for (int b = 0; b < kBatches; ++b) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kTripsPerBatch; ++i) {
      if (!trip()) return false;
    }
    *rtt_ns = std::min(*rtt_ns, Nanos(t0) / kTripsPerBatch);
  }
  handover_ns[0] = handover_ns[1] = 1e300;
  for (int t = 0; t < 2 * kTrials; ++t) {  // the peer writes, then this rank copies it out
    const auto t0 = Clock::now();
    if (!trip()) return false;
    std::memcpy(local.data(), seg.ProbeBlock(), local.size());
    handover_ns[StoreKind(t)] = std::min(handover_ns[StoreKind(t)], Nanos(t0));
  }
  return true;
}

// A peer's side: echo the round trips, then write the block at each handover with the store
// kind StoreKind names, from a source in its own cache as a slot write would be.
bool AnswerRankZero(ShmSegment& seg, int timeout_s, uint64_t first, const char** why) {
  std::atomic<uint64_t>& ping = seg.ProbePing(seg.rank());
  std::atomic<uint64_t>& echo = seg.ProbeEcho(seg.rank());
  const std::vector<unsigned char> source(ShmSegment::kProbeBlockBytes, 1);
  const uint64_t trips = kBatches * kTripsPerBatch;
  for (uint64_t v = first + 1; v <= first + trips + 2 * kTrials; ++v) {
    auto pinged = [&] { return ping.load(std::memory_order_acquire) == v; };
    if (!SpinThenYield(pinged, kSpins, timeout_s)) {
      *why = "node rank 0 did not run the placement probe";
      return false;
    }
    if (v > first + trips) {
      if (StoreKind(v - first - trips - 1) == 0) {
        std::memcpy(seg.ProbeBlock(), source.data(), source.size());
      } else {
        StreamCopy(seg.ProbeBlock(), source.data(), source.size());
        StreamFence();
      }
    }
    echo.store(v, std::memory_order_release);
  }
  return true;
}

}  // namespace

Status ProbePlacement(ShmSegment& seg, int timeout_s, PlacementProbe* out, const char** why) {
  const uint64_t gen = ++seg.probes;
  const uint64_t first = gen * kValuesPerProbe;
  std::atomic<uint64_t>& verdict = seg.ProbePing(0, 1);
  *out = PlacementProbe{};
  if (seg.rank() == 0) {
    std::vector<unsigned char> local(ShmSegment::kProbeBlockBytes);
    double best_ratio = 1e300;
    for (int r = 1; r < seg.nranks(); ++r) {
      uint64_t v = first;
      double rtt = 0, handover[2] = {0, 0};
      if (!TimePeer(seg, r, timeout_s, &v, &rtt, handover, local)) {
        *why = "a node peer did not answer the placement probe";
        return weftTimeout;
      }
      out->max_rtt_ns = std::max(out->max_rtt_ns, rtt);
      const double ratio = handover[1] / handover[0];
      if (ratio < best_ratio) {
        best_ratio = ratio;
        out->plain_ns = handover[0];
        out->stream_ns = handover[1];
      }
      out->stream |= rtt >= kSharedCacheRttNs && ratio <= kStreamMargin;
    }
    verdict.store(gen * 2 + (out->stream ? 1 : 0), std::memory_order_release);
    return weftSuccess;
  }
  if (!AnswerRankZero(seg, timeout_s, first, why)) return weftTimeout;
  auto decided = [&] { return verdict.load(std::memory_order_acquire) / 2 == gen; };
  if (!SpinThenYield(decided, kSpins, timeout_s)) {
    *why = "node rank 0 did not publish the placement probe's verdict";
    return weftTimeout;
  }
  out->stream = verdict.load(std::memory_order_relaxed) % 2 == 1;
  return weftSuccess;
}

}  // namespace weft
