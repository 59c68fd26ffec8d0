/* Sums nranks blocks over all ranks; rank r keeps block r of the sum. */
#include <stdint.h>
#include <stdlib.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  const size_t block = 257;
  int32_t* send = malloc(block * size * sizeof(int32_t));
  int32_t* recv = malloc(block * sizeof(int32_t));
  for (size_t i = 0; i < block * size; ++i) send[i] = (int32_t)(i + rank);
  CHECK(weftReduceScatter(send, recv, block, weftInt32, weftSum, comm, NULL), comm);
  int ok = 1;
  for (size_t i = 0; i < block; ++i) {
    int32_t idx = (int32_t)(rank * block + i);
    ok &= recv[i] == size * idx + size * (size - 1) / 2;
  }
  free(send);
  free(recv);
  return ExampleFinish(comm, ok);
}
