// mpic++ -O2 -o loaded_pairs loaded_pairs.cc
// mpiexec -n 4 --allow-run-as-root --oversubscribe ./loaded_pairs exchange|pingpong [STRIDE]
// Pair (0, STRIDE) alone, then every pair at once (STRIDE 1: pairs (0,1),(2,3); 2: (0,2),(1,3)),
// time on rank 0. exchange: loops of 8 B-64 KiB exchanges (Irecv, Isend, Waitall), time per
// exchange, the median of 7 loops. pingpong: half the round trip of 8 B and 2 KiB ping-pongs,
// the median of 200; 64 KiB and 2 MiB by one exchange at a time, the median of 8.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

static double Med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static void Quiet(MPI_Comm c) {  // waiters sleep, so a pair alone has the cores
  MPI_Request r;
  MPI_Ibarrier(c, &r);
  int d = 0;
  for (MPI_Test(&r, &d, MPI_STATUS_IGNORE); !d; MPI_Test(&r, &d, MPI_STATUS_IGNORE)) usleep(200);
}

static double ExchangeUs(int peer, size_t bytes, int iters) {
  std::vector<char> o(bytes), in(bytes);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    MPI_Request r[2];
    MPI_Irecv(in.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(o.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  return (MPI_Wtime() - t0) * 1e6 / iters;
}

static double PingPongUs(int peer, bool first, size_t bytes) {
  std::vector<char> b(std::max<size_t>(bytes, 1));
  const double t0 = MPI_Wtime();
  if (first) {
    MPI_Send(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    MPI_Recv(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
  }
  return (MPI_Wtime() - t0) * 1e6 / 2;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const bool exchange = argc < 2 || std::strcmp(argv[1], "pingpong") != 0;
  const int stride = argc > 2 ? atoi(argv[2]) : 1;
  const bool first = (me / stride) % 2 == 0;
  const int peer = first ? me + stride : me - stride;
  auto measure = [&](size_t sz) {
    std::vector<double> t;
    if (exchange) {  // the first loop warms up
      for (int k = 0; k < 8; k++) {
        const double us = ExchangeUs(peer, sz, sz < 4096 ? 2000 : 500);
        if (k) t.push_back(us);
      }
    } else {
      const bool pp = sz < 65536;
      for (int i = 0; i < (pp ? 203 : 9); i++) {
        const double us = pp ? PingPongUs(peer, first, sz) : ExchangeUs(peer, sz, 1);
        if (i >= (pp ? 3 : 1)) t.push_back(us);
      }
    }
    return Med(t);
  };
  const std::vector<size_t> sizes = exchange ? std::vector<size_t>{8, 4096, 65536}
                                             : std::vector<size_t>{8, 2048, 65536, 2u << 20};
  for (int rep = 0; rep < 3; rep++) {
    for (size_t sz : sizes) {
      double alone = -1;
      Quiet(MPI_COMM_WORLD);
      if (me == 0 || me == stride) alone = measure(sz);
      Quiet(MPI_COMM_WORLD);
      const double loaded = measure(sz);
      Quiet(MPI_COMM_WORLD);
      if (me == 0) {
        printf("stride %d bytes %8zu alone %8.2f loaded %8.2f us\n", stride, sz, alone, loaded);
      }
    }
  }
  MPI_Finalize();
}
