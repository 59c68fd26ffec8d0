// How much of a nonblocking collective computation hides, by OSU's definition (osu_iallreduce
// and friends), so the numbers compare with the OSU micro-benchmarks':
//   t_pure   = post + wait, nothing between;
//   t_total  = post + compute for t_pure + wait;   t_compute = the compute's own time;
//   overlap  = max(0, 100 * (1 - (t_total - t_compute) / t_pure)) percent.
// Like OSU by default, the compute makes no MPI or weft call: what overlaps is what the
// library advances without being called (the post itself, messages the MPI moves on its own).
#pragma once

#include "bench_colls.h"

namespace bench {

/// One side's overlap at one size (times: medians over iterations of the slowest rank).
struct Overlap {
  double pure_us = 0, total_us = 0, compute_us = 0, percent = 0;
};

/// Measures side weft (else native MPI) at shape s, out of place; false on a failed call.
bool MeasureOverlap(const Ctx& x, const Options& o, const Shape& s, bool weft, Overlap* out);
/// For each collective and size of o: both sides' overlap, printed as a table on rank 0.
bool RunOverlapTables(Ctx x, const Options& o);

}  // namespace bench
