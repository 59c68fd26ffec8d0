/* MPI_Waitany and MPI_Waitsome over a served nonblocking collective whose peer never joins
 * (rank 1 never calls it) and a native receive: the interposer polls them, and weft's part
 * must still end at weft's deadline (WEFT_TIMEOUT_S, 2 s in the test) with an error,
 * not wait for ever. Rank 0 prints, per call, whether it returned an error for the served
 * request within the deadline plus a second; then rank 1 answers the native receive and both
 * end normally. Run under weftrun only (natively the program would hang: MPI has no
 * deadline). */
#include <stdio.h>
#include <stdlib.h>

#include "shim_util.h"

static double TimeoutS(void) {
  const char* t = getenv("WEFT_TIMEOUT_S");
  return t ? atof(t) : 600;
}

/* One call (any: MPI_Waitany, else MPI_Waitsome) on a fresh duplicate; true on rank 0 when it
 * kept the deadline. */
static int Check(int any) {
  int kept = 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int x = 1, y = 0, msg = 0;
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup); /* weft's communicator, made by both */
  const char* name = any ? "MPI_Waitany" : "MPI_Waitsome";
  if (rank == 0) {
    MPI_Request r[2];
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup, &r[0]); /* rank 1 never joins */
    MPI_Irecv(&msg, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &r[1]);
    const double t0 = MPI_Wtime();
    int rc, index = -1, count = 0, indices[2] = {-1, -1};
    MPI_Status st[2];
    if (any) {
      rc = MPI_Waitany(2, r, &index, &st[0]);
    } else {
      rc = MPI_Waitsome(2, r, &count, indices, st);
      index = count == 1 ? indices[0] : -1;
    }
    const double took = MPI_Wtime() - t0;
    const int in_time = took >= TimeoutS() - 0.5 && took <= TimeoutS() + 1;
    printf("%s: %s for the served request%s\n", name,
           rc != MPI_SUCCESS && index == 0 ? "an error" : "NO error",
           in_time ? " within the deadline plus a second" : " NOT in time");
    kept = rc != MPI_SUCCESS && index == 0 && in_time;
    fflush(stdout);
    MPI_Send(&x, 1, MPI_INT, 1, 98, MPI_COMM_WORLD); /* rank 1 may answer now */
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(&msg, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
  }
  MPI_Comm_free(&dup);
  return kept;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int kept = Check(1) + Check(0);
  if (rank == 0) printf("wait deadlines: %s\n", kept == 2 ? "every one kept" : "NOT kept");
  MPI_Finalize();
  return 0;
}
