/* Every rank contributes three floats; every rank gets all of them in rank order. */
#include <stdlib.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  float mine[3] = {rank * 10.0f, rank * 10.0f + 1, rank * 10.0f + 2};
  float* all = malloc(3 * size * sizeof(float));
  CHECK(weftAllGather(mine, all, 3, weftFloat, comm, NULL), comm);
  int ok = 1;
  for (int r = 0; r < size; ++r)
    for (int k = 0; k < 3; ++k) ok &= all[3 * r + k] == r * 10.0f + k;
  free(all);
  return ExampleFinish(comm, ok);
}
