/* Blocking collectives while a nonblocking collective is in flight, where the peers wait for
 * that collective before they join the blocking one: MPI progresses the nonblocking collective
 * inside the blocking call, so the program ends natively. Under the interposer:
 *   - a blocking call weft serves on another communicator must advance the served
 *     MPI_Iallreduce in its wait (MPI_Allreduce, MPI_Barrier, MPI_Alltoallv on a duplicate);
 *   - a blocking collective weft leaves to MPI on the same communicator (a user-defined op,
 *     MPI_Gatherv, MPI_Scan, MPI_Comm_dup) must complete the served call first;
 *   - a blocking call weft serves on the same communicator (MPI_Gather) runs after it, in the
 *     order started.
 * Each round: every rank posts MPI_Iallreduce of 4 MiB on MPI_COMM_WORLD; rank 0 then makes the
 * blocking call before its MPI_Wait, the others after theirs. A hang is the failure (the
 * test's timeout); every result is compared with the native run's. */
#include <stdlib.h>
#include <string.h>

#include "shim_util.h"

enum { N = 1 << 20, M = 4096, ROUNDS = 8 };

static void MaxOp(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) {
    int* a = (int*)in;
    int* b = (int*)inout;
    if (a[i] > b[i]) b[i] = a[i];
  }
}

/* The blocking call of round k; its result in out (M ints). */
static void Blocking(int k, MPI_Comm dup, MPI_Op user_max, const int* in, int* out) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  memset(out, 0, sizeof(int) * M);
  if (k == 0) MPI_Allreduce(in, out, M, MPI_INT, MPI_SUM, dup);
  if (k == 1) {
    MPI_Barrier(dup);
    out[0] = 1;
  }
  if (k == 2) {
    int* sc = malloc(sizeof(int) * size);
    int* sd = malloc(sizeof(int) * size);
    const int per = M / size;
    for (int p = 0; p < size; ++p) sc[p] = per, sd[p] = p * per;
    MPI_Alltoallv(in, sc, sd, MPI_INT, out, sc, sd, MPI_INT, MPI_COMM_WORLD);
    free(sc);
    free(sd);
  }
  if (k == 3) MPI_Allreduce(in, out, M, MPI_INT, user_max, MPI_COMM_WORLD);
  if (k == 4 || k == 7) {
    int* all = malloc(sizeof(int) * 16 * size);
    if (k == 4) {
      int* counts = malloc(sizeof(int) * size);
      int* displs = malloc(sizeof(int) * size);
      for (int r = 0; r < size; ++r) counts[r] = 16, displs[r] = 16 * r;
      MPI_Gatherv(in, 16, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
      free(counts);
      free(displs);
    } else {
      MPI_Gather(in, 16, MPI_INT, all, 16, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (rank == 0) memcpy(out, all, sizeof(int) * 16 * (size < 64 ? size : 64));
    free(all);
  }
  if (k == 5) MPI_Scan(in, out, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (k == 6) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_size(c, &out[0]);
    MPI_Comm_free(&c);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  /* weft's communicator for dup is made by the first served call on it, a blocking step of
   * its own: made here, before any nonblocking call is in flight (docs/reliability.md). */
  MPI_Barrier(dup);
  MPI_Op user_max;
  MPI_Op_create(MaxOp, 1, &user_max);
  const char* names[ROUNDS] = {"MPI_Allreduce on a duplicate",
                               "MPI_Barrier on a duplicate",
                               "MPI_Alltoallv",
                               "MPI_Allreduce, user op",
                               "MPI_Gatherv",
                               "MPI_Scan",
                               "MPI_Comm_dup",
                               "MPI_Gather (served, same communicator)"};
  float* a = malloc(sizeof(float) * N);
  float* b = malloc(sizeof(float) * N);
  int* in = malloc(sizeof(int) * M);
  int* out = malloc(sizeof(int) * M);
  for (int k = 0; k < ROUNDS; ++k) {
    for (int i = 0; i < N; ++i) a[i] = (float)((rank + 1) * (i % 7));
    for (int i = 0; i < M; ++i) in[i] = rank * 31 + i % 89 + k;
    MPI_Request req;
    MPI_Iallreduce(a, b, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
    if (rank == 0) Blocking(k, dup, user_max, in, out);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank != 0) Blocking(k, dup, user_max, in, out);
    char name[96];
    snprintf(name, sizeof(name), "%s: iallreduce", names[k]);
    Report(MPI_COMM_WORLD, name, b, sizeof(float) * N);
    snprintf(name, sizeof(name), "%s: result", names[k]);
    Report(MPI_COMM_WORLD, name, out, sizeof(int) * M);
  }
  free(a);
  free(b);
  free(in);
  free(out);
  MPI_Op_free(&user_max);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
