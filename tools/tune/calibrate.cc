#include "calibrate.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "calibrate_messages.h"
#include "calibrate_node.h"
#include "core/dtype.h"
#include "time_recipes.h"
#include "tune/cost_model.h"
#include "weft/weft.h"

namespace weft::tune_tool {
namespace {

// Half the median round trip of `bytes` between ranks a and b of comm (-1 elsewhere).
double PingPongUs(MPI_Comm comm, int me, int a, int b, size_t bytes, int iters) {
  if (me != a && me != b) return -1;
  std::vector<unsigned char> buf(std::max<size_t>(bytes, 1));
  const int n = static_cast<int>(bytes), peer = me == a ? b : a;
  std::vector<double> rt;
  for (int i = 0; i < iters + 3; ++i) {
    const double t0 = MPI_Wtime();
    if (me == a) {
      MPI_Send(buf.data(), n, MPI_BYTE, peer, 1, comm);
      MPI_Recv(buf.data(), n, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf.data(), n, MPI_BYTE, peer, 1, comm, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), n, MPI_BYTE, peer, 1, comm);
    }
    if (i >= 3) rt.push_back((MPI_Wtime() - t0) * 1e6 / 2);
  }
  return Median(rt);
}

// Both ranks send `bytes` to each other at once; the median time of one exchange on a.
double ExchangeUs(MPI_Comm comm, int me, int a, int b, size_t bytes, int iters) {
  std::vector<unsigned char> out(bytes), in(bytes);
  const int n = static_cast<int>(bytes), peer = me == a ? b : a;
  std::vector<double> t;
  for (int i = 0; i < iters + 1; ++i) {
    MPI_Request r[2];
    const double t0 = MPI_Wtime();
    MPI_Irecv(in.data(), n, MPI_BYTE, peer, 4, comm, &r[0]);
    MPI_Isend(out.data(), n, MPI_BYTE, peer, 4, comm, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (i >= 1) t.push_back((MPI_Wtime() - t0) * 1e6);
  }
  return Median(t);
}

// One link tier between ranks a and b: rank a measures and decides what to measure next (the
// eager-limit search), announcing each step to b, which serves until told to stop.
// out: latency_us, gbytes_per_s, eager_bytes, rendezvous_us, cached_bytes,
// cached_gbytes_per_s, eager_gbytes_per_s (on a).
void MeasureTier(MPI_Comm comm, int me, int a, int b, double out[7]) {
  enum : uint64_t { kStop, kPingPong, kExchange };
  if (me == b) {
    for (;;) {
      uint64_t step[3];
      MPI_Recv(step, 3, MPI_UINT64_T, a, 9, comm, MPI_STATUS_IGNORE);
      if (step[0] == kStop) return;
      if (step[0] == kPingPong) PingPongUs(comm, me, a, b, step[1], static_cast<int>(step[2]));
      if (step[0] == kExchange) ExchangeUs(comm, me, a, b, step[1], static_cast<int>(step[2]));
    }
  }
  if (me != a) return;
  auto run = [&](uint64_t kind, size_t bytes, int iters) {
    uint64_t step[3] = {kind, bytes, static_cast<uint64_t>(iters)};
    MPI_Send(step, 3, MPI_UINT64_T, b, 9, comm);
    if (kind == kPingPong) return PingPongUs(comm, me, a, b, bytes, iters);
    if (kind == kExchange) return ExchangeUs(comm, me, a, b, bytes, iters);
    return 0.0;
  };
  const double lat = run(kPingPong, 8, 200);
  // Bandwidth as schedules use it: both directions at once, from 256 KiB (in cache) to
  // 16 MiB (from memory). cached_bytes: the largest size still within 80% of the best rate.
  std::vector<double> rates;
  std::vector<size_t> ex_sizes;
  for (size_t sz = 256u << 10; sz <= (16u << 20); sz *= 2) {
    ex_sizes.push_back(sz);
    rates.push_back(sz / std::max(run(kExchange, sz, 6) - lat, 1e-3) / 1e3);
  }
  const double bw = rates.back(), top = *std::max_element(rates.begin(), rates.end());
  size_t cached = 0;
  for (size_t i = 0; i + 1 < rates.size(); ++i) {
    if (rates[i] >= 0.8 * top) cached = i;
  }
  std::vector<double> in_cache(rates.begin(), rates.begin() + cached + 1);
  out[4] = static_cast<double>(ex_sizes[cached]);
  out[5] = Median(in_cache);
  // The eager limit: the largest step in a ping-pong's time between doubling sizes, beyond
  // what the bytes explain; then bisected to 64 bytes.
  std::vector<size_t> sizes;
  std::vector<double> t;
  for (size_t sz = 256; sz <= (256u << 10); sz *= 2) {
    sizes.push_back(sz);
    // The smaller of two medians: a rank descheduled in one (another process on its core)
    // read as a 3 ms "rendezvous" under MPICH here.
    t.push_back(std::min(run(kPingPong, sz, 40), run(kPingPong, sz, 40)));
  }
  // The bytes explain what the exchanges measured at that size: these sizes stay in cache.
  // (Explained at the memory rate, 3.3 GB/s on the Xeon VM, Open MPI's step at 4 KiB, about
  // 1 us in a plain ping-pong (bench/tuning/call-overhead/eager), shrank below the
  // threshold: eager_bytes 0 in all three wisdom files of bench/tuning/regret-xeon.)
  tune::LinkTier measured;
  measured.gbytes_per_s = bw;
  measured.cached_bytes = out[4];
  measured.cached_gbytes_per_s = out[5];
  auto excess = [&](size_t lo, double t_lo, size_t hi, double t_hi) {
    return (t_hi - t_lo) - (hi / measured.Rate(hi) - lo / measured.Rate(lo)) / 1e3;
  };
  // The largest step relative to the time before it: where the rate leaves the cache (128 to
  // 256 KiB on the Xeon VM) the time grows by more microseconds than at the eager limit but by
  // a smaller share of it, and the largest absolute step took the search's place.
  auto share = [&](size_t i) { return excess(sizes[i], t[i], sizes[i + 1], t[i + 1]) / t[i]; };
  size_t jump = 0;
  for (size_t i = 1; i + 1 < sizes.size(); ++i) {
    if (share(i) > share(jump)) jump = i;
  }
  const double step = excess(sizes[jump], t[jump], sizes[jump + 1], t[jump + 1]);
  out[0] = lat;
  out[1] = bw;
  out[2] = out[3] = out[6] = 0;
  if (step > std::max(0.5, 0.5 * t[jump])) {
    size_t lo = sizes[jump], hi = sizes[jump + 1];
    while (hi - lo > 64) {
      const size_t mid = (lo + hi) / 2 / 64 * 64;
      (excess(lo, t[jump], mid, run(kPingPong, mid, 40)) > step / 2 ? hi : lo) = mid;
    }
    out[2] = static_cast<double>(lo);
    out[3] = step;
    // Below the limit, the ping-pong's growth from 256 B to the largest size under it: the
    // bytes of an eager message cost more than the cached rate says (copied into and out of
    // MPI's fragments): Open MPI's 2 KiB bcast by tree took 1.55 us in loops where 8 B took
    // 0.33, and 15 GB/s would add 0.15.
    if (jump > 0) out[6] = (sizes[jump] - sizes[0]) / std::max(t[jump] - t[0], 1e-3) / 1e3;
  }
  run(kStop, 0, 0);
}

// What a weft call costs beyond the messages it makes: between ranks a and b alone (a weft
// communicator of the two), an allreduce of 8 B with one exchange (rexch:2) against the same
// exchange in MPI (Irecv, Isend, Waitall), each timed as a loop of calls in turns, the slower
// rank's time per call, median of the turns. -1 off the pair or where it cannot be measured.
double CallOverheadUs(MPI_Comm comm, int me, int a, int b) {
  MPI_Comm pair;
  MPI_Comm_split(comm, me == a || me == b ? 0 : MPI_UNDEFINED, me, &pair);
  if (pair == MPI_COMM_NULL) return -1;
  const int peer = me == a ? 1 : 0;
  constexpr int kTurns = 9;
  constexpr double kTurnUs = 2000;
  std::vector<double> raw;
  int iters = 100;
  for (int turn = 0; turn < kTurns + 1; ++turn) {
    MPI_Barrier(pair);
    double us = ExchangeLoopUs(pair, peer, iters), slowest = 0;
    MPI_Allreduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, pair);
    if (turn == 0) {  // the first turn sizes the others, as TimeRecipes does
      iters = std::clamp(static_cast<int>(kTurnUs / std::max(slowest, 0.1)), 1, 2000);
    } else {
      raw.push_back(slowest);
    }
  }
  double us = -1;
  weftComm_t w = nullptr;
  if (weftCommInitMPI(&w, pair) == weftSuccess) {
    const CallShape shape{CollKind::kAllReduce, 2, weftFloat32};
    std::vector<Timing> t;
    std::string err;
    if (TimeRecipes(*w, shape, {sched::Recipe{"rexch", {2}, 0}}, kTurns, kTurnUs, &t, &err)) {
      us = std::max(0.0, t[1].us - Median(raw));
    }
    weftCommDestroy(w);
  }
  MPI_Comm_free(&pair);
  return us;
}

std::string Fmt(const char* f, double v) {
  char b[128];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::vector<tune::WisdomParam> Calibrate(Comm& comm, std::vector<std::string>* notes) {
  MPI_Comm c = comm.mpi;
  const int me = comm.rank;
  const auto& node0 = comm.topo.ranks_of_node[comm.topo.node_of_rank[0]];
  const int intra = node0.size() > 1 ? node0[1] : -1;
  int inter = -1;
  for (int r = 0; r < comm.size && inter < 0; ++r) {
    if (comm.topo.node_of_rank[r] != comm.topo.node_of_rank[0]) inter = r;
  }
  // v: values measured on rank 0 (the first rank of each measured pair), broadcast.
  // -1: not measured (no such pair), and the model keeps its default.
  constexpr int kN = 29;
  double v[kN];
  std::fill(v, v + kN, -1.0);
  for (int tier = 0; tier < 2; ++tier) {
    const int b = tier == 0 ? intra : inter;
    QuietBarrier(c);
    if (b < 0) continue;
    double fit[7];
    MeasureTier(c, me, 0, b, fit);
    if (me == 0) {
      std::copy(fit, fit + 6, v + 6 * tier);
      v[22 + tier] = fit[6];
    }
  }
  QuietBarrier(c);
  const int pair = intra >= 0 ? intra : inter;
  if (pair >= 0) {
    const double o = MessageOverheadUs(c, me, 0, pair);
    if (me == 0) v[12] = o;
  }
  QuietBarrier(c);
  for (int tier = 0; tier < 2; ++tier) {
    const int b = tier == 0 ? intra : inter;
    if (b >= 0) {
      const double o_r = RecvOverheadUs(c, me, b, 0);
      if (me == 0) v[tier == 0 ? 26 : 28] = o_r;
    }
    QuietBarrier(c);
  }
  const double gap = LinkMessageUs(c, comm.topo, me, inter);
  if (me == 0) v[27] = gap;
  QuietBarrier(c);
  if (pair >= 0) {
    const double call = CallOverheadUs(c, me, 0, pair);
    if (me == 0) v[17] = call;
  }
  QuietBarrier(c);
  const double cw = CounterWaitUs(c);
  QuietBarrier(c);
  const double handover = HandoverGBps(c);
  QuietBarrier(c);
  double single_copy[2];
  SingleCopy(c, single_copy);
  QuietBarrier(c);
  const double wake = WakeUs(c);
  // Copies and reduces on every rank at once, as a collective runs them: ranks of one machine
  // share its memory bandwidth (2 ranks here: 15 GB/s copying alone, less together).
  double local[3], cached[2];
  QuietBarrier(c);
  local[0] = CopyGBps();
  QuietBarrier(c);
  local[1] = ReduceGBps(weftFloat32, OutOfCacheBytes() / 2, 7);
  QuietBarrier(c);
  local[2] = ReduceGBps(weftFloat16, OutOfCacheBytes() / 2, 7);
  QuietBarrier(c);
  CachedComputeRates(cached);
  if (me == 0) {
    v[13] = cw;
    std::copy(local, local + 3, v + 14);
    std::copy(cached, cached + 2, v + 18);
    v[20] = handover;
    v[21] = single_copy[0];
    v[25] = single_copy[1];
    v[24] = wake;
  }
  MPI_Bcast(v, kN, MPI_DOUBLE, 0, c);
  static const char* const kNames[] = {"intra.latency_us",
                                       "intra.gbytes_per_s",
                                       "intra.eager_bytes",
                                       "intra.rendezvous_us",
                                       "intra.cached_bytes",
                                       "intra.cached_gbytes_per_s",
                                       "inter.latency_us",
                                       "inter.gbytes_per_s",
                                       "inter.eager_bytes",
                                       "inter.rendezvous_us",
                                       "inter.cached_bytes",
                                       "inter.cached_gbytes_per_s",
                                       "message_overhead_us",
                                       "counter_wait_us",
                                       "copy_gbytes_per_s",
                                       "reduce_gbytes_per_s",
                                       "reduce_half_gbytes_per_s",
                                       "call_overhead_us",
                                       "compute_cached_bytes",
                                       "reduce_cached_gbytes_per_s",
                                       "handover_gbytes_per_s",
                                       "single_copy_us",
                                       "intra.eager_gbytes_per_s",
                                       "inter.eager_gbytes_per_s",
                                       "wake_us",
                                       "single_copy_gbytes_per_s",
                                       "intra.recv_overhead_us",
                                       "link_message_us",
                                       "inter.recv_overhead_us"};
  static const char* const kHow[] = {
      "8 B ping-pong, half round trip, rank 0 and a rank of its node",
      "16 MiB exchanged both ways at once, bytes over (time - latency)",
      "largest ping-pong step between 256 B and 256 KiB beyond the bytes, bisected (0: none)",
      "that step's size",
      "largest exchange from 256 KiB within 80% of the best rate",
      "median rate of the exchanges up to that size",
      "8 B ping-pong, half round trip, rank 0 and a rank of another node",
      "16 MiB exchanged both ways at once across nodes",
      "as intra.eager_bytes, across nodes",
      "as intra.rendezvous_us, across nodes",
      "as intra.cached_bytes, across nodes",
      "as intra.cached_gbytes_per_s, across nodes",
      "64 sends posted together against one, extra time per send",
      "shared-memory counter handed between two ranks, half round trip",
      "memcpy on every rank at once, buffers twice the last-level cache",
      "reduce kernel on every rank at once, fp32 sum, out of cache, bytes read",
      "reduce kernel on every rank at once, fp16 sum, bytes read",
      "8 B allreduce by one exchange (rexch:2) on a weft communicator of the pair, against the "
      "same exchange in MPI, per call in a loop",
      "largest memcpy working set (source and destination, 128 KiB to 16 MiB) within 80% of the "
      "best rate, every rank at once",
      "reduce kernel, fp32 sum, with that working set, bytes read",
      "a 64 and a 256 KiB chunk copied into a shared slot by one rank and out by another, in "
      "turns: bytes per copy per second, the median",
      "process_vm_readv of 64 B, local ranks 0 and 1 reading each other at once, timed on rank 0, "
      "the median (where permitted)",
      "256 B ping-pong against the largest size under intra.eager_bytes: bytes over the added "
      "half round trip (0: no limit found)",
      "as intra.eager_gbytes_per_s, across nodes",
      "8 B exchange loop, every pair of a machine's ranks at once against one pair alone: time "
      "added per exchange (0 where rank 0's machine has a core per rank, or under 4 ranks)",
      "process_vm_readv of buffers twice the last-level cache, local ranks 0 and 1 reading each "
      "other at once, timed on rank 0, the median (where permitted)",
      "64 8 B messages from a rank of rank 0's node, already arrived, received together "
      "against one: extra time per receive",
      "every rank of rank 0's node sends 64 8 B messages to its counterpart on another node at "
      "once, against one each: extra time per message of the node",
      "as intra.recv_overhead_us, from the first rank of another node"};
  static_assert(std::size(kNames) == kN && std::size(kHow) == kN, "one name and how per value");
  std::vector<tune::WisdomParam> out;
  for (int i = 0; i < kN; ++i) {
    if (v[i] < 0) {
      notes->push_back(std::string(kNames[i]) + ": not measured (" + kHow[i] + "; no such pair)");
      continue;
    }
    out.push_back({kNames[i], v[i]});
    notes->push_back(std::string(kNames[i]) + Fmt(" = %.4g: ", v[i]) + kHow[i]);
  }
  return out;
}

}  // namespace weft::tune_tool
