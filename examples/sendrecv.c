/* Passes a token around the ring of ranks with weftSend/weftRecv, then meets at a barrier. */
#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  int ok = 1;
  if (size > 1) {
    int token = 0;
    if (rank == 0) {
      token = 1;
      CHECK(weftSend(&token, 1, weftInt32, 1, comm, NULL), comm);
      CHECK(weftRecv(&token, 1, weftInt32, size - 1, comm, NULL), comm);
      ok = token == size; /* every rank added one */
    } else {
      CHECK(weftRecv(&token, 1, weftInt32, rank - 1, comm, NULL), comm);
      token += 1;
      CHECK(weftSend(&token, 1, weftInt32, (rank + 1) % size, comm, NULL), comm);
    }
  }
  CHECK(weftBarrier(comm, NULL), comm);
  return ExampleFinish(comm, ok);
}
