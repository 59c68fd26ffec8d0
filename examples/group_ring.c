/* A ring exchange: every rank sends to its right neighbour and receives from its left. With
 * blocking sends and receives outside a group every rank would wait in its send; inside
 * weftGroupStart/weftGroupEnd they start together, as with NCCL's groups. */
#include <stdlib.h>

#include "example_util.h"

enum { kCount = 1 << 18 }; /* 1 MiB of ints: too large for an MPI to buffer eagerly */

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  int* out = malloc(kCount * sizeof(int));
  int* in = malloc(kCount * sizeof(int));
  for (int i = 0; i < kCount; ++i) out[i] = rank * 7 + i % 100;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK(weftGroupStart(), comm);
  CHECK(weftSend(out, kCount, weftInt32, right, comm, NULL), comm);
  CHECK(weftRecv(in, kCount, weftInt32, left, comm, NULL), comm);
  CHECK(weftGroupEnd(), comm);
  int ok = 1;
  for (int i = 0; i < kCount; ++i) ok &= in[i] == left * 7 + i % 100;
  free(out);
  free(in);
  return ExampleFinish(comm, ok);
}
