/* Nonblocking collectives are local: starting one never waits for another rank (MPI 4.0,
 * 6.12). Two programs that rely on it, each a hang (the test's timeout) where it is broken:
 *
 * 1. starts: rank 1 starts two collectives on one communicator and only then sends rank 0
 *    the message that rank 0 waits for before it starts either. A start that waits for the
 *    previous collective of its communicator to finish (which needs rank 0) never returns.
 * 2. mixed window (after MPICH's coll/nonblocking3): a window of nonblocking collectives on
 *    three duplicates of MPI_COMM_WORLD, some served by weft and some left to MPI, completed
 *    by MPI_Waitall, MPI_Waitany, MPI_Testany and MPI_Test in a pattern that lets the ranks
 *    drift apart. A rank inside weft (a start or a wait) must keep MPI's own nonblocking calls
 *    moving: its peer may wait natively for this rank's part of one.
 * Each prints a hash of every rank's results on rank 0. */
#include <string.h>
#include <unistd.h>

#include "shim_util.h"

enum { COUNT = 10, WINDOW = 12, COMMS = 3, ITERATIONS = 3000, KINDS = 7 };

static void Starts(void) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int a[COUNT], b[COUNT], c[COUNT], token = 0;
  for (int i = 0; i < COUNT; ++i) a[i] = rank == 0 ? 100 + i : -1;
  for (int i = 0; i < COUNT; ++i) b[i] = rank * COUNT + i;
  MPI_Request reqs[2];
  const int last = size - 1;
  if (rank == 0 && size > 1)
    MPI_Recv(&token, 1, MPI_INT, last, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Ibcast(a, COUNT, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]);
  MPI_Iallreduce(b, c, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]);
  if (rank == last && size > 1) {
    token = 42;
    MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  int out[2 * COUNT + 1];
  memcpy(out, a, sizeof(a));
  memcpy(out + COUNT, c, sizeof(c));
  out[2 * COUNT] = token;
  Report(MPI_COMM_WORLD, "starts", out, sizeof(out));
}

/* One operation of the window: its kind, buffers and request. */
typedef struct {
  int kind;
  int send[COUNT * 4], recv[COUNT * 4];
  int counts[4], displs[4];
} Op;

static unsigned Next(unsigned x) { return (unsigned)((279470273ull * x) % 4294967291ull); }

static void StartOp(Op* op, unsigned seed, MPI_Comm comm, MPI_Request* req) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  op->kind = (int)(seed % KINDS);
  for (int i = 0; i < COUNT * 4; ++i) op->send[i] = (int)(seed % 1000) + rank * 7 + i;
  memset(op->recv, 0, sizeof(op->recv));
  for (int r = 0; r < size && r < 4; ++r) op->counts[r] = COUNT, op->displs[r] = r * COUNT;
  switch (op->kind) {
    case 0: /* served */
      MPI_Iallreduce(op->send, op->recv, COUNT, MPI_INT, MPI_SUM, comm, req);
      break;
    case 1: /* served */
      MPI_Ibcast(op->send, COUNT, MPI_INT, 0, comm, req);
      break;
    case 2: /* served */
      MPI_Ireduce_scatter_block(op->send, op->recv, COUNT, MPI_INT, MPI_SUM, comm, req);
      break;
    case 3: /* served */
      MPI_Ibarrier(comm, req);
      break;
    case 4: /* left to MPI */
      MPI_Igather(op->send, COUNT, MPI_INT, op->recv, COUNT, MPI_INT, 0, comm, req);
      break;
    case 5: /* left to MPI */
      MPI_Iscan(op->send, op->recv, COUNT, MPI_INT, MPI_SUM, comm, req);
      break;
    default: /* left to MPI at one node */
      MPI_Ialltoallv(op->send, op->counts, op->displs, MPI_INT, op->recv, op->counts, op->displs,
                     MPI_INT, comm, req);
      break;
  }
}

static void MixedWindow(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 4) return; /* the alltoallv buffers hold 4 ranks */
  MPI_Comm comms[COMMS];
  for (int i = 0; i < COMMS; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
  static Op ops[WINDOW];
  MPI_Request reqs[WINDOW];
  unsigned post = 4284, done_seq = 4284, jitter = 99u + (unsigned)rank;
  uint64_t hash = 0;
  int posted = 0, completed = 0;
  for (int i = 0; i < WINDOW; ++i, ++posted) {
    post = Next(post);
    StartOp(&ops[i], post, comms[post % COMMS], &reqs[i]);
  }
  while (completed < ITERATIONS) {
    done_seq = Next(done_seq);
    int idx = MPI_UNDEFINED, flag = 0, finished[WINDOW], n = 0;
    switch (done_seq % 4) {
      case 0:
        MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < WINDOW; ++i) finished[n++] = i;
        break;
      case 1:
        MPI_Waitany(WINDOW, reqs, &idx, MPI_STATUS_IGNORE);
        if (idx != MPI_UNDEFINED) finished[n++] = idx;
        break;
      case 2:
        MPI_Testany(WINDOW, reqs, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED) finished[n++] = idx;
        break;
      default:
        idx = (int)(Next(done_seq) % WINDOW);
        MPI_Test(&reqs[idx], &flag, MPI_STATUS_IGNORE);
        if (flag) finished[n++] = idx;
        break;
    }
    for (int k = 0; k < n; ++k) {
      Op* op = &ops[finished[k]];
      if (op->kind < 0) continue;
      /* A sum: the order in which operations complete differs from run to run. */
      hash += Fnv(op->recv, sizeof(op->recv)) + Fnv(op->send, sizeof(op->send));
      op->kind = -1;
      ++completed;
      if (posted < ITERATIONS) {
        post = Next(post);
        StartOp(op, post, comms[post % COMMS], &reqs[finished[k]]);
        ++posted;
      } else {
        reqs[finished[k]] = MPI_REQUEST_NULL;
      }
    }
    jitter = Next(jitter);
    if (jitter % 200 == 0) usleep(2000); /* the ranks drift apart */
  }
  MPI_Waitall(WINDOW, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < COMMS; ++i) MPI_Comm_free(&comms[i]);
  Report(MPI_COMM_WORLD, "mixed window", &hash, sizeof(hash));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Starts();
  MixedWindow();
  MPI_Finalize();
  return 0;
}
