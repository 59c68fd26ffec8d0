// Per-range recipe overrides (WEFT_TUNE): "allreduce:0-4K=rexch:2;allreduce:4K-=shmpipe;
// alltoall:*=pairwise". Each entry is COLL:RANGE=RECIPE, separated by ';'. COLL is a collective
// name or '*'; RANGE is '*', LO-HI (bytes from LO up to but not including HI) or LO- (from LO
// up), sizes with K/M/G suffixes, counted as the API's count times the element size; RECIPE
// is any recipe text (docs/ir.md), one-level or NODE/NET. The first entry that matches a call
// decides; WEFT_RECIPE beats every entry, and an entry beats the cost model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/coll_spec.h"
#include "sched/recipe.h"

namespace weft::tune {

/// One WEFT_TUNE entry.
struct Override {
  bool every_coll = false;  // '*'
  sched::Coll coll = sched::Coll::kAllReduce;
  uint64_t lo = 0, hi = UINT64_MAX;  // bytes, [lo, hi)
  sched::Recipe recipe;
  std::string text;  // the entry as written, for logs
};

/// Parses WEFT_TUNE's text; false with the first bad entry and why in *why.
bool ParseOverrides(const std::string& text, std::vector<Override>* out, std::string* why);

/// The first entry for a call of `coll` moving `bytes` (count times element size), or null.
const Override* FindOverride(const std::vector<Override>& overrides, sched::Coll coll,
                             uint64_t bytes);

}  // namespace weft::tune
