/* Rank 0's message reaches every rank. */
#include <string.h>

#include "example_util.h"

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  const char msg[] = "weft broadcasts from rank 0";
  char buf[sizeof(msg)] = {0};
  if (rank == 0) memcpy(buf, msg, sizeof(msg));
  CHECK(weftBroadcast(buf, buf, sizeof(msg), weftUint8, 0, comm, NULL), comm);
  int ok = memcmp(buf, msg, sizeof(msg)) == 0;
  return ExampleFinish(comm, ok);
}
