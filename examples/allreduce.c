/* Sums a vector over all ranks, out of place and in place. */
#include <stdlib.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  const size_t n = 1000;
  double* send = malloc(n * sizeof(double));
  double* recv = malloc(n * sizeof(double));
  for (size_t i = 0; i < n; ++i) send[i] = rank + i;
  CHECK(weftAllReduce(send, recv, n, weftDouble, weftSum, comm, NULL), comm);
  CHECK(weftAllReduce(send, send, n, weftDouble, weftSum, comm, NULL), comm); /* in place */
  int ok = 1;
  for (size_t i = 0; i < n; ++i) {
    double want = size * (size - 1) / 2.0 + (double)size * i;
    ok &= recv[i] == want && send[i] == want;
  }
  free(send);
  free(recv);
  return ExampleFinish(comm, ok);
}
