// WEFT_STATS=1: per intercepted MPI function, how many calls weft served and how many went
// to the native routine, printed by each rank to stderr at MPI_Finalize as
//   weft-stats MPI_Allreduce weft=N native=M
// Off by default (an unmodified program's output stays byte-identical to native); when off,
// counting costs one load of a cached flag.
#pragma once

namespace weft::shim {

/// Counts one call of fn (a string literal naming the MPI function): served by weft or not.
void CountCall(const char* fn, bool served);

/// Prints the counts (when WEFT_STATS=1) and clears them. Called at the start of MPI_Finalize.
void PrintStats();

}  // namespace weft::shim
