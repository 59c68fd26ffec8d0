#include "tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace weft::tune {

double CacheAwareRate(double bytes, double cached_bytes, double cached, double memory) {
  constexpr double kMemoryBytes = 16u << 20;
  if (cached <= 0 || cached_bytes <= 0) return memory;
  if (bytes <= cached_bytes) return cached;
  if (bytes >= kMemoryBytes || cached_bytes >= kMemoryBytes) return memory;
  const double f = std::log(bytes / cached_bytes) / std::log(kMemoryBytes / cached_bytes);
  return cached * std::pow(memory / cached, f);
}

double LinkTier::Rate(uint64_t bytes) const {
  if (eager_gbytes_per_s > 0 && eager_bytes > 0 && bytes <= eager_bytes) return eager_gbytes_per_s;
  return CacheAwareRate(static_cast<double>(bytes), cached_bytes, cached_gbytes_per_s,
                        gbytes_per_s);
}

uint64_t WorkingSetBytes(const ir::Program& p) {
  return p.send_bytes + p.recv_bytes + p.scratch_bytes + p.shm_slot_bytes;
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

ComputePricer::ComputePricer(const CostModel& m, const ir::Program& p)
    : m_(&m), type_(p.dtype), working_set_(WorkingSetBytes(p)) {
  if (m.handover_gbytes_per_s <= 0) return;
  for (const ir::Instr& in : p.code) {
    if (in.op != ir::Opcode::kSend || ir::HasRank(in.srcs[0].space) ||
        &m.Tier(p.rank, in.peer) != &m.intra) {
      continue;
    }
    const uint64_t at = in.srcs[0].offset;
    sent_[static_cast<int>(in.srcs[0].space)].push_back({at, at + in.bytes});
  }
  for (auto& v : sent_) {
    std::sort(v.begin(), v.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& r : v) {
      if (!merged.empty() && r.first <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, r.second);
      } else {
        merged.push_back(r);
      }
    }
    v.swap(merged);
  }
}

bool ComputePricer::SentToNodePeer(const ir::Ref& r, uint64_t bytes) const {
  if (ir::HasRank(r.space)) return false;
  const auto& v = sent_[static_cast<int>(r.space)];
  // The first range ending after r's start: it overlaps r where it begins before r's end.
  auto it = std::upper_bound(v.begin(), v.end(), r.offset,
                             [](uint64_t at, const auto& range) { return at < range.second; });
  return it != v.end() && it->first < r.offset + bytes;
}

double ComputePricer::Us(const ir::Instr& in) const {
  const CostModel& m = *m_;
  const bool reduce = in.op == ir::Opcode::kReduce;
  const uint64_t bytes = reduce ? in.bytes * in.srcs.size() : in.bytes;
  const double local = reduce ? m.ReduceUs(bytes, type_, working_set_) : m.CopyUs(bytes);
  bool crosses = ir::HasRank(in.dst.space), peer_buffer = false;
  for (const ir::Ref& s : in.srcs) {
    crosses = crosses || ir::HasRank(s.space);
    peer_buffer = peer_buffer || s.space == ir::Space::kPeerSend || s.space == ir::Space::kPeerRecv;
  }
  peer_buffer = peer_buffer && !m.peer_buffers_mapped;  // a single copy, not memcpy
  const double call = peer_buffer ? m.single_copy_us : 0;
  if (m.handover_gbytes_per_s <= 0 || !(crosses || SentToNodePeer(in.dst, in.bytes))) {
    // A single copy runs at its own rate in cache or out (process_vm_readv pins the pages).
    const bool single = peer_buffer && !reduce && m.single_copy_gbytes_per_s > 0;
    return call + (single ? bytes / (m.single_copy_gbytes_per_s * 1e3) : local);
  }
  const double memory = peer_buffer && m.single_copy_gbytes_per_s > 0 ? m.single_copy_gbytes_per_s
                                                                      : m.copy_gbytes_per_s;
  const double rate = CacheAwareRate(static_cast<double>(working_set_), m.compute_cached_bytes,
                                     m.handover_gbytes_per_s, memory);
  return call + std::max(reduce ? local : 0.0, bytes / (rate * 1e3));
}

