// The placement probe (transport/shm/placement_probe.h) over a real node segment: every rank
// gets node rank 0's verdict, rank 0's handover times are real and the verdict follows them,
// probes repeat on one segment (each has its own values), and a peer that never comes makes
// rank 0 give up with weftTimeout at the deadline instead of hanging. At 3 or more ranks rank 0
// probes its peers one after another through the one probe block.
#include "transport/shm/placement_probe.h"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "mp_check.h"
#include "transport/shm/shm_segment.h"

namespace {

constexpr int kProbes = 5;

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0, n = 1;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &n);
  mpt::Report report(node);
  std::shared_ptr<weft::ShmSegment> seg;
  std::string why_create;
  const bool made = weft::ShmSegment::Create(node, 4096, &seg, &why_create) == weftSuccess;
  report.Case(made, "segment", why_create);
  if (made && n > 1) {
    for (int p = 0; p < kProbes; ++p) {
      weft::PlacementProbe probe;
      const char* why = "";
      const std::string name = "probe " + std::to_string(p);
      const bool ok = weft::ProbePlacement(*seg, 10, &probe, &why) == weftSuccess;
      report.Case(ok, name, why);
      int verdict = probe.stream ? 1 : 0, lo = 0, hi = 0;
      MPI_Allreduce(&verdict, &lo, 1, MPI_INT, MPI_MIN, node);
      MPI_Allreduce(&verdict, &hi, 1, MPI_INT, MPI_MAX, node);
      report.Case(lo == hi, name + " verdict", "ranks disagree on node rank 0's verdict");
      if (rank == 0 && ok) {
        const bool timed = probe.max_rtt_ns > 0 && probe.plain_ns > 0 && probe.stream_ns > 0 &&
                           std::isfinite(probe.plain_ns) && std::isfinite(probe.stream_ns);
        report.Case(timed, name + " times", "a round trip or handover was not timed");
        // With one peer the verdict is that peer's comparison exactly, for a peer that does not
        // share a cache.
        if (n == 2 && timed) {
          const bool want = probe.max_rtt_ns >= weft::kSharedCacheRttNs &&
                            probe.stream_ns <= weft::kStreamMargin * probe.plain_ns;
          report.Case(probe.stream == want, name + " rule",
                      "verdict does not follow the handover times");
        }
      }
    }
    // Rank 0 probes alone: with a 1 s deadline it must return weftTimeout in about that time.
    MPI_Barrier(node);
    if (rank == 0) {
      weft::PlacementProbe probe;
      const char* why = "";
      const auto t0 = std::chrono::steady_clock::now();
      const weftResult_t s = weft::ProbePlacement(*seg, 1, &probe, &why);
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      report.Case(s == weftTimeout, "absent peer", "status " + std::to_string(s));
      report.Case(secs >= 0.9 && secs < 5, "absent peer deadline",
                  "gave up after " + std::to_string(secs) + " s");
    }
  }
  const int rc = report.Finish("placement_probe");
  MPI_Comm_free(&node);
  MPI_Finalize();
  return rc;
}
