#include "bench_floor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace bench {

NodeCopy MeasureNodeCopy(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  NodeCopy nc;
  MPI_Comm_size(node, &nc.ranks);
  const size_t n = 64u << 20;
  std::vector<char> src(n, 1), dst(n, 0);  // touched: no page faults in the timing
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    MPI_Barrier(node);
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src.data(), n);
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    src[rep] = dst[n - 1 - rep];  // keep the copies observable
  }
  double mine = 2.0 * n / best / 1e9;  // read + write
  MPI_Allreduce(&mine, &nc.gbps, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_free(&node);
  return nc;
}

double FloorBytes(Coll coll, size_t bytes, int node_ranks) {
  const double S = static_cast<double>(bytes), P = node_ranks;
  switch (coll) {
    case Coll::kAllReduce:  // P inputs of S, P outputs of S
    case Coll::kAllToAll:   // P inputs of S (P blocks), P outputs of S
      return 2 * P * S;
    case Coll::kReduceScatter:  // P inputs of S, P outputs of S / P
    case Coll::kBroadcast:      // one input of S, P outputs of S
    case Coll::kReduce:         // P inputs of S, one output of S
      return (P + 1) * S;
    case Coll::kAllGather:  // P inputs of S, P outputs of P * S
      return P * S * (P + 1);
  }
  return 0;
}

}  // namespace bench
