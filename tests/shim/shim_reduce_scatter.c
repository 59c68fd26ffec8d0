/* MPI_Reduce_scatter and MPI_Ireduce_scatter with unequal counts, which the interposer serves on
 * one node as weft's reduce_scatterv (the mailbox schedule): int sums, double max and float
 * products; counts with zeros, one block past the mailbox (6000 doubles), every block empty;
 * in place; the same counts three times in a row (the cached program) and a user op, which
 * stays MPI's (Open MPI rejects MPI_SUM on derived types, so none is tried). Each result's hash is
 * printed, the bytes past the block included, and the input after an out-of-place call; the run
 * under weftrun must print the same as the native one. */
#include <string.h>

#include "shim_util.h"

static int rank, size;

enum Kind { kIntSum, kDoubleMax, kFloatProd, kUserOp };
enum Counts { kRamp, kWithZeros, kOneLarge, kAllEmpty };

/* Non-commutative: a o b = a + 2b (ints), so rank order shows in the result. */
static void LeftWeighted(void* in, void* inout, int* len, MPI_Datatype* dt) {
  const int* a = (const int*)in;
  int* b = (int*)inout;
  for (int i = 0; i < *len; ++i) b[i] = a[i] + 2 * b[i];
}

static int CountOf(enum Counts c, int q) {
  switch (c) {
    case kRamp:
      return q + 1;
    case kWithZeros:
      return q % 2 == 1 ? 0 : 3 * q + 2;
    case kOneLarge:
      return q == size - 1 ? 6000 : (q * 5) % 7;
    case kAllEmpty:
      return 0;
  }
  return 0;
}

static void Check(const char* name, enum Kind kind, enum Counts pattern, int in_place,
                  int nonblocking, MPI_Op user_op) {
  int* counts = (int*)malloc(sizeof(int) * size);
  int total = 0;
  for (int q = 0; q < size; ++q) {
    counts[q] = CountOf(pattern, q);
    total += counts[q];
  }
  const size_t es = kind == kDoubleMax ? sizeof(double) : 4;
  const int slots = total + 1; /* one more: a write past the block shows in the hash */
  unsigned char* send = (unsigned char*)malloc(es * slots);
  unsigned char* recv = (unsigned char*)malloc(es * slots);
  for (int i = 0; i < slots; ++i) {
    const int v = (rank * 7 + i) % 5 - 2; /* small: sums and products stay exact */
    if (kind == kDoubleMax) {
      ((double*)send)[i] = v + 0.5 * rank;
      ((double*)recv)[i] = -99.0;
    } else if (kind == kFloatProd) {
      ((float*)send)[i] = v == 0 ? 1.0f : (float)(v > 0 ? 1 : -1);
      ((float*)recv)[i] = -99.0f;
    } else {
      ((int*)send)[i] = v + rank;
      ((int*)recv)[i] = -99;
    }
  }
  if (in_place) memcpy(recv, send, es * slots);
  const MPI_Datatype dt = kind == kDoubleMax   ? MPI_DOUBLE
                          : kind == kFloatProd ? MPI_FLOAT
                                               : MPI_INT;
  MPI_Op op = kind == kDoubleMax   ? MPI_MAX
              : kind == kFloatProd ? MPI_PROD
              : kind == kUserOp    ? user_op
                                   : MPI_SUM;
  const void* s = in_place ? MPI_IN_PLACE : send;
  if (nonblocking) {
    MPI_Request req;
    MPI_Ireduce_scatter(s, recv, counts, dt, op, MPI_COMM_WORLD, &req);
    int done = 0;
    while (!done) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  } else {
    MPI_Reduce_scatter(s, recv, counts, dt, op, MPI_COMM_WORLD);
  }
  /* In place the result is at the start of the buffer; the rest of it is undefined. */
  Report(MPI_COMM_WORLD, name, recv, es * (in_place ? counts[rank] : counts[rank] + 1));
  if (!in_place) Report(MPI_COMM_WORLD, "  send after", send, es * slots);
  free(send);
  free(recv);
  free(counts);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op user_op;
  MPI_Op_create(LeftWeighted, 0, &user_op);
  const char* kinds[] = {"int sum", "double max", "float prod", "user op"};
  const char* patterns[] = {"ramp", "with zeros", "one large", "all empty"};
  char name[160];
  for (int k = kIntSum; k <= kUserOp; ++k) {
    for (int c = kRamp; c <= kAllEmpty; ++c) {
      for (int variant = 0; variant < 4; ++variant) {
        const int in_place = variant & 1, nb = variant >> 1;
        for (int again = 0; again < (k == kIntSum ? 3 : 1); ++again) {
          snprintf(name, sizeof(name), "reduce_scatter %s %s%s%s #%d", kinds[k], patterns[c],
                   in_place ? " in place" : "", nb ? " nonblocking" : "", again);
          Check(name, (enum Kind)k, (enum Counts)c, in_place, nb, user_op);
        }
      }
    }
  }
  MPI_Op_free(&user_op);
  MPI_Finalize();
  return 0;
}
