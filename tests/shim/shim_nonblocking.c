/* Nonblocking collectives (MPI_Iallreduce and friends) posted several at a time, with native
 * point-to-point requests and fallbacks (a user-defined op, uneven MPI_Ireduce_scatter) in
 * the same arrays, completed by every completion call: Wait (in reverse on odd ranks), Waitall,
 * Test loops, Testall, Testany, Waitany, Waitsome, Testsome; then MPI_Ialltoallv, out of place
 * and in place. Results are hashed per rank
 * (shim_util.h); the run under weftrun must print what the native run prints. */
#include <string.h>

#include "shim_util.h"

enum { N = 1001, KINDS = 11 };

static void Sum3(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += 3 * ((int*)in)[i];
}

typedef struct {
  double *a, *b, *c, *d;
  int *x, *y, *z, *u, *v, *w;
  int *ring_in, *ring_out;
} Bufs;

/* Posts every kind of call at count n into req[0..KINDS): served collectives, two fallbacks,
 * and a native ring exchange. Inputs are small integers, exact in every type and order. */
static void Post(Bufs* B, int n, int rank, int size, MPI_Op user_op, MPI_Request* req,
                 int* counts) {
  for (int i = 0; i < n * size; ++i) {
    B->a[i] = (rank + 1) * (i % 5 + 1);
    B->c[i] = rank == 0 ? i % 9 : -1;
    B->d[i] = rank * 2 + i % 3;
    B->x[i] = rank * 100 + i % 11;
    B->u[i] = rank + i % 4;
  }
  for (int i = 0; i < n; ++i) B->ring_out[i] = rank * 7 + i;
  MPI_Comm w = MPI_COMM_WORLD;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Iallreduce(B->a, B->b, n, MPI_DOUBLE, MPI_SUM, w, &req[0]);
  MPI_Iallreduce(MPI_IN_PLACE, B->d, n, MPI_DOUBLE, MPI_MAX, w, &req[1]);
  MPI_Ireduce(B->x, B->y, n, MPI_INT, MPI_MIN, size - 1, w, &req[2]);
  MPI_Ibcast(B->c, n, MPI_DOUBLE, 0, w, &req[3]);
  MPI_Iallgather(B->x, n, MPI_INT, B->z, n, MPI_INT, w, &req[4]);
  MPI_Ialltoall(B->u, n, MPI_INT, B->v, n, MPI_INT, w, &req[5]);
  MPI_Ireduce_scatter_block(B->x, B->w, n, MPI_INT, MPI_SUM, w, &req[6]);
  MPI_Iallreduce(B->u, B->ring_in + n, n, MPI_INT, user_op, w, &req[7]); /* native: user op */
  for (int r = 0; r < size; ++r) counts[r] = r == 0 ? n + 1 : n;         /* uneven: native */
  MPI_Ireduce_scatter(B->x, B->y + n * size, counts, MPI_INT, MPI_SUM, w, &req[8]);
  MPI_Irecv(B->ring_in, n, MPI_INT, left, 5, w, &req[9]);
  MPI_Isend(B->ring_out, n, MPI_INT, right, 5, w, &req[10]);
}

