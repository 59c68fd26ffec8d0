/* What the interposer remembers between blocking calls: each thread reuses one call state per
 * kind (its arrays and buffer views) and its last communicator lookup. Calls in a row here change
 * every input that state was made from: dense then strided (packed) datatypes, counts, roots,
 * MPI_IN_PLACE; a nonblocking call is left pending across blocking ones of the same kind (its
 * state must be its own); and communicators are freed and made again, split differently, so that
 * MPI hands out a freed handle for a communicator of another size. Every result's hash is
 * printed; the run under weftrun must print the same as the native one. */
#include <string.h>

#include "shim_util.h"

static int rank, size;

/* Every rank's hash of its bytes, printed by MPI_COMM_WORLD's rank 0 (the split communicators'
 * groups would print in an order of their own). Collective over MPI_COMM_WORLD. */
static void ReportWorld(const char* name, const void* p, size_t bytes) {
  Report(MPI_COMM_WORLD, name, p, bytes);
}

/* Fills n ints with values that depend on rank, call and position. */
static void Fill(int* p, int n, int call) {
  for (int i = 0; i < n; ++i) p[i] = rank * 1000 + call * 31 + i;
}

/* MPI_Alltoallv with block q of `unit + q` elements of t (a dense int or a strided pair). */
static void Alltoallv(MPI_Comm comm, const char* name, MPI_Datatype t, int stride, int unit,
                      int call) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  int sc[64], sd[64], rc[64], rd[64], at = 0, rat = 0;
  for (int q = 0; q < n; ++q) {
    sc[q] = unit + q;
    sd[q] = at;
    at += sc[q];
    rc[q] = unit + me;
    rd[q] = rat;
    rat += rc[q];
  }
  int* s = (int*)malloc(sizeof(int) * (at * stride + 1));
  int* r = (int*)malloc(sizeof(int) * (rat * stride + 1));
  Fill(s, at * stride + 1, call);
  memset(r, 0, sizeof(int) * (rat * stride + 1));
  MPI_Alltoallv(s, sc, sd, t, r, rc, rd, t, comm);
  ReportWorld(name, r, sizeof(int) * (rat * stride + 1));
  free(s);
  free(r);
}

/* MPI_Gatherv to root of rank q's `q + extra` ints, in place at the root when asked. */
static void Gatherv(MPI_Comm comm, const char* name, int root, int extra, int in_place, int call) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  int rc[64], rd[64], total = 0;
  for (int q = 0; q < n; ++q) {
    rc[q] = q + extra;
    rd[q] = total;
    total += rc[q];
  }
  int* s = (int*)malloc(sizeof(int) * (rc[me] + 1));
  int* r = (int*)malloc(sizeof(int) * (total + 1));
  Fill(s, rc[me] + 1, call);
  memset(r, 0, sizeof(int) * (total + 1));
  if (in_place && me == root) Fill(r + rd[me], rc[me], call);
  MPI_Gatherv(in_place && me == root ? MPI_IN_PLACE : s, rc[me], MPI_INT, r, rc, rd, MPI_INT, root,
              comm);
  ReportWorld(name, r, me == root ? sizeof(int) * (total + 1) : 0);
  free(s);
  free(r);
}

/* MPI_Allreduce of count ints. */
static void Allreduce(MPI_Comm comm, const char* name, int count, int call) {
  int* s = (int*)malloc(sizeof(int) * (count + 1));
  int* r = (int*)malloc(sizeof(int) * (count + 1));
  Fill(s, count + 1, call);
  memset(r, 0, sizeof(int) * (count + 1));
  MPI_Allreduce(s, r, count, MPI_INT, MPI_SUM, comm);
  ReportWorld(name, r, sizeof(int) * (count + 1));
  free(s);
  free(r);
}

/* MPI_Allgather of count elements of t, each `ints` ints wide (MPI_INT, or a derived pair). */
static void Allgather(MPI_Comm comm, const char* name, MPI_Datatype t, int count, int ints,
                      int call) {
  int n;
  MPI_Comm_size(comm, &n);
  const int mine = count * ints, all = mine * n;
  int* s = (int*)malloc(sizeof(int) * (mine + 1));
  int* r = (int*)malloc(sizeof(int) * (all + 1));
  Fill(s, mine + 1, call);
  memset(r, 0, sizeof(int) * (all + 1));
  MPI_Allgather(s, count, t, r, count, t, comm);
  ReportWorld(name, r, sizeof(int) * (all + 1));
  free(s);
  free(r);
}

/* One round of calls whose state changes from call to call, on comm. */
static void Round(MPI_Comm comm, const char* tag, MPI_Datatype strided, int call) {
  char name[96];
  snprintf(name, sizeof name, "%s alltoallv dense", tag);
  Alltoallv(comm, name, MPI_INT, 1, 3, call);
  snprintf(name, sizeof name, "%s alltoallv strided", tag);
  Alltoallv(comm, name, strided, 2, 2, call + 1);
  snprintf(name, sizeof name, "%s alltoallv dense, other counts", tag);
  Alltoallv(comm, name, MPI_INT, 1, 700, call + 2);
  int n;
  MPI_Comm_size(comm, &n);
  for (int k = 0; k < 3; ++k) {  // as many on every group: ReportWorld is collective
    snprintf(name, sizeof name, "%s gatherv %d, root %d", tag, k, k % n);
    Gatherv(comm, name, k % n, k, k == 1, call + 3 + k);
  }
  snprintf(name, sizeof name, "%s allreduce", tag);
  Allreduce(comm, name, 5, call + 7);
  snprintf(name, sizeof name, "%s allgather ints", tag);
  Allgather(comm, name, MPI_INT, 3, 1, call + 8);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  snprintf(name, sizeof name, "%s allgather pairs", tag);
  Allgather(comm, name, pair, 3, 2, call + 9);
  snprintf(name, sizeof name, "%s allgather strided", tag);
  Allgather(comm, name, strided, 4, 2, call + 10);
  MPI_Type_free(&pair);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype strided; /* one int of every two: packed by the interposer */
  MPI_Type_vector(1, 1, 2, MPI_INT, &strided);
  MPI_Datatype resized;
  MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &resized);
  MPI_Type_commit(&resized);
  MPI_Type_free(&strided);

  Round(MPI_COMM_WORLD, "world", resized, 0);

  /* A nonblocking alltoallv pending while blocking ones of the same kind run. */
  int sc[64], sd[64], pend_s[64], pend_r[64];
  for (int q = 0; q < size; ++q) {
    sc[q] = 1;
    sd[q] = q;
    pend_s[q] = rank * 100 + q;
    pend_r[q] = -1;
  }
  MPI_Request req;
  MPI_Ialltoallv(pend_s, sc, sd, MPI_INT, pend_r, sc, sd, MPI_INT, MPI_COMM_WORLD, &req);
  Round(MPI_COMM_WORLD, "world, a call pending", resized, 20);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  ReportWorld("pending ialltoallv", pend_r, sizeof(int) * size);

  /* Communicators freed and made again: a freed handle may come back for another group. */
  for (int k = 0; k < 3; ++k) {
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    Round(dup, "dup", resized, 40 + k);
    MPI_Comm_free(&dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % (k + 1) == 0, rank, &split);
    char tag[32];
    snprintf(tag, sizeof tag, "split %d, color %d", k, rank % (k + 1) == 0);
    Round(split, tag, resized, 60 + k);
    MPI_Comm_free(&split);
  }
  MPI_Type_free(&resized);
  MPI_Finalize();
  return 0;
}
