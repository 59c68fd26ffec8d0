/* A persistent allreduce: created once, started many times with new data each time, and
 * described in words. */
#include <stdio.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
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
  return ExampleFinish(comm, ok);
}
