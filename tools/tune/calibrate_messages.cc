#include "calibrate_messages.h"

#include <algorithm>
#include <vector>

#include "calibrate_node.h"
#include "time_recipes.h"

namespace weft::tune_tool {
namespace {

constexpr int kBurst = 64;  // messages posted together
constexpr int kReps = 23;   // bursts timed per size, the median kept

// Time on a for `k` 8-byte sends posted together and acknowledged by b.
double BurstUs(MPI_Comm comm, int me, int a, int b, int k) {
  std::vector<MPI_Request> reqs(k);
  std::vector<double> bufs(k);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < k; ++i) {
    if (me == a) MPI_Isend(&bufs[i], 8, MPI_BYTE, b, 2, comm, &reqs[i]);
    if (me == b) MPI_Irecv(&bufs[i], 8, MPI_BYTE, a, 2, comm, &reqs[i]);
  }
  MPI_Waitall(k, reqs.data(), MPI_STATUSES_IGNORE);
  char ack = 0;
  if (me == b) MPI_Send(&ack, 0, MPI_BYTE, a, 3, comm);
  if (me == a) MPI_Recv(&ack, 0, MPI_BYTE, b, 3, comm, MPI_STATUS_IGNORE);
  return (MPI_Wtime() - t0) * 1e6;
}

// Time on b to receive `k` 8-byte messages that a sent before a token b waited for: the
// messages wait in b's unexpected queue, so b's time is its own, matching and copying them.
double ArrivedBurstUs(MPI_Comm comm, int me, int a, int b, int k) {
  std::vector<MPI_Request> reqs(k);
  std::vector<double> bufs(k);
  char token = 0;
  if (me == a) {
    for (int i = 0; i < k; ++i) MPI_Send(&bufs[i], 8, MPI_BYTE, b, 5, comm);
    MPI_Send(&token, 0, MPI_BYTE, b, 6, comm);
    MPI_Recv(&token, 0, MPI_BYTE, b, 7, comm, MPI_STATUS_IGNORE);
    return -1;
  }
  MPI_Recv(&token, 0, MPI_BYTE, a, 6, comm, MPI_STATUS_IGNORE);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < k; ++i) MPI_Irecv(&bufs[i], 8, MPI_BYTE, a, 5, comm, &reqs[i]);
  MPI_Waitall(k, reqs.data(), MPI_STATUSES_IGNORE);
  const double us = (MPI_Wtime() - t0) * 1e6;
  MPI_Send(&token, 0, MPI_BYTE, a, 7, comm);
  return us;
}

}  // namespace

double MessageOverheadUs(MPI_Comm comm, int me, int a, int b) {
  if (me != a && me != b) return -1;
  std::vector<double> one, many;
  for (int i = 0; i < kReps; ++i) {
    one.push_back(BurstUs(comm, me, a, b, 1));
    many.push_back(BurstUs(comm, me, a, b, kBurst));
  }
  return std::max(0.0, (Median(many) - Median(one)) / (kBurst - 1));
}

double RecvOverheadUs(MPI_Comm comm, int me, int a, int b) {
  if (me != a && me != b) return -1;
  std::vector<double> one, many;
  for (int i = 0; i < kReps; ++i) {
    one.push_back(ArrivedBurstUs(comm, me, a, b, 1));
    many.push_back(ArrivedBurstUs(comm, me, a, b, kBurst));
  }
  if (me != b) return -1;
  return std::max(0.0, (Median(many) - Median(one)) / (kBurst - 1));
}

double LinkMessageUs(MPI_Comm comm, const Topology& topo, int me, int other) {
  if (other < 0) return -1;
  const std::vector<int>& from = topo.ranks_of_node[topo.node_of_rank[0]];
  const std::vector<int>& to = topo.ranks_of_node[topo.node_of_rank[other]];
  const size_t pairs = std::min(from.size(), to.size());
  // This rank's partner and role: a sender of rank 0's node or a receiver of the other node.
  int a = -1, b = -1;
  for (size_t i = 0; i < pairs; ++i) {
    if (me == from[i] || me == to[i]) a = from[i], b = to[i];
  }
  std::vector<double> one, many;
  for (int i = 0; i < kReps; ++i) {
    for (int k : {1, kBurst}) {
      // Every pair starts together; the node's time is its slowest sender's.
      QuietBarrier(comm);
      double us = a >= 0 ? BurstUs(comm, me, a, b, k) : 0, slowest = 0;
      if (me != a) us = 0;
      MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
      (k == 1 ? one : many).push_back(slowest);
    }
  }
  if (me != 0) return -1;
  return std::max(0.0, (Median(many) - Median(one)) / ((kBurst - 1) * static_cast<double>(pairs)));
}

}  // namespace weft::tune_tool
