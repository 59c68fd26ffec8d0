/* Blocking calls that wait on a peer while a nonblocking collective is in flight, where the
 * peer answers only after its wait on that collective: MPI_Ssend, MPI_Probe and
 * MPI_Mprobe/MPI_Mrecv (shim_p2p_progress.c covers MPI_Send/Recv/Sendrecv). MPI requires the
 * collective to progress inside those calls; Open MPI 4.1.4 hangs in them natively (its
 * nonblocking collectives do not advance inside a synchronous send's or probe's wait), so
 * there is no native output to compare with: the program checks its own results and prints
 * "self-check: all correct". Under the interposer the served MPI_Iallreduce must advance in
 * the blocking call; a hang is the failure (the test's timeout). */
#include <stdlib.h>

#include "shim_util.h"

enum { N = 1 << 20, MSG = 1 << 18, KINDS = 3 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  float* a = malloc(sizeof(float) * N);
  float* b = malloc(sizeof(float) * N);
  int* msg = malloc(sizeof(int) * MSG);
  int* back = malloc(sizeof(int) * MSG);
  const char* names[KINDS] = {"MPI_Ssend", "MPI_Probe", "MPI_Mprobe"};
  int wrong = 0;
  for (int kind = 0; kind < KINDS; ++kind) {
    for (int i = 0; i < N; ++i) a[i] = (float)((rank + 1) * (i % 7));
    for (int i = 0; i < MSG; ++i) msg[i] = rank * 1000 + i % 97 + kind;
    for (int i = 0; i < MSG; ++i) back[i] = -1;
    MPI_Request req;
    MPI_Iallreduce(a, b, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
    const int peer = rank == 0 ? 1 : 0;
    /* Rank 0 blocks on rank 1, which answers only after its MPI_Wait. */
    if (size >= 2 && rank == 0) {
      MPI_Status st;
      if (kind == 0) MPI_Ssend(msg, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD);
      if (kind == 1) {
        MPI_Probe(peer, kind, MPI_COMM_WORLD, &st);
        int n = 0;
        MPI_Get_count(&st, MPI_INT, &n);
        if (st.MPI_SOURCE != peer || st.MPI_TAG != kind || n != MSG) ++wrong;
        MPI_Recv(back, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      if (kind == 2) {
        MPI_Message m;
        MPI_Mprobe(peer, kind, MPI_COMM_WORLD, &m, &st);
        if (st.MPI_SOURCE != peer || st.MPI_TAG != kind) ++wrong;
        MPI_Mrecv(back, MSG, MPI_INT, &m, MPI_STATUS_IGNORE);
      }
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (size >= 2 && rank == 1) {
      if (kind == 0) MPI_Recv(back, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (kind >= 1) MPI_Send(msg, MSG, MPI_INT, peer, kind, MPI_COMM_WORLD);
    }
    /* The allreduce: sum over ranks of (r + 1) * (i % 7). */
    const float ranks_sum = (float)size * (size + 1) / 2;
    for (int i = 0; i < N; i += 4099) wrong += b[i] != ranks_sum * (float)(i % 7);
    /* The message: the peer's msg, where this rank received one. */
    const int received = size >= 2 && ((rank == 0 && kind >= 1) || (rank == 1 && kind == 0));
    for (int i = 0; received && i < MSG; i += 1013) wrong += back[i] != peer * 1000 + i % 97 + kind;
    if (rank == 0) printf("%s: done\n", names[kind]);
  }
  int all_wrong = 0;
  MPI_Reduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    if (all_wrong == 0) {
      printf("self-check: all correct\n");
    } else {
      printf("self-check: %d WRONG\n", all_wrong);
    }
  }
  free(a);
  free(b);
  free(msg);
  free(back);
  MPI_Finalize();
  return 0;
}
