// Timing recipes against each other on one call shape, the way weft-tune and its regret mode
// need it: one persistent plan per recipe (the default choice first), all on the same
// buffers, started in turns so drift in the machine hits every recipe alike; per turn the
// slowest rank's time, and the median over turns.
#pragma once

#include <string>
#include <vector>

#include "call/coll_args.h"
#include "comm/comm.h"
#include "compile/compile.h"

namespace weft::tune_tool {

/// One call shape to measure.
struct CallShape {
  CollKind kind = CollKind::kAllReduce;
  size_t count = 0;  // the API's count (per block for reduce_scatter and alltoall)
  weftDataType_t type = weftFloat32;
};

/// The median (the mean of the middle two for an even count; 0 for none).
double Median(std::vector<double> v);

/// The root's buffer extents for shape on comm (the largest any rank has, and the same on
/// every rank, so decisions made from it agree); false past what a call may address.
bool RootExtents(const Comm& comm, const CallShape& shape, Extents* e);

/// The candidates for shape on comm: the default choice's (SelectRecipe) first, then every
/// other by modelled time (sched::RankRecipes over comm's selection input). Empty when the
/// shape has no schedules.
std::vector<sched::RankedRecipe> Candidates(Comm& comm, const CallShape& shape);

/// A measured recipe.
struct Timing {
  std::string recipe;  // what ran (for the default: what the library chose)
  double us = 0;       // median over turns of the slowest rank's time per call
};

/// Times the library's default choice (timings[0]) and each of `forced` (timings[1..]) on
/// shape; every rank passes the same list. `reps` turns, each call repeated to take about
/// `turn_us`. False with *err on a failure.
bool TimeRecipes(Comm& comm, const CallShape& shape, const std::vector<sched::Recipe>& forced,
                 int reps, double turn_us, std::vector<Timing>* timings, std::string* err);

}  // namespace weft::tune_tool
