/* The maximum of each element over all ranks, delivered to the last rank only. */
#include <stdint.h>
#include <stdlib.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  const int root = size - 1;
  const size_t n = 777;
  int64_t* send = malloc(n * sizeof(int64_t));
  int64_t* recv = rank == root ? malloc(n * sizeof(int64_t)) : NULL; /* only root receives */
  for (size_t i = 0; i < n; ++i) send[i] = (int64_t)((i * 31 + rank * 17) % 101) - 50;
  CHECK(weftReduce(send, recv, n, weftInt64, weftMax, root, comm, NULL), comm);
  int ok = 1;
  if (rank == root) {
    for (size_t i = 0; i < n; ++i) {
      int64_t want = INT64_MIN;
      for (int r = 0; r < size; ++r) {
        int64_t v = (int64_t)((i * 31 + r * 17) % 101) - 50;
        if (v > want) want = v;
      }
      ok &= recv[i] == want;
    }
  }
  free(send);
  free(recv);
  return ExampleFinish(comm, ok);
}
