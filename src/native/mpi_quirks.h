// Defects of the MPI library in use that the native path must step around, detected once
// from MPI_Get_library_version. Each flag names the defect and where it was seen.
#pragma once

namespace weft {

/// Known defects of the running MPI library.
struct MpiQuirks {
  /// MPICH 4.0.x: MPI_Reduce with MPI_IN_PLACE at a non-zero root can crash
  /// (pmodels/mpich#6540; seen here with MPICH 4.0.2 as a segfault in MPI_Reduce).
  bool in_place_reduce_at_nonzero_root_crashes = false;
  /// Open MPI 4.1.4 (libnbc): MPI_Ialltoallv with MPI_IN_PLACE delivers some wrong elements
  /// (seen here at 5 ranks with uneven blocks, 3 elements wrong on one rank; the blocking call
  /// and MPICH 4.0.2 are right).
  bool in_place_ialltoallv_wrong = false;
};

/// The quirks of the MPI library this process runs on.
const MpiQuirks& GetMpiQuirks();

}  // namespace weft
