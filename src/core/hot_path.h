// Placement of the blocking call's code: the functions every small call runs sit together.
#pragma once

/// Marks a function that every blocking call runs. GCC and Clang put such functions in
/// .text.hot, which the linker gathers into one run of pages: a call that comes cold (after a
/// barrier, a context switch or a compute phase) then takes a few TLB and instruction-cache
/// misses instead of one for every source file it passes through.
#define WEFT_HOT __attribute__((hot))

/// Marks a function that only error paths call: callers treat the branch to it as unlikely and
/// move its code out of the hot run.
#define WEFT_COLD __attribute__((cold))