double EstimateProgramUs(const ir::Program& p, const CostModel& m) {
  const ComputePricer compute(m, p);
  double total = m.call_overhead_us;
  // Latency per direction, each with its own side's bytes. Taken together (the slowest latency
  // plus the larger side), a ring's node-boundary rank, receiving from another node and sending
  // to a node peer, paid the network's latency on its send's bytes: the flat ring's allgather at
  // 32 x 64 and 32 KiB blocks was estimated 12.6 ms, replayed 9.5, and lost to shmpipe/ring
  // (11.9). (A send's latency stays charged: without it a tree's root looked cheap, and at 2-32
  // ranks selection moved eleven small bcasts and reduces to deeper trees, which replayed
  // 1.2-1.7x slower where checked.)
  struct Message {
    bool send, waits;           // waits: a receive, or a send by rendezvous (blocks for its peer)
    double latency, wire, own;  // wire: its share of a shared node link; own: its own bytes
    double posted;              // the rank's time when it was started
    double recv_overhead;       // a receive's o_r at its tier
  };
  std::vector<Message> round;  // the messages the round's wait completes, in the order started
  // Whether the last round was bound by a node link its node's ranks share. The link still
  // carries their messages when this rank posts its next round, so that round's latency
  // passes while the link is busy (weft-sim: pairwise:4 at 32 x 64 and 1 KiB blocks replays
  // 10.41 ms, the link's time, where a latency per round put the estimate at 11.53).
  bool link_bound = false;
  // Local work after the round's first message is posted runs while its messages are in flight
  // (the interpreter posts without blocking and waits at the waitall; weft-sim likewise): a
  // pipelined composition reduces chunk c + 1 inside the node during chunk c's network round.
  double overlapped = 0;
  // A waitolder completes the older messages only: the ones it leaves in flight count in the
  // next round, whose local work then runs while they fly.
  auto close_round = [&](size_t keep) {
    keep = std::min(keep, round.size());
    const size_t older = round.size() - keep;
    double latency_out = 0, latency_in = 0, wire_out = 0, wire_in = 0, own_out = 0, own_in = 0;
    uint64_t messages = 0;
    double received_us = 0;  // the receiver's core time for the round's arrivals
    bool receives = false;
    // The round's messages move from the first one's start (earlier than the round's own
    // start where a waitolder left them in flight), and none is done before its own latency
    // and bytes from its start (a send that a reduce fed late).
    double first = total + overlapped, last = 0;
    for (size_t i = 0; i < older; ++i) {
      const Message& x = round[i];
      first = std::min(first, x.posted);
      last = std::max(last, x.posted + x.latency + x.own);
      (x.send ? latency_out : latency_in) = std::max(x.send ? latency_out : latency_in, x.latency);
      (x.send ? wire_out : wire_in) += x.wire;
      (x.send ? own_out : own_in) += x.own;
      messages += x.send;
      received_us += x.send ? 0 : x.recv_overhead;
      receives = receives || x.waits;
    }
    // Posting a send costs the rank's injection, not its core: weft-sim books it on the rank's
    // own link side, where local work after the post overlaps it. Added to the round's time
    // after the fact, 248 small sends of [zerocopy/rexch:-32,32]@16K at 32 x 64 and 64 KiB put
    // 12.4 us on top of an estimate whose replay overlapped them (estimate 36.2 us, replay
    // 20.2, where the unchunked recipe's 62 sends gave 28.5 and 28.4).
    own_out += messages * m.message_overhead_us;
    wire_out = std::max(wire_out, own_out);
    // The receiver's core takes each arrival in turn (LogGP's o_r).
    own_in += received_us;
    wire_in = std::max(wire_in, own_in);
    const bool posted = older > 0;
    // A round that receives (or sends by rendezvous) blocks for its peer, and gives the core
    // away where the machine is oversubscribed.
    const double wake = receives ? m.wake_us : 0;
    const double alone = std::max(latency_out + own_out, latency_in + own_in);
    const double shared = std::max(wire_out, wire_in);
    const double wire = link_bound ? std::max(alone, shared)
                                   : std::max(latency_out + wire_out, latency_in + wire_in);
    if (posted) link_bound = shared > alone;
    total = std::max(total + overlapped, posted ? std::max(first + wake + wire, last) : total);
    round.erase(round.begin(), round.begin() + static_cast<std::ptrdiff_t>(older));
    overlapped = 0;
  };
  bool in_waits = false;
  for (const ir::Instr& in : p.code) {
    const bool was_waiting = in_waits;
    in_waits = in.op == ir::Opcode::kWait;
    if (was_waiting && in_waits) continue;
    const bool posted = !round.empty();
    switch (in.op) {
      case ir::Opcode::kCopy:
      case ir::Opcode::kReduce:
        (posted ? overlapped : total) += compute.Us(in);
        if (!posted) link_bound = false;  // the node's links drain while its ranks compute
        break;
      case ir::Opcode::kSend:
      case ir::Opcode::kRecv: {
        const bool send = in.op == ir::Opcode::kSend;
        const LinkTier& t = m.Tier(p.rank, in.peer);
        const bool across = &t == &m.inter;
        const uint64_t sharers = across ? m.CrossingSharers(p.rank, in.peer) : 1;
        round.push_back(
            {send, !send || t.Rendezvous(in.bytes),
             t.latency_us + (t.Rendezvous(in.bytes) ? t.rendezvous_us : 0),
             m.WireUs(t, in.bytes * sharers) + (across ? sharers * m.link_message_us : 0),
             across ? m.LinkMessageUs(t, in.bytes) : m.WireUs(t, in.bytes), total + overlapped,
             t.recv_overhead_us});
        break;
      }
      case ir::Opcode::kWaitAll:
        close_round(0);
        break;
      case ir::Opcode::kWaitOlder:
        close_round(in.value);
        break;
      case ir::Opcode::kWait:
        // Peers signal at about the same time: a run of waits costs one cache-line trip.
        (posted ? overlapped : total) += m.counter_wait_us + m.wake_us;
        break;
      default:
        break;
    }
  }
  close_round(0);
  return total;
}

}  // namespace weft::tune
