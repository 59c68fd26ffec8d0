// mpic++ -O2 -o pingpong_loaded pingpong_loaded.cc; mpiexec -n 4 --allow-run-as-root
// --oversubscribe ./pingpong_loaded 1 Ping-pongs (8 B-2 KiB; 64 KiB and 2 MiB: exchanges), pair
// (0,1) alone then every pair at once.
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
double PP(int me, int peer, bool first, size_t bytes, int iters) {
  std::vector<char> b(std::max<size_t>(bytes, 1));
  std::vector<double> rt;
  for (int i = 0; i < iters + 3; i++) {
    double t0 = MPI_Wtime();
    if (first) {
      MPI_Send(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(b.data(), bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
    if (i >= 3) rt.push_back((MPI_Wtime() - t0) * 1e6 / 2);
  }
  return Med(rt);
}
double EX(int peer, size_t bytes, int iters) {
  std::vector<char> o(bytes), in(bytes);
  std::vector<double> t;
  for (int i = 0; i < iters + 1; i++) {
    MPI_Request r[2];
    double t0 = MPI_Wtime();
    MPI_Irecv(in.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(o.data(), bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (i >= 1) t.push_back((MPI_Wtime() - t0) * 1e6);
  }
  return Med(t);
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int stride = argc > 1 ? atoi(argv[1]) : 1;  // 1: pairs (0,1)(2,3); 2: (0,2)(1,3)
  int peer = (me / stride) % 2 == 0 ? me + stride : me - stride;
  bool first = (me / stride) % 2 == 0;
  for (int rep = 0; rep < 3; rep++) {
    for (size_t sz : {size_t(8), size_t(2048), size_t(65536), size_t(2 << 20)}) {
      double alone = -1, loaded;
      Quiet(MPI_COMM_WORLD);
      if (me == 0 || me == stride)
        alone = sz < 65536 ? PP(me, peer, first, sz, 200) : EX(peer, sz, 8);
      Quiet(MPI_COMM_WORLD);
      loaded = sz < 65536 ? PP(me, peer, first, sz, 200) : EX(peer, sz, 8);
      Quiet(MPI_COMM_WORLD);
      if (me == 0)
        printf("stride %d bytes %8zu alone %8.2f loaded %8.2f us\n", stride, sz, alone, loaded);
    }
  }
  MPI_Finalize();
}
