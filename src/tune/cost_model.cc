#include "tune/cost_model.h"

#include <algorithm>
#include <cmath>

namespace weft::tune {

double LinkTier::Rate(uint64_t bytes) const {
  constexpr double kMemoryBytes = 16u << 20;
  if (cached_gbytes_per_s <= 0 || cached_bytes <= 0) return gbytes_per_s;
  if (bytes <= cached_bytes) return cached_gbytes_per_s;
  if (bytes >= kMemoryBytes || cached_bytes >= kMemoryBytes) return gbytes_per_s;
  const double f = std::log(bytes / cached_bytes) / std::log(kMemoryBytes / cached_bytes);
  return cached_gbytes_per_s * std::pow(gbytes_per_s / cached_gbytes_per_s, f);
}

int CostModel::CrossingSharers(int rank, int peer) const {
  if (!nodes) return 1;
  const Topology& t = *nodes;
  const int P = t.nranks, node = t.node_of_rank[rank];
  const int d = ((peer - rank) % P + P) % P;
  int n = 0;
  for (int q : t.ranks_of_node[node]) n += t.node_of_rank[(q + d) % P] != node;
  return std::max(n, 1);
}

double EstimateProgramUs(const ir::Program& p, const CostModel& m) {
  double total = m.call_overhead_us, latency = 0, wire_out = 0, wire_in = 0;
  int messages = 0;
  auto close_round = [&] {
    total += latency + std::max(wire_out, wire_in) + messages * m.message_overhead_us;
    latency = wire_out = wire_in = 0;
    messages = 0;
  };
  bool in_waits = false;
  for (const ir::Instr& in : p.code) {
    const bool was_waiting = in_waits;
    in_waits = in.op == ir::Opcode::kWait;
    if (was_waiting && in_waits) continue;
    switch (in.op) {
      case ir::Opcode::kCopy:
        total += m.CopyUs(in.bytes);
        break;
      case ir::Opcode::kReduce:
        total += m.ReduceUs(in.bytes * in.srcs.size(), p.dtype);
        break;
      case ir::Opcode::kSend:
      case ir::Opcode::kRecv: {
        const LinkTier& t = m.Tier(p.rank, in.peer);
        latency = std::max(latency, t.latency_us + (t.Rendezvous(in.bytes) ? t.rendezvous_us : 0));
        const uint64_t sharers = &t == &m.inter ? m.CrossingSharers(p.rank, in.peer) : 1;
        (in.op == ir::Opcode::kSend ? wire_out : wire_in) +=
            m.WireUs(t, in.bytes * sharers) + (&t == &m.inter ? sharers * m.link_message_us : 0);
        if (in.op == ir::Opcode::kSend) ++messages;
        break;
      }
      case ir::Opcode::kWaitAll:
        close_round();
        break;
      case ir::Opcode::kWait:
        // Peers signal at about the same time: a run of waits costs one cache-line trip.
        total += m.counter_wait_us;
        break;
      default:
        break;
    }
  }
  close_round();
  return total;
}

}  // namespace weft::tune
