/* Rank r sends the value 100*r + p to rank p; each rank checks what it received. */
#include <stdint.h>
#include <stdlib.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  uint64_t* send = malloc(size * sizeof(uint64_t));
  uint64_t* recv = malloc(size * sizeof(uint64_t));
  for (int p = 0; p < size; ++p) send[p] = 100u * rank + p;
  CHECK(weftAllToAll(send, recv, 1, weftUint64, comm, NULL), comm);
  int ok = 1;
  for (int p = 0; p < size; ++p) ok &= recv[p] == 100u * p + rank;
  free(send);
  free(recv);
  return ExampleFinish(comm, ok);
}
