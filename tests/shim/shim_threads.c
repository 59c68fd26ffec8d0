/* MPI_THREAD_MULTIPLE: several threads run collectives at once, each on its own
 * communicator, and attach those communicators lazily at the same time. */
#include <pthread.h>

#include "shim_util.h"

enum { kThreads = 4, kIters = 200 };

typedef struct {
  MPI_Comm comm;
  int id, ok;
} Work;

static void* Run(void* p) {
  Work* w = (Work*)p;
  int size;
  MPI_Comm_size(w->comm, &size);
  w->ok = 1;
  for (int i = 0; i < kIters; ++i) {
    double v[32], s[32];
    for (int k = 0; k < 32; ++k) v[k] = w->id + i + k;
    MPI_Allreduce(v, s, 32, MPI_DOUBLE, MPI_SUM, w->comm);
    for (int k = 0; k < 32; ++k) w->ok &= s[k] == size * (double)(w->id + i + k);
    long x = w->id, y = -1;
    MPI_Bcast(i % 2 ? &x : &y, 1, MPI_LONG, 0, w->comm);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) printf("threads: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    return 1;
  }
  Work w[kThreads];
  pthread_t th[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);  // created in order on every rank
    w[t].id = t;
  }
  for (int t = 0; t < kThreads; ++t) pthread_create(&th[t], NULL, Run, &w[t]);
  int ok = 1;
  for (int t = 0; t < kThreads; ++t) {
    pthread_join(th[t], NULL);
    ok &= w[t].ok;
    MPI_Comm_free(&w[t].comm);
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    printf("threads: %d threads x %d collectives each: %s\n", kThreads, kIters,
           all ? "correct" : "WRONG");
  MPI_Finalize();
  return all ? 0 : 1;
}
