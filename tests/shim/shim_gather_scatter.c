/* MPI_Gather, MPI_Scatter, MPI_Igather and MPI_Iscatter, which the interposer serves as weft's
 * gather and scatter: roots 0 and last, counts 0, 1, 7 and 40000, in place at the root,
 * nonblocking completed by a test loop, and a root whose datatype differs from the others' (a
 * strided type, pairs) with one signature. MPI_Gatherv, MPI_Scatterv and their nonblocking
 * forms (weft's mailbox schedules on one node): unequal counts with zeros and one large block,
 * blocks in reverse rank order with gaps, in place at the root, a strided root type. Each result's
 * hash is printed (every element, including what the call must leave untouched); the run under
 * weftrun must print the same as the native one. */
#include <string.h>

#include "shim_util.h"

static int rank, size;

static void Fill(int* buf, int n, int value) {
  for (int i = 0; i < n; ++i) buf[i] = value;
}

static void Complete(MPI_Request* req) {
  int done = 0;
  while (!done) MPI_Test(req, &done, MPI_STATUS_IGNORE);
}

static void Gather(const char* name, int count, int root, int in_place, int nonblocking) {
  const int total = size * count + 1;
  int* recv = (int*)malloc(sizeof(int) * total);
  int* send = (int*)malloc(sizeof(int) * (count + 1));
  Fill(recv, total, -1);
  for (int i = 0; i < count; ++i) send[i] = rank * 100000 + i;
  const int root_in_place = in_place && rank == root;
  if (root_in_place) memcpy(recv + rank * count, send, sizeof(int) * count);
  const void* s = root_in_place ? MPI_IN_PLACE : send;
  if (nonblocking) {
    MPI_Request req;
    MPI_Igather(s, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD, &req);
    Complete(&req);
  } else {
    MPI_Gather(s, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD);
  }
  Report(MPI_COMM_WORLD, name, recv, sizeof(int) * total);
  free(recv);
  free(send);
}

static void Scatter(const char* name, int count, int root, int in_place, int nonblocking) {
  const int total = size * count + 1;
  int* send = (int*)malloc(sizeof(int) * total);
  int* recv = (int*)malloc(sizeof(int) * (count + 1));
  for (int i = 0; i < total; ++i) send[i] = rank == root ? i * 3 + 1 : -2;
  Fill(recv, count + 1, -1);
  void* r = in_place && rank == root ? MPI_IN_PLACE : recv;
  if (nonblocking) {
    MPI_Request req;
    MPI_Iscatter(send, count, MPI_INT, r, count, MPI_INT, root, MPI_COMM_WORLD, &req);
    Complete(&req);
  } else {
    MPI_Scatter(send, count, MPI_INT, r, count, MPI_INT, root, MPI_COMM_WORLD);
  }
  Report(MPI_COMM_WORLD, name, recv, sizeof(int) * (count + 1));
  Report(MPI_COMM_WORLD, "  send after", send, sizeof(int) * total);
  free(send);
  free(recv);
}

/* The root gathers into (and scatters from) a strided type, every other int, while the others
 * use ints; then the root uses pairs (a contiguous type of 2 ints, half the count). */
static void Datatypes(void) {
  enum { kPer = 6 };
  MPI_Datatype strided, pair;
  MPI_Datatype vec;
  MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &strided);
  MPI_Type_commit(&strided);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const int root = size - 1;
  int send[kPer], recv[2 * kPer * 16 + 8], back[kPer + 1];
  for (int i = 0; i < kPer; ++i) send[i] = rank * 10 + i;
  Fill(recv, (int)(sizeof recv / sizeof recv[0]), -1);
  MPI_Gather(send, kPer, MPI_INT, recv, kPer, strided, root, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "gather strided root", recv, sizeof recv);
  Fill(back, kPer + 1, -1);
  MPI_Scatter(recv, kPer, strided, back, kPer, MPI_INT, root, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "scatter strided root", back, sizeof back);
  Fill(recv, (int)(sizeof recv / sizeof recv[0]), -1);
  MPI_Gather(send, kPer, MPI_INT, recv, kPer / 2, pair, root, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "gather pairs root", recv, sizeof recv);
  /* Nonblocking, the root's type freed before the wait: MPI keeps it for the pending call
   * (the interposer unpacks at completion with a duplicate of its own; with the program's
   * handle MPICH failed an assertion, as in its own test nonblocking2). */
  MPI_Datatype held;
  MPI_Type_dup(strided, &held);
  MPI_Request req;
  Fill(recv, (int)(sizeof recv / sizeof recv[0]), -1);
  MPI_Igather(send, kPer, MPI_INT, recv, kPer, held, root, MPI_COMM_WORLD, &req);
  MPI_Type_free(&held);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  Report(MPI_COMM_WORLD, "igather strided root, type freed before the wait", recv, sizeof recv);
  MPI_Type_dup(strided, &held);
  Fill(back, kPer + 1, -1);
  MPI_Iscatter(recv, kPer, held, back, kPer, MPI_INT, root, MPI_COMM_WORLD, &req);
  MPI_Type_free(&held);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  Report(MPI_COMM_WORLD, "iscatter strided root, type freed before the wait", back, sizeof back);
  MPI_Type_free(&strided);
  MPI_Type_free(&vec);
  MPI_Type_free(&pair);
}

