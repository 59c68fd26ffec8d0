// Defects of the MPI library in use that the native path must step around, detected once
// from MPI_Get_library_version. Each flag names the defect and where it was seen.
#pragma once

namespace weft {

/// Known defects of the running MPI library.
struct MpiQuirks {
  /// MPICH 4.0.x: MPI_Reduce with MPI_IN_PLACE at a non-zero root can crash
  /// (pmodels/mpich#6540; seen here with MPICH 4.0.2 as a segfault in MPI_Reduce).
  bool in_place_reduce_at_nonzero_root_crashes = false;
};

/// The quirks of the MPI library this process runs on.
const MpiQuirks& GetMpiQuirks();

}  // namespace weft
