/* MPI_Scan, MPI_Exscan, MPI_Iscan and MPI_Iexscan, which the interposer serves as weft's
 * compiled scans: int sums, double max and float products, counts 0, 1, 7, 5000 and 300000
 * (the last past oneshot's sizes), in place, nonblocking completed by a test loop, and a user
 * op, which stays MPI's (Open MPI rejects MPI_SUM on derived types, so none is tried). Each
 * result's hash is printed, the bytes past the result included; the run under weftrun must print
 * the same as the native one. Exscan's rank 0 result is undefined in MPI, so that rank's buffer is
 * not hashed. */
#include <string.h>

#include "shim_util.h"

static int rank, size;

enum Kind { kIntSum, kDoubleMax, kFloatProd, kUserOp };

/* Non-commutative: a o b = a + 2b (ints), so rank order shows in the result. */
static void LeftWeighted(void* in, void* inout, int* len, MPI_Datatype* dt) {
  const int* a = (const int*)in;
  int* b = (int*)inout;
  for (int i = 0; i < *len; ++i) b[i] = a[i] + 2 * b[i];
}

static void Complete(MPI_Request* req) {
  int done = 0;
  while (!done) MPI_Test(req, &done, MPI_STATUS_IGNORE);
}

static void Check(const char* name, enum Kind kind, int count, int exclusive, int in_place,
                  int nonblocking, MPI_Op user_op) {
  const int slots = count + 1;
  const size_t es = kind == kDoubleMax ? sizeof(double) : 4;
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
  const int n = count;
  MPI_Op op = kind == kDoubleMax   ? MPI_MAX
              : kind == kFloatProd ? MPI_PROD
              : kind == kUserOp    ? user_op
                                   : MPI_SUM;
  const void* s = in_place ? MPI_IN_PLACE : send;
  MPI_Request req;
  if (exclusive) {
    if (nonblocking) {
      MPI_Iexscan(s, recv, n, dt, op, MPI_COMM_WORLD, &req);
      Complete(&req);
    } else {
      MPI_Exscan(s, recv, n, dt, op, MPI_COMM_WORLD);
    }
  } else if (nonblocking) {
    MPI_Iscan(s, recv, n, dt, op, MPI_COMM_WORLD, &req);
    Complete(&req);
  } else {
    MPI_Scan(s, recv, n, dt, op, MPI_COMM_WORLD);
  }
  const int undefined = exclusive && rank == 0;
  Report(MPI_COMM_WORLD, name, undefined ? (const void*)"" : recv, undefined ? 0 : es * slots);
  if (!in_place) Report(MPI_COMM_WORLD, "  send after", send, es * slots);
  free(send);
  free(recv);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op user_op;
  MPI_Op_create(LeftWeighted, 0, &user_op);
  const char* kinds[] = {"int sum", "double max", "float prod", "user op"};
  const int counts[] = {0, 1, 7, 5000, 300000};
  char name[128];
  for (int k = kIntSum; k <= kUserOp; ++k) {
    for (int c = 0; c < 5; ++c) {
      if (k != kIntSum && counts[c] == 300000) continue; /* one large case is enough */
      for (int variant = 0; variant < 8; ++variant) {
        const int exclusive = variant & 1, in_place = (variant >> 1) & 1, nb = variant >> 2;
        snprintf(name, sizeof(name), "%s %s count %d%s%s", exclusive ? "exscan" : "scan", kinds[k],
                 counts[c], in_place ? " in place" : "", nb ? " nonblocking" : "");
        Check(name, (enum Kind)k, counts[c], exclusive, in_place, nb, user_op);
      }
    }
  }
  MPI_Op_free(&user_op);
  MPI_Finalize();
  return 0;
}
