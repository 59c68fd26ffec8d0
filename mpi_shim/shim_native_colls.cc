// Blocking collectives weft leaves to MPI (alltoallw and the collective communicator
// constructors; allgatherv is in shim_allgatherv.cc, gatherv and scatterv in shim_vcolls.cc,
// gather and scatter in shim_gather_scatter.cc, the scans in shim_scan.cc). Intercepted so that the
// served nonblocking calls on the same communicator complete first: MPI's routine cannot
// advance weft's calls, and a peer may wait for this rank's part of one before it joins this
// call (tests/shim/shim_progress_colls.c hung before). A program with no served call in flight
// pays one atomic load. The constructors also set weft up on the communicator they make.
#include <mpi.h>

#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"

using weft::shim::Guard;
using weft::shim::NonblockingRunning;
using weft::shim::RunNative;

using weft::shim::Created;

namespace weft::shim {

int Created(int rc, const MPI_Comm* made) {
  if (rc == MPI_SUCCESS) SetUpEagerly(*made);
  return rc;
}

}  // namespace weft::shim

extern "C" {

int MPI_Alltoallw(const void* s, const int sc[], const int sd[], const MPI_Datatype st[], void* r,
                  const int rc[], const int rd[], const MPI_Datatype rt[], MPI_Comm comm) {
  if (!NonblockingRunning()) return PMPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
  return Guard([&] {
    return RunNative(comm, [&] { return PMPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm); });
  });
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  return Guard(
      [&] { return Created(RunNative(comm, [&] { return PMPI_Comm_dup(comm, out); }), out); });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  return Guard([&] {
    return Created(RunNative(comm, [&] { return PMPI_Comm_split(comm, color, key, out); }), out);
  });
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  return Guard([&] {
    return Created(RunNative(comm, [&] { return PMPI_Comm_create(comm, group, out); }), out);
  });
}

}  // extern "C"
