// A plain MPI program that knows nothing of weft: the unmodified C program of a newcomer's
// first run under weftrun. It prints one line of checksums from rank 0, the same whichever
// library runs its collectives.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { kCount = 4096 };
  double* a = malloc(sizeof(double) * kCount * size);
  double* b = malloc(sizeof(double) * kCount * size);
  for (int i = 0; i < kCount * size; ++i) a[i] = rank + 0.25 * (i % 7);
  double sums[3] = {0, 0, 0};
  for (int iter = 0; iter < 10; ++iter) {
    MPI_Allreduce(a, b, kCount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sums[0] += b[iter];
    MPI_Bcast(b, kCount, MPI_DOUBLE, iter % size, MPI_COMM_WORLD);
    MPI_Alltoall(a, kCount / size, MPI_DOUBLE, b, kCount / size, MPI_DOUBLE, MPI_COMM_WORLD);
    sums[1] += b[kCount / size * (size - 1)];
    MPI_Allgather(a, 16, MPI_DOUBLE, b, 16, MPI_DOUBLE, MPI_COMM_WORLD);
    sums[2] += b[16 * (size - 1) + iter];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("plain_mpi: %d ranks, checksums %.2f %.2f %.2f\n", size, sums[0], sums[1], sums[2]);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
