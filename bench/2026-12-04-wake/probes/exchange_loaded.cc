// mpic++ -O2 -o exchange_loaded exchange_loaded.cc; mpiexec -n 4 --allow-run-as-root
// --oversubscribe ./exchange_loaded 1 Loops of 8 B-64 KiB exchanges: local pair (0,1) alone, then
// every pair at once (stride 1: pairs (0,1),(2,3); stride 2: (0,2),(1,3)); time per exchange on
// rank 0, median of 7 loops.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>
static double Med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
static void Quiet(MPI_Comm c) {
  MPI_Request r;
  MPI_Ibarrier(c, &r);
  int d = 0;
  for (MPI_Test(&r, &d, MPI_STATUS_IGNORE); !d; MPI_Test(&r, &d, MPI_STATUS_IGNORE)) usleep(200);
}
// loop of `iters` exchanges, time per exchange; median of 7 loops
double EX(int peer, size_t bytes, int iters) {
  std::vector<char> o(bytes), in(bytes);
  std::vector<double> t;
  for (int k = 0; k < 8; k++) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
      MPI_Request r[2];
      MPI_Irecv(in.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(o.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    if (k) t.push_back((MPI_Wtime() - t0) * 1e6 / iters);
  }
  return Med(t);
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int stride = argc > 1 ? atoi(argv[1]) : 1;
  int peer = (me / stride) % 2 == 0 ? me + stride : me - stride;
  for (int rep = 0; rep < 3; rep++) {
    for (size_t sz : {size_t(8), size_t(4096), size_t(65536)}) {
      double alone = -1, loaded;
      int it = sz < 4096 ? 2000 : 500;
      Quiet(MPI_COMM_WORLD);
      if (me == 0 || me == stride) alone = EX(peer, sz, it);
      Quiet(MPI_COMM_WORLD);
      loaded = EX(peer, sz, it);
      Quiet(MPI_COMM_WORLD);
      if (me == 0)
        printf("stride %d bytes %8zu alone %8.2f loaded %8.2f us\n", stride, sz, alone, loaded);
    }
  }
  MPI_Finalize();
}
