/* A rank dies while the others are in an interposed MPI_Allreduce (under weftrun): the
 * survivors' call must return an error (the program sets MPI_ERRORS_RETURN) instead of
 * hanging. Each survivor prints what it got and how long it took. For scripts/fault-matrix.sh
 * (Open MPI, which lets survivors run on with orte_enable_recovery). --count N: elements. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  long n = 1 << 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "--count") == 0) n = atol(argv[i + 1]);
  double* a = malloc(sizeof(double) * n);
  double* b = malloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i) a[i] = rank;
  MPI_Allreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* all alive: set up */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    usleep(300 * 1000); /* the survivors are in the next call, waiting for this rank */
    raise(SIGKILL);
  }
  const double t0 = MPI_Wtime();
  int rc = MPI_Allreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  printf("rank %d: MPI_Allreduce returned %s after %.1f s%s%s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error", MPI_Wtime() - t0, len ? ": " : "", text);
  fflush(stdout);
  _exit(rc == MPI_SUCCESS ? 1 : 0); /* MPI_Finalize with a dead peer may wait for ever */
}
