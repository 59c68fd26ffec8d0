/* MPI_Allgatherv and MPI_Iallgatherv, which the interposer serves as weft's allgather where the
 * counts are equal: regular and scattered displacements (gaps the call must not touch), in
 * place, a strided receive type, ranks with different datatypes of one signature, count 0, and
 * unequal counts (MPI's routine). Each result's hash is printed; the run under weftrun must
 * print the same as the native one. --self-check compares the equal-count cases with the values
 * they must hold instead (MPICH 4.0.2's own MPI_Allgatherv at 1 rank, out of place, ignores
 * displs[0] and writes the block at the start of the buffer: the native run is then wrong). */
#include <string.h>

#include "shim_util.h"

enum { kCount = 7, kGap = 3 };

static int rank, size;
static int self_check; /* --self-check: compare with the expected values instead of printing */
static long wrong;

/* Counts elements that differ from what the call must leave: rank j's block at displs[j],
 * every other element untouched (-1). */
static void Check(const int* recv, int span, int count, const int* displs) {
  for (int i = 0; i < span; ++i) {
    int expected = -1;
    for (int j = 0; j < size; ++j) {
      if (i >= displs[j] && i < displs[j] + count) expected = j * 1000 + (i - displs[j]);
    }
    wrong += recv[i] != expected;
  }
}

static void Fill(int* buf, int n, int value) {
  for (int i = 0; i < n; ++i) buf[i] = value;
}

/* Block j's displacement: regular (j * count) or scattered (reversed, with gaps). */
static int Displ(int j, int count, int scattered) {
  return scattered ? (size - 1 - j) * (count + kGap) + 1 : j * count;
}

static void Case(const char* name, int count, int scattered, int in_place, int nonblocking) {
  const int span = size * (count + kGap) + 2;
  int* recv = (int*)malloc(sizeof(int) * span);
  int* send = (int*)malloc(sizeof(int) * (count + 1));
  int* counts = (int*)malloc(sizeof(int) * size);
  int* displs = (int*)malloc(sizeof(int) * size);
  Fill(recv, span, -1);
  for (int i = 0; i < count; ++i) send[i] = rank * 1000 + i;
  for (int j = 0; j < size; ++j) {
    counts[j] = count;
    displs[j] = Displ(j, count, scattered);
  }
  if (in_place) memcpy(recv + displs[rank], send, sizeof(int) * count);
  const void* s = in_place ? MPI_IN_PLACE : send;
  if (nonblocking) {
    MPI_Request req;
    MPI_Iallgatherv(s, count, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD, &req);
    int done = 0;
    while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  } else {
    MPI_Allgatherv(s, count, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
  }
  if (self_check) {
    Check(recv, span, count, displs);
  } else {
    Report(MPI_COMM_WORLD, name, recv, sizeof(int) * span);
  }
  free(recv);
  free(send);
  free(counts);
  free(displs);
}

/* Unequal counts: rank j sends j + 1 elements (MPI's routine under weftrun). */
static void Unequal(void) {
  int* counts = (int*)malloc(sizeof(int) * size);
  int* displs = (int*)malloc(sizeof(int) * size);
  int total = 0;
  for (int j = 0; j < size; ++j) {
    counts[j] = j + 1;
    displs[j] = total;
    total += j + 1;
  }
  int send[64], recv[512];
  for (int i = 0; i <= rank; ++i) send[i] = rank * 100 + i;
  Fill(recv, 512, -1);
  MPI_Allgatherv(send, rank + 1, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "unequal", recv, sizeof(int) * total);
  free(counts);
  free(displs);
}

/* A strided receive type (every other int) with scattered displacements; rank 0 receives in
 * pairs (a contiguous type of 2 ints, half the count) where the others receive ints: one
 * signature, different datatypes and counts. */
static void Datatypes(void) {
  MPI_Datatype strided, pair;
  MPI_Type_vector(1, 1, 2, MPI_INT, &strided);
  MPI_Datatype strided_resized;
  MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &strided_resized);
  MPI_Type_commit(&strided_resized);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  enum { kPer = 6 };
  int send[kPer], recv[2 * kPer * 16 + 8];
  int* counts = (int*)malloc(sizeof(int) * size);
  int* displs = (int*)malloc(sizeof(int) * size);
  for (int i = 0; i < kPer; ++i) send[i] = rank * 10 + i;
  Fill(recv, (int)(sizeof recv / sizeof recv[0]), -1);
  for (int j = 0; j < size; ++j) {
    counts[j] = kPer;
    displs[j] = (size - 1 - j) * (kPer + 1);
  }
  MPI_Allgatherv(send, kPer, MPI_INT, recv, counts, displs, strided_resized, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "strided scattered", recv, sizeof(int) * 2 * size * (kPer + 1));
  /* Nonblocking, the type freed before the wait: MPI keeps it for the pending call (the
   * interposer places the blocks at completion with a duplicate of its own). */
  MPI_Datatype held;
  MPI_Type_dup(strided_resized, &held);
  Fill(recv, (int)(sizeof recv / sizeof recv[0]), -1);
  MPI_Request req;
  MPI_Iallgatherv(send, kPer, MPI_INT, recv, counts, displs, held, MPI_COMM_WORLD, &req);
  MPI_Type_free(&held);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  Report(MPI_COMM_WORLD, "strided scattered, nonblocking, type freed before the wait", recv,
         sizeof(int) * 2 * size * (kPer + 1));
  Fill(recv, (int)(sizeof recv / sizeof recv[0]), -1);
  for (int j = 0; j < size; ++j) {
    counts[j] = rank == 0 ? kPer / 2 : kPer;
    displs[j] = j * counts[j];
  }
  MPI_Allgatherv(send, kPer, MPI_INT, recv, counts, displs, rank == 0 ? pair : MPI_INT,
                 MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "pairs on rank 0", recv, sizeof(int) * size * kPer);
  MPI_Type_free(&strided_resized);
  MPI_Type_free(&strided);
  MPI_Type_free(&pair);
  free(counts);
  free(displs);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  self_check = argc > 1 && strcmp(argv[1], "--self-check") == 0;
  Case("regular", kCount, 0, 0, 0);
  Case("regular in place", kCount, 0, 1, 0);
  Case("scattered", kCount, 1, 0, 0);
  Case("scattered in place", kCount, 1, 1, 0);
  Case("count 0", 0, 1, 0, 0);
  Case("large scattered", 40000, 1, 0, 0);
  Case("nonblocking regular", kCount, 0, 0, 1);
  Case("nonblocking scattered", kCount, 1, 0, 1);
  Case("nonblocking scattered in place", 40000, 1, 1, 1);
  if (self_check) {
    long all = 0;
    PMPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("self-check: %s (%ld wrong elements)\n", all ? "WRONG" : "all correct", all);
  } else {
    Unequal();
    Datatypes();
  }
  MPI_Finalize();
  return 0;
}