static void Complete(int how, int rank, MPI_Request* req) {
  int flag = 0, index = 0, outcount = 0, indices[KINDS];
  MPI_Status st[KINDS];
  switch (how) {
    case 0:
      MPI_Waitall(KINDS, req, MPI_STATUSES_IGNORE);
      break;
    case 1: /* Wait one by one, in reverse on odd ranks: ranks complete in different orders */
      for (int i = 0; i < KINDS; ++i) MPI_Wait(&req[rank % 2 ? KINDS - 1 - i : i], &st[0]);
      break;
    case 2:
      for (int i = 0; i < KINDS; ++i) {
        do MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
        while (!flag);
      }
      break;
    case 3:
      do MPI_Testall(KINDS, req, &flag, st);
      while (!flag);
      break;
    case 4:
      for (;;) {
        MPI_Testany(KINDS, req, &index, &flag, MPI_STATUS_IGNORE);
        if (flag && index == MPI_UNDEFINED) break;
      }
      break;
    case 5:
      for (int i = 0; i < KINDS; ++i) MPI_Waitany(KINDS, req, &index, MPI_STATUS_IGNORE);
      MPI_Waitany(KINDS, req, &index, MPI_STATUS_IGNORE);
      if (index != MPI_UNDEFINED) printf("Waitany found an active request after all\n");
      break;
    case 6:
      for (;;) {
        MPI_Waitsome(KINDS, req, &outcount, indices, st);
        if (outcount == MPI_UNDEFINED) break;
      }
      break;
    default:
      for (;;) {
        MPI_Testsome(KINDS, req, &outcount, indices, MPI_STATUSES_IGNORE);
        if (outcount == MPI_UNDEFINED) break;
      }
      break;
  }
  for (int i = 0; i < KINDS; ++i) {
    if (req[i] != MPI_REQUEST_NULL) printf("request %d was not freed by its completion\n", i);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op user_op;
  MPI_Op_create(Sum3, 1, &user_op);
  const size_t cap = (size_t)N * size + size + 1;
  Bufs B;
  double** dbl[] = {&B.a, &B.b, &B.c, &B.d};
  int** ints[] = {&B.x, &B.y, &B.z, &B.u, &B.v, &B.w, &B.ring_in, &B.ring_out};
  for (int i = 0; i < 4; ++i) *dbl[i] = calloc(cap, sizeof(double));
  for (int i = 0; i < 8; ++i) *ints[i] = calloc(2 * cap, sizeof(int));
  int* counts = malloc(sizeof(int) * size);
  const int ns[] = {0, 1, 7, N};
  char name[96];
  for (int how = 0; how < 8; ++how) {
    for (int k = 0; k < 4; ++k) {
      const int n = ns[k];
      MPI_Request req[KINDS];
      Post(&B, n, rank, size, user_op, req, counts);
      Complete(how, rank, req);
      snprintf(name, sizeof(name), "how %d n %d", how, n);
      size_t db = sizeof(double) * n, ib = sizeof(int) * n;
      uint64_t h[] = {
          Fnv(B.b, db), Fnv(B.d, db),           Fnv(B.y, ib * (rank == size - 1)),
          Fnv(B.c, db), Fnv(B.z, ib * size),    Fnv(B.v, ib * size),
          Fnv(B.w, ib), Fnv(B.ring_in, ib * 2), Fnv(B.y + n * size, ib + 4 * (rank == 0))};
      Report(MPI_COMM_WORLD, name, h, sizeof(h));
    }
  }
  /* (MPI_Request_free on a nonblocking collective is erroneous in MPI: Open MPI rejects it.)
   * A barrier, then a call whose request is waited for while a native one is pending. */
  MPI_Request bar;
  MPI_Ibarrier(MPI_COMM_WORLD, &bar);
  MPI_Wait(&bar, MPI_STATUS_IGNORE);
  MPI_Request ring[2];
  MPI_Irecv(B.ring_in, 1, MPI_INT, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &ring[0]);
  MPI_Iallreduce(B.a, B.d, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &bar);
  MPI_Wait(&bar, MPI_STATUS_IGNORE);
  MPI_Isend(B.ring_out, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &ring[1]);
  MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
  Report(MPI_COMM_WORLD, "after a barrier", B.d, sizeof(double) * N);
  /* In place, the send count and type are ignored: -1 and MPI_DATATYPE_NULL, as MPICH's own
   * tests pass them (weft used to hand these to the native routine). */
  for (int i = 0; i < N * size; ++i) B.z[i] = B.v[i] = rank * 10 + i % 13;
  MPI_Request inplace[2];
  MPI_Iallgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, B.z, N, MPI_INT, MPI_COMM_WORLD, &inplace[0]);
  MPI_Ialltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, B.v, N, MPI_INT, MPI_COMM_WORLD, &inplace[1]);
  MPI_Waitall(2, inplace, MPI_STATUSES_IGNORE);
  Report(MPI_COMM_WORLD, "in-place iallgather", B.z, sizeof(int) * N * size);
  Report(MPI_COMM_WORLD, "in-place ialltoall", B.v, sizeof(int) * N * size);
  /* MPI_Ialltoallv: uneven blocks (pair counts (i + j) mod 3 times 5, placed last rank first),
   * out of place with a native receive pending in the same Waitall, then in place. */
  {
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int total = 0;
    for (int j = size - 1; j >= 0; --j) {
      sc[j] = ((rank + j) % 3) * 5;
      sd[j] = total;
      total += sc[j] + 1;
    }
    for (int i = 0; i < total; ++i) {
      B.u[i] = rank * 1000 + i;
      B.v[i] = B.w[i] = -1;
    }
    MPI_Request vreq[3];
    MPI_Irecv(B.ring_in, 1, MPI_INT, (rank + size - 1) % size, 11, MPI_COMM_WORLD, &vreq[0]);
    MPI_Ialltoallv(B.u, sc, sd, MPI_INT, B.v, sc, sd, MPI_INT, MPI_COMM_WORLD, &vreq[1]);
    MPI_Isend(B.ring_out, 1, MPI_INT, (rank + 1) % size, 11, MPI_COMM_WORLD, &vreq[2]);
    MPI_Waitall(3, vreq, MPI_STATUSES_IGNORE);
    Report(MPI_COMM_WORLD, "ialltoallv", B.v, sizeof(int) * total);
    for (int i = 0; i < total; ++i) B.w[i] = rank * 1000 + i;
    MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, B.w, sc, sd, MPI_INT,
                   MPI_COMM_WORLD, &vreq[0]);
    MPI_Wait(&vreq[0], MPI_STATUS_IGNORE);
    Report(MPI_COMM_WORLD, "in-place ialltoallv", B.w, sizeof(int) * total);
    free(sc);
    free(sd);
  }
  MPI_Op_free(&user_op);
  MPI_Finalize();
  return 0;
}
