/* A persistent allreduce: created once, started many times with new data each time, and
 * described in words. */
#include <stdio.h>

#include "example_util.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  weftComm_t comm;
  CHECK(weftCommInitMPI(&comm, MPI_COMM_WORLD), NULL);
  int rank, size;
  weftCommUserRank(comm, &rank);
  weftCommCount(comm, &size);
  float in[64], out[64];
  weftPlan_t plan;
  CHECK(weftAllReduceInit(in, out, 64, weftFloat, weftAvg, comm, &plan), comm);
  char text[256];
  CHECK(weftPlanDescribe(plan, text, sizeof(text), NULL), comm);
  if (rank == 0) printf("plan: %s\n", text);
  int ok = 1;
  for (int step = 0; step < 10; ++step) {
    for (int i = 0; i < 64; ++i) in[i] = (float)(rank + step);
    CHECK(weftPlanStart(plan, NULL), comm);
    CHECK(weftPlanWait(plan), comm);
    for (int i = 0; i < 64; ++i) ok &= out[i] == (size - 1) / 2.0f + step;
  }
  CHECK(weftPlanFree(plan), comm);
  CHECK(weftCommDestroy(comm), NULL);
  int rc = Verdict(ok);
  MPI_Finalize();
  return rc;
}
