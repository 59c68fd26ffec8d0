#include "native/mpi_quirks.h"

#include <mpi.h>

#include <cstring>

namespace weft {

const MpiQuirks& GetMpiQuirks() {
  static const MpiQuirks quirks = [] {
    MpiQuirks q;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    // "MPICH Version:\t4.0.2 ..." (also MPICH derivatives that keep the prefix).
    q.in_place_reduce_at_nonzero_root_crashes = std::strncmp(lib, "MPICH Version:", 14) == 0;
    // "Open MPI v4.1.4, package: ..."
    q.in_place_ialltoallv_wrong = std::strncmp(lib, "Open MPI v4.", 12) == 0;
    return q;
  }();
  return quirks;
}

}  // namespace weft
