// The simulator's expected results: every collective computed directly, reducing in rank
// order (x0 op x1 op ... op x(P-1)), from every rank's input.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/coll_spec.h"

namespace weft::sim {

/// Fills one rank's input with values whose reductions are exact in every type (small
/// integers; +-1 for products), so results compare bitwise whatever the bracketing.
void FillInput(const sched::CollSpec& spec, int rank, uint64_t seed, unsigned char* data,
               uint64_t bytes);

/// Expected receive buffer of `rank` given every rank's send buffer.
std::vector<unsigned char> Expected(const sched::CollSpec& spec, int rank,
                                    const std::vector<std::vector<unsigned char>>& inputs);
/// Every rank's expected receive buffer of a scan or exscan, in one pass over the ranks
/// (Expected per rank would reduce O(P^2) vectors).
std::vector<std::vector<unsigned char>> ExpectedPrefixes(
    const sched::CollSpec& spec, const std::vector<std::vector<unsigned char>>& inputs);

}  // namespace weft::sim
