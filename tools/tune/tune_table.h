// weft-tune's rows and what it makes of them: the per-range winners of a wisdom section and the
// printed table (model's choice against the measured best).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/coll_spec.h"
#include "tune/overrides.h"

namespace weft::tune_tool {

/// One measured point: the default choice and the fastest candidate.
struct Row {
  sched::Coll coll = sched::Coll::kAllReduce;
  uint64_t bytes = 0;    // count times element size (what a wisdom range keys on)
  std::string chosen;    // the default choice's recipe
  double chosen_us = 0;  // its measured time
  std::string best;      // the fastest recipe measured (chosen where none beat it)
  double best_us = 0;
  int candidates = 0;  // recipes measured besides the default
  /// --regret: chosen_us / best_us as the sweep measured them, before a rival is timed again
  /// (weft_tune.cc, Retime); 1 where the default's recipe was the sweep's fastest.
  double sweep_regret = 1;
};

/// Winners as ranges: each point's winner holds from the geometric mean of it and the point
/// below to that of it and the point above (the first from 0, the last without end); equal
/// neighbours merge. Rows must be sorted by (coll, bytes).
std::vector<tune::Override> RangesOf(const std::vector<Row>& rows);

/// The table, one line per row, with a header; `regret` titles the last column
/// default/best instead of the gain the tuner found.
std::string TableText(const std::vector<Row>& rows, bool regret);

}  // namespace weft::tune_tool
