/* Rank 0's message reaches every rank. */
#include <string.h>

#include "example_util.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  weftComm_t comm;
  CHECK(weftCommInitMPI(&comm, MPI_COMM_WORLD), NULL);
  int rank;
  weftCommUserRank(comm, &rank);
  const char msg[] = "weft broadcasts from rank 0";
  char buf[sizeof(msg)] = {0};
  if (rank == 0) memcpy(buf, msg, sizeof(msg));
  CHECK(weftBroadcast(buf, buf, sizeof(msg), weftUint8, 0, comm, NULL), comm);
  int ok = memcmp(buf, msg, sizeof(msg)) == 0;
  CHECK(weftCommDestroy(comm), NULL);
  int rc = Verdict(ok);
  MPI_Finalize();
  return rc;
}
