/* Times MPI_Init and 100 MPI_Comm_dup + MPI_Comm_free pairs (README.md has the runs). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char** argv) {
  double t0 = Now();
  MPI_Init(&argc, &argv);
  double t1 = Now();
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double t2 = Now();
  for (int i = 0; i < 100; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_free(&c);
  }
  double t3 = Now();
  if (rank == 0)
    printf("init %.1f ms, dup+free %.1f us each\n", (t1 - t0) * 1e3, (t3 - t2) * 1e6 / 100);
  MPI_Finalize();
}
