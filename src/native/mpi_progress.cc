#include "native/mpi_progress.h"

#include <mpi.h>

namespace weft {

void PokeMpiProgress() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized) return;
  // Below MPI_THREAD_SERIALIZED only the main thread may call MPI; a wait on another thread
  // (weft's calls there make no MPI call on shared memory) leaves progress to the main one.
  static const bool main_only = [] {
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    return level < MPI_THREAD_SERIALIZED;
  }();
  if (main_only) {
    int is_main = 0;
    PMPI_Is_thread_main(&is_main);
    if (!is_main) return;
  }
  // A probe that finds nothing runs the progress engine (Open MPI 4.1.4 and MPICH 4.0.2 both:
  // MPICH's nonblocking3 test, whose ranks wait natively for each other's pending nonblocking
  // collectives, hung under the interposer without this and passes with it). It takes no
  // message, so the application's receives see the same queue.
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

}  // namespace weft
