// Placement of the blocking call's code: the functions every small call runs sit together, and
// what it rarely runs sits elsewhere.
#pragma once

/// Marks a function that every blocking call (or plan start) runs. GCC and Clang put such
/// functions in .text.hot, which the linker gathers into one run of pages: a call that comes
/// cold (after a compute phase, or on a rank the scheduler just switched in) then takes a few
/// TLB and instruction-cache misses instead of one for every source file it passes through.
/// Measured by scripts/count-call-footprint.sh: an 8-byte bcast root's code spanned 18 pages,
/// 7 with this and WEFT_COLD.
#define WEFT_HOT __attribute__((hot))

/// Marks a function that only error paths or one-time set-up call (failures, program builds,
/// segment growth, placement probes): callers treat the branch to it as unlikely and GCC moves
/// that branch's code out of the hot run.
#define WEFT_COLD __attribute__((cold))
