/* A program written only against the installed <weft/weft.h>: every collective once, checked.
 * Built by tests/install/CMakeLists.txt (find_package(weft)) and by pkg-config. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <weft/weft.h>

static int failures = 0;
#define EXPECT(cond, what)                                                        \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "consumer: %s failed: %s\n", what, weftGetLastError(comm)); \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  weftComm_t comm = NULL;
  EXPECT(weftCommInitMPI(&comm, MPI_COMM_WORLD) == weftSuccess, "init");
  int rank = 0, n = 0, version = 0;
  weftCommUserRank(comm, &rank);
  weftCommCount(comm, &n);
  EXPECT(weftGetVersion(&version) == weftSuccess && version == WEFT_VERSION_CODE, "version");
  enum { K = 5 };
  int32_t* a = malloc(sizeof(int32_t) * K * n);
  int32_t* b = malloc(sizeof(int32_t) * K * n);
  for (int i = 0; i < K * n; ++i) a[i] = rank + i;

  EXPECT(weftAllReduce(a, b, K, weftInt32, weftSum, comm, NULL) == weftSuccess, "allreduce");
  for (int i = 0; i < K; ++i) EXPECT(b[i] == n * (n - 1) / 2 + n * i, "allreduce value");
  EXPECT(weftReduce(a, b, K, weftInt32, weftMin, 0, comm, NULL) == weftSuccess, "reduce");
  if (rank == 0)
    for (int i = 0; i < K; ++i) EXPECT(b[i] == i, "reduce value");
  EXPECT(weftBroadcast(a, b, K, weftInt32, n - 1, comm, NULL) == weftSuccess, "broadcast");
  for (int i = 0; i < K; ++i) EXPECT(b[i] == n - 1 + i, "broadcast value");
  EXPECT(weftAllGather(a, b, K, weftInt32, comm, NULL) == weftSuccess, "allgather");
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < K; ++i) EXPECT(b[r * K + i] == r + i, "allgather value");
  EXPECT(weftReduceScatter(a, b, K, weftInt32, weftMax, comm, NULL) == weftSuccess,
         "reduce_scatter");
  for (int i = 0; i < K; ++i) EXPECT(b[i] == n - 1 + rank * K + i, "reduce_scatter value");
  EXPECT(weftAllToAll(a, b, K, weftInt32, comm, NULL) == weftSuccess, "alltoall");
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < K; ++i) EXPECT(b[r * K + i] == r + rank * K + i, "alltoall value");
  EXPECT(weftBarrier(comm, NULL) == weftSuccess, "barrier");
  if (n > 1) {
    int32_t token = rank;
    if (rank == 0) {
      EXPECT(weftSend(&token, 1, weftInt32, 1, comm, NULL) == weftSuccess, "send");
    } else if (rank == 1) {
      EXPECT(weftRecv(&token, 1, weftInt32, 0, comm, NULL) == weftSuccess && token == 0, "recv");
    }
  }
  weftPlan_t plan;
  EXPECT(weftAllReduceInit(a, b, K, weftInt32, weftSum, comm, &plan) == weftSuccess, "plan init");
  EXPECT(weftPlanStart(plan, NULL) == weftSuccess && weftPlanWait(plan) == weftSuccess, "plan run");
  EXPECT(b[0] == n * (n - 1) / 2, "plan value");
  EXPECT(weftPlanFree(plan) == weftSuccess, "plan free");
  EXPECT(weftCommDestroy(comm) == weftSuccess, "destroy");
  free(a);
  free(b);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("Correct: %s\n", all == 0 ? "YES" : "NO");
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
