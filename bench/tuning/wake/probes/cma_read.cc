// mpic++ -O2 -o cma_read cma_read.cc; mpiexec -n 2 --allow-run-as-root ./cma_read
#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
// Rank 1 reads `n` bytes of rank 0's buffer by process_vm_readv (one call), median of reps;
// rank 0 waits. Also memcpy of the same sizes on rank 1 alone for comparison.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  size_t maxn = 64u << 20;
  std::vector<char> buf(maxn, me + 1), dst(maxn, 0), src2(maxn, 3);
  unsigned long where[2] = {(unsigned long)getpid(), (unsigned long)buf.data()}, peer[2];
  MPI_Sendrecv(where, 2, MPI_UNSIGNED_LONG, 1 - me, 0, peer, 2, MPI_UNSIGNED_LONG, 1 - me, 0,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (size_t n = 256u << 10; n <= maxn; n *= 2) {
    int reps = std::max<int>(5, (int)((256u << 20) / n));
    std::vector<double> t, c;
    for (int i = 0; i < reps; i++) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (me == 1) {
        iovec l{dst.data(), n}, r{(void*)peer[1], n};
        double t0 = MPI_Wtime();
        ssize_t got = process_vm_readv((pid_t)peer[0], &l, 1, &r, 1, 0);
        t.push_back(MPI_Wtime() - t0);
        if (got != (ssize_t)n) {
          perror("readv");
          break;
        }
        t0 = MPI_Wtime();
        memcpy(dst.data(), src2.data(), n);
        c.push_back(MPI_Wtime() - t0);
      }
    }
    if (me == 1) {
      std::sort(t.begin(), t.end());
      std::sort(c.begin(), c.end());
      printf("%9zu B  cma %6.2f GB/s  memcpy %6.2f GB/s\n", n, n / t[t.size() / 2] / 1e9,
             n / c[c.size() / 2] / 1e9);
    }
  }
  MPI_Finalize();
}
