/* Blocking point-to-point while a nonblocking collective is in flight, where the peer waits
 * for that collective before it sends or receives: MPI progresses the collective inside the
 * blocking call, so the program ends natively; under the interposer weft's schedule must
 * advance there too. Each rank posts MPI_Iallreduce of 4 MiB (several pipeline steps), then
 * rank 0 blocks in MPI_Recv / MPI_Send / MPI_Sendrecv that rank 1 answers only after its
 * MPI_Wait. A hang is the failure (the test's timeout). */
#include <stdlib.h>

#include "shim_util.h"

enum { N = 1 << 20, MSG = 1 << 18 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float* a = malloc(sizeof(float) * N);
  float* b = malloc(sizeof(float) * N);
  int* msg = malloc(sizeof(int) * MSG);
  int* back = malloc(sizeof(int) * MSG);
  const char* names[3] = {"MPI_Recv", "MPI_Send", "MPI_Sendrecv"};
  for (int kind = 0; kind < 3; ++kind) {
    for (int i = 0; i < N; ++i) a[i] = (float)((rank + 1) * (i % 7));
    for (int i = 0; i < MSG; ++i) msg[i] = rank * 1000 + i % 97 + kind;
    MPI_Request req;
    MPI_Iallreduce(a, b, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
    const int peer = rank == 0 ? 1 : 0;
    if (size >= 2 && rank == 0) {
      if (kind == 0) MPI_Recv(back, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (kind == 1) MPI_Send(msg, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD);
      if (kind == 2) {
        MPI_Status st;
        MPI_Sendrecv(msg, MSG, MPI_INT, peer, kind, back, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD,
                     &st);
        if (st.MPI_SOURCE != peer || st.MPI_TAG != kind) printf("rank 0: bad status\n");
      }
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (size >= 2 && rank == 1) {
      if (kind == 0) MPI_Send(msg, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD);
      if (kind == 1) MPI_Recv(back, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (kind == 2) {
        MPI_Sendrecv(msg, MSG, MPI_INT, peer, kind, back, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
      }
    }
    double sum = 0;
    for (int i = 0; i < N; i += 4099) sum += b[i];
    long moved = 0;
    if (size >= 2 && rank <= 1 && !(rank == 1 && kind == 0) && !(rank == 0 && kind == 1)) {
      for (int i = 0; i < MSG; i += 1013) moved += back[i];
    }
    /* Rank 0 prints every rank's line, in rank order (output must match the native run's). */
    double mine[2] = {sum, (double)moved};
    double* all = malloc(sizeof(double) * 2 * size);
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size; ++r) {
      printf("rank %d %s: allreduce sample %.1f, message sample %.0f\n", r, names[kind], all[2 * r],
             all[2 * r + 1]);
    }
    free(all);
  }
  free(a);
  free(b);
  free(msg);
  free(back);
  MPI_Finalize();
  return 0;
}
