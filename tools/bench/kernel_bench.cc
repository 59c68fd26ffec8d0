// weft-kernel-bench: one core's rates for the local kernels the intra-node schedules run
// (memcpy, the non-temporal StreamCopy, the k-way reduce with cached and streamed output), in
// cache (64 KiB, 256 KiB: what a pipeline chunk sees) and from memory (64 MiB). GB/s counts
// bytes read plus bytes written. docs/intra-node.md quotes its output.
//   weft-kernel-bench [--reps N]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exec/kway_reduce.h"
#include "exec/stream_copy.h"

namespace {

template <typename F>
double Rate(size_t bytes_moved, int reps, F&& f) {
  f();  // warm
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) f();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(bytes_moved) * reps / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf(
        "usage: weft-kernel-bench [--reps N]\n"
        "  one core's GB/s for memcpy, weft's streaming copy and its two-input reduce kernels\n"
        "  at 64 KiB, 256 KiB and 64 MiB (--reps multiplies the repetitions)\n");
    return 0;
  }
  int reps_scale = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--reps") reps_scale = std::max(1, std::atoi(argv[i + 1]));
  }
  std::printf("# weft-kernel-bench: one core, GB/s of bytes read + written, double sum\n");
  std::printf("%10s %10s %10s %12s %14s\n", "bytes", "memcpy", "stream", "reduce2", "reduce2_nt");
  for (size_t bytes : {size_t{64} << 10, size_t{256} << 10, size_t{64} << 20}) {
    const size_t n = bytes / sizeof(double);
    std::vector<double> a(n, 1.0), b(n, 2.0), d(n, 0.0);
    const int reps = reps_scale * (bytes < (size_t{1} << 20) ? 4000 : 10);
    const void* srcs[2] = {a.data(), b.data()};
    const double cp = Rate(2 * bytes, reps, [&] { std::memcpy(d.data(), a.data(), bytes); });
    const double nt = Rate(2 * bytes, reps, [&] {
      weft::StreamCopy(d.data(), a.data(), bytes);
      weft::StreamFence();
    });
    const double r2 = Rate(3 * bytes, reps, [&] {
      weft::KWayReduce(d.data(), srcs, 2, n, weftFloat64, weftSum, false);
    });
    const double r2nt = Rate(3 * bytes, reps, [&] {
      weft::KWayReduce(d.data(), srcs, 2, n, weftFloat64, weftSum, true);
      weft::StreamFence();
    });
    std::printf("%10zu %10.1f %10.1f %12.1f %14.1f\n", bytes, cp, nt, r2, r2nt);
  }
  return 0;
}
