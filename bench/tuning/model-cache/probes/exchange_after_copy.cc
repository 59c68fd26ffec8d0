// Probe (bench/tuning/model-cache): an MPI exchange of a buffer between 2 ranks, median of
// 50, three ways: clean (nothing written between exchanges), copy inside (a memcpy into the
// send buffer, timed with the exchange), copy before (the same memcpy before the barrier, not
// timed). The copy writes lines the peer read in the previous exchange.
//   mpicxx -O2 -o exchange_after_copy exchange_after_copy.cc && mpiexec -n 2 ./exchange_after_copy
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int peer = 1 - me;
  for (size_t sz = 16 << 10; sz <= (1u << 20); sz *= 4) {
    std::vector<char> out(sz, 1), in(sz), src(sz, 3);
    const char* names[] = {"clean", "copy inside", "copy before"};
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<double> t;
      for (int i = 0; i < 50; ++i) {
        if (mode == 2) std::memcpy(out.data(), src.data(), sz);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (mode == 1) std::memcpy(out.data(), src.data(), sz);
        MPI_Request r[2];
        MPI_Irecv(in.data(), static_cast<int>(sz), MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out.data(), static_cast<int>(sz), MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        t.push_back((MPI_Wtime() - t0) * 1e6);
      }
      std::sort(t.begin(), t.end());
      if (me == 0) std::printf("%8zu B  %-12s %8.2f us\n", sz, names[mode], t[25]);
    }
  }
  MPI_Finalize();
}