/* Rank j's block in the v-calls: zeros, small odd counts, and one of 9000 ints (past weft's
 * mailbox: a message). Blocks lie last rank first, a gap of 2 after each. */
static int VCount(int j) { return j == size - 1 && size > 1 ? 9000 : j % 3 == 1 ? 0 : 2 * j + 3; }

static int VLayout(int* counts, int* displs) {
  int total = 0;
  for (int j = size - 1; j >= 0; --j) {
    counts[j] = VCount(j);
    displs[j] = total;
    total += counts[j] + 2;
  }
  return total;
}

static void GatherScatterV(int root, int in_place, int nonblocking, int strided_root) {
  int* counts = (int*)malloc(sizeof(int) * size);
  int* displs = (int*)malloc(sizeof(int) * size);
  const int total = VLayout(counts, displs), mine = counts[rank];
  const int span = strided_root ? 2 * total : total;
  int* all = (int*)malloc(sizeof(int) * (span + 1));
  int* own = (int*)malloc(sizeof(int) * (mine + 1));
  MPI_Datatype vec, strided;
  MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &strided);
  MPI_Type_commit(&strided);
  const MPI_Datatype rt = strided_root ? strided : MPI_INT;
  const int at_root = rank == root, root_in_place = in_place && at_root;
  char how[64], name[96];
  snprintf(how, sizeof how, "root %d%s%s%s", root, in_place ? " in place" : "",
           nonblocking ? " nonblocking" : "", strided_root ? " strided root" : "");
  Fill(all, span + 1, -1);
  for (int i = 0; i < mine; ++i) own[i] = rank * 100000 + i;
  if (root_in_place) memcpy(all + displs[rank], own, sizeof(int) * mine);
  MPI_Request req;
  const void* s = root_in_place ? MPI_IN_PLACE : own;
  if (nonblocking) {
    MPI_Igatherv(s, mine, MPI_INT, all, counts, displs, rt, root, MPI_COMM_WORLD, &req);
    Complete(&req);
  } else {
    MPI_Gatherv(s, mine, MPI_INT, all, counts, displs, rt, root, MPI_COMM_WORLD);
  }
  snprintf(name, sizeof name, "gatherv %s", how);
  Report(MPI_COMM_WORLD, name, all, sizeof(int) * (span + 1));
  /* Scatter back what the root gathered, into fresh blocks. */
  Fill(own, mine + 1, -1);
  void* r = root_in_place ? MPI_IN_PLACE : own;
  if (nonblocking) {
    MPI_Iscatterv(all, counts, displs, rt, r, mine, MPI_INT, root, MPI_COMM_WORLD, &req);
    Complete(&req);
  } else {
    MPI_Scatterv(all, counts, displs, rt, r, mine, MPI_INT, root, MPI_COMM_WORLD);
  }
  snprintf(name, sizeof name, "scatterv %s", how);
  Report(MPI_COMM_WORLD, name, own, sizeof(int) * (mine + 1));
  MPI_Type_free(&strided);
  MPI_Type_free(&vec);
  free(all);
  free(own);
  free(counts);
  free(displs);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int counts[] = {0, 1, 7, 40000};
  char name[96];
  for (int c = 0; c < 4; ++c) {
    for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
      for (int mode = 0; mode < 4; ++mode) {
        const int in_place = mode & 1, nonblocking = mode >> 1;
        snprintf(name, sizeof name, "gather count %d root %d%s%s", counts[c], root,
                 in_place ? " in place" : "", nonblocking ? " nonblocking" : "");
        Gather(name, counts[c], root, in_place, nonblocking);
        name[0] = 's';
        snprintf(name, sizeof name, "scatter count %d root %d%s%s", counts[c], root,
                 in_place ? " in place" : "", nonblocking ? " nonblocking" : "");
        Scatter(name, counts[c], root, in_place, nonblocking);
      }
    }
  }
  Datatypes();
  for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
    for (int mode = 0; mode < 4; ++mode) GatherScatterV(root, mode & 1, mode >> 1, 0);
    GatherScatterV(root, 0, 0, 1);
  }
  MPI_Finalize();
  return 0;
}
