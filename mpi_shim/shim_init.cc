// MPI_Init, MPI_Init_thread and MPI_Finalize: set up the interposer once MPI is up. Cleanup
// needs no MPI_Finalize hook of its own: it is an attribute on MPI_COMM_SELF, which
// MPI_Finalize deletes first (see shim_state.cc).
#include "shim_colls.h"
#include "shim_state.h"

namespace weft::shim {

void AfterInit() {
  weft::shim::OnInit();
  weft::shim::Guard([] {
    weft::shim::SetUpEagerly(MPI_COMM_WORLD);
    return MPI_SUCCESS;
  });
}

}  // namespace weft::shim

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) weft::shim::AfterInit();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) weft::shim::AfterInit();
  return rc;
}

int MPI_Finalize(void) { return PMPI_Finalize(); }

}  // extern "C"
