#include "bench_floor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "bench_vcolls.h"

namespace bench {

NodeCopy MeasureNodeCopy(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  NodeCopy nc;
  MPI_Comm_size(node, &nc.ranks);
  int node_rank = 0, leader = 0;
  MPI_Comm_rank(node, &node_rank);
  leader = node_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &nc.hosts, 1, MPI_INT, MPI_SUM, comm);
  MPI_Allreduce(&nc.ranks, &nc.max_ranks, 1, MPI_INT, MPI_MAX, comm);
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
  coll = EqualForm(coll);  // a v-collective as its equal form, with S this rank's bytes
  const double S = static_cast<double>(bytes), P = node_ranks;
  switch (coll) {
    case Coll::kAllReduce:  // P inputs of S, P outputs of S
    case Coll::kAllToAll:   // P inputs of S (P blocks), P outputs of S
      return 2 * P * S;
    case Coll::kReduceScatter:  // P inputs of S, P outputs of S / P
    case Coll::kBroadcast:      // one input of S, P outputs of S
    case Coll::kReduce:         // P inputs of S, one output of S
      return (P + 1) * S;
    case Coll::kScan:    // P inputs of S, P outputs of S
    case Coll::kExScan:  // (rank 0's output is none)
      return (coll == Coll::kScan ? 2 * P : 2 * P - 1) * S;
    case Coll::kAllGather:  // P inputs of S, P outputs of P * S
      return P * S * (P + 1);
    case Coll::kGather:   // P inputs of S, one output of P * S
    case Coll::kScatter:  // one input of S (P blocks), P outputs of S / P
      return 2 * (coll == Coll::kGather ? P * S : S);
  }
  return 0;
}

double NetworkFloorBytes(Coll coll, size_t bytes, int hosts, int ranks_per_host) {
  coll = EqualForm(coll);  // (uniform blocks; others are an estimate)
  const double S = static_cast<double>(bytes), H = hosts, K = ranks_per_host;
  if (hosts < 2) return 0;
  switch (coll) {
    case Coll::kAllReduce:  // reduce-scatter then allgather of S over the hosts
      return 2 * (H - 1) / H * S;
    case Coll::kReduceScatter:  // the other hosts' (H-1)/H of S, pre-reduced, leaves once
      return (H - 1) / H * S;
    case Coll::kAllGather:  // every other host's K blocks of S must arrive
      return (H - 1) * K * S;
    case Coll::kBroadcast:  // S leaves the root's host once; S arrives at each other host
    case Coll::kReduce:     // S (pre-reduced) arrives at the root's host
      return S;
    case Coll::kAllToAll:  // each of K ranks sends (H-1)/H of its S off the host
      return K * (H - 1) / H * S;
    case Coll::kGather:  // the other hosts' K blocks of S arrive at the root's host
      return (H - 1) * K * S;
    case Coll::kScatter:  // (H-1)/H of the root's S leaves its host
      return (H - 1) / H * S;
    case Coll::kScan:  // each host but the last passes its prefix of S on
    case Coll::kExScan:
      return S;
    default:
      return 0;
  }
}

}  // namespace bench
