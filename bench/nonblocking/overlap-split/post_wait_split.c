// Where a nonblocking call's time goes on each rank when both ranks compute (busy) between the
// post and the wait: native MPI_Ibcast/MPI_Iallreduce against weftIBroadcast/weftIAllReduce on
// the same buffers. Prints per rank the mean post, wait and total time over 200 iterations
// (20 warm-up), after a barrier each.
//   mpicc -O2 post_wait_split.c -I include -I BUILD/include -L BUILD/src -lweft \
//     -Wl,-rpath,BUILD/src -o post_wait_split
//   mpiexec -n 2 ./post_wait_split bcast|allreduce BYTES COMPUTE_US
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft/weft.h>

static void Busy(double s) {
  const double t0 = MPI_Wtime();
  volatile double x = 1;
  while (MPI_Wtime() - t0 < s) {
    for (int i = 0; i < 64; ++i) x = x * 1.0000001 + 1e-9;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int bcast = argc > 1 && strcmp(argv[1], "bcast") == 0;
  const size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 65536;
  const double comp = argc > 3 ? atof(argv[3]) * 1e-6 : 0;
  const size_t n = bytes / 4;
  float* send = calloc(n, 4);
  float* recv = calloc(n, 4);
  weftComm_t wc;
  weftCommInitMPI(&wc, MPI_COMM_WORLD);
  for (int weft = 0; weft < 2; ++weft) {
    double post = 0, wait = 0, total = 0;
    const int iters = 200, warm = 20;
    for (int it = 0; it < iters + warm; ++it) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      double t1, t2;
      if (!weft) {
        MPI_Request r;
        if (bcast) {
          MPI_Ibcast(recv, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD, &r);
        } else {
          MPI_Iallreduce(send, recv, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        }
        t1 = MPI_Wtime();
        Busy(comp);
        t2 = MPI_Wtime();
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        weftRequest_t r;
        if (bcast) {
          weftIBroadcast(recv, recv, n, weftFloat32, 0, wc, &r);
        } else {
          weftIAllReduce(send, recv, n, weftFloat32, weftSum, wc, &r);
        }
        t1 = MPI_Wtime();
        Busy(comp);
        t2 = MPI_Wtime();
        weftRequestWait(&r);
      }
      const double t3 = MPI_Wtime();
      if (it >= warm) {
        post += t1 - t0;
        wait += t3 - t2;
        total += t3 - t0;
      }
    }
    printf("%s %s rank %d bytes %zu compute %.0f us: post %.2f us, wait %.2f us, total %.2f us\n",
           weft ? "weft  " : "native", bcast ? "bcast" : "allreduce", rank, bytes, comp * 1e6,
           post / iters * 1e6, wait / iters * 1e6, total / iters * 1e6);
  }
  weftCommDestroy(wc);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
