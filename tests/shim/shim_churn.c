/* Thousands of communicators created, used and freed (dup and split): the interposer attaches
 * to each and must release it, so resident memory and /dev/shm stay flat. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim_util.h"

static long RssKb(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof(line), f)) {
    if (strncmp(line, "VmRSS:", 6) == 0) kb = atol(line + 6);
  }
  if (f) fclose(f);
  return kb;
}

/* weft's segments of this job in /dev/shm ("weft-<pid of the creator>-<n>"): other tests
 * running beside this one (ctest -j) create and unlink their own, which must not count. */
static int ShmFiles(const int* pids, int npids) {
  DIR* d = opendir("/dev/shm");
  int n = 0;
  struct dirent* e;
  while (d && (e = readdir(d)) != NULL) {
    for (int i = 0; i < npids; ++i) {
      char prefix[32];
      snprintf(prefix, sizeof prefix, "weft-%d-", pids[i]);
      if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) ++n;
    }
  }
  if (d) closedir(d);
  return n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  int me = (int)getpid();
  int* pids = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
  long rss0 = 0;
  int shm0 = 0;
  int ok = 1;
  for (int i = 0; i < rounds; ++i) {
    MPI_Comm c;
    if (i % 2)
      MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else
      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &c);
    int csize, v = 1, sum = 0;
    MPI_Comm_size(c, &csize);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    ok &= sum == csize;
    MPI_Comm_free(&c);
    if (i == rounds / 10) {  // after warm-up: allocator pools and caches are in place
      rss0 = RssKb();
      shm0 = ShmFiles(pids, size);
    }
  }
  long growth = RssKb() - rss0;
  int shm_growth = ShmFiles(pids, size) - shm0;
  int good = ok && growth < 4096 && shm_growth <= 0, all = 0;
  MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!good)
    fprintf(stderr, "rank %d: sums ok=%d, rss growth %ld KiB, /dev/shm growth %d\n", rank, ok,
            growth, shm_growth);
  if (rank == 0) printf("churn of %d communicators: %s\n", rounds, all ? "flat" : "GROWS");
  free(pids);
  MPI_Finalize();
  return all ? 0 : 1;
}
