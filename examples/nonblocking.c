/* Gradient buckets, as DDP-style training posts them: one nonblocking allreduce per bucket,
 * all in flight at once while "computation" goes on, then completed with one Waitall. */
#include <stdlib.h>

#include "example_util.h"

enum { kBuckets = 4, kCount = 1000 };

int main(int argc, char** argv) {
  int rank, size;
  weftComm_t comm = ExampleInit(&argc, &argv, &rank, &size);
  float* grads[kBuckets];
  weftRequest_t reqs[kBuckets];
  for (int b = 0; b < kBuckets; ++b) {
    grads[b] = malloc(kCount * sizeof(float));
    for (int i = 0; i < kCount; ++i) grads[b][i] = (float)(rank + b);
    /* In place: the bucket is summed over ranks where it lies. */
    CHECK(weftIAllReduce(grads[b], grads[b], kCount, weftFloat, weftSum, comm, &reqs[b]), comm);
  }
  double busy = 0; /* computation between the posts and the wait; each test advances them */
  int done = 0;
  for (int step = 0; step < 1000 && !done; ++step) {
    busy += step * 0.5;
    CHECK(weftRequestTest(&reqs[kBuckets - 1], &done), comm);
  }
  CHECK(weftRequestWaitall(kBuckets, reqs), comm);
  int ok = busy >= 0;
  const float ranks_sum = size * (size - 1) / 2.0f;
  for (int b = 0; b < kBuckets; ++b) {
    for (int i = 0; i < kCount; ++i) ok &= grads[b][i] == ranks_sum + (float)b * size;
    free(grads[b]);
  }
  return ExampleFinish(comm, ok);
}
