// Node-pair alltoall (for ranks on several nodes): k network messages per ordered pair of
// nodes (lanes), each through a gateway rank on either side. Where a NIC's cost per message
// rivals the bytes of a message, the node-aware alltoall's one message per remote rank
// (nodea2a: 1,984 out of each node at 32 x 64) spends more on messages than on bytes; this one
// sends 31 k (k = 2 there by default).
// Lane q of the pair (n, m) carries the blocks of n's ranks for m's local ranks
// [q L_m / k, (q + 1) L_m / k).
//   1. Inside the node: every rank hands each of node n's gateways its blocks for that
//      gateway's lane (one message), and its blocks for node peers straight to them.
//   2. Across nodes: a lane's gateway packs what it gathered, destination-major (for each of
//      the lane's ranks of m, the blocks of every rank of n in local order), and sends it as
//      one message to m's gateway for the mirror lane, from which it receives m's.
//   3. Inside the node: each gateway hands each of its lane's ranks its part (one message, the
//      blocks of the remote node's ranks in order).
// The (N - 1) k lanes of a node spread over its L ranks in round order (m = n + r). The bytes
// crossing the network are nodea2a's; inside the node every block for another node moves twice
// (to the gateway, then from the receiving one), and the sending gateway transposes its
// message. Under HAN's cluster (bench/hierarchy-sim/loggp-han: 200 Gbit/s, 0.13 us a message)
// 64 B blocks replay at 411 us against nodea2a:4's 625, and with one lane (k = 1: fewer,
// busier gateways) at 436 (weft-sim alltoall -n 64 -d int8 --topology @han-cluster.topo
// --recipe nodepair[:1]). Any placement works; blocks from a node whose ranks are not
// consecutive go through scratch.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sched/algos/builder.h"
#include "sched/algos/node_partners.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

// A lane: the blocks from node n's ranks for part q of node m's ranks (local indices
// [q lm / k, (q + 1) lm / k)), carried by one gateway on each side.
struct Lane {
  int m, q;
  uint64_t first, count;  // m's local indices the lane serves
};

// The local index of node n's gateway for lane (m, q): the (N - 1) k lanes of a node spread
// over its ranks in round order (m = n + r).
int GatewayIndex(const Topology& t, int k, int n, int m, int q) {
  const int N = t.num_nodes(), ln = static_cast<int>(t.ranks_of_node[n].size());
  const int64_t lane = static_cast<int64_t>((m - n + N) % N - 1) * k + q;
  return static_cast<int>(lane * ln / (static_cast<int64_t>(N - 1) * k));
}

// Gateways per pair of nodes where the recipe gives none: as many as the smallest node has
// ranks per remote node, at least 1 (2 at 32 x 64), the same on every rank.
int DefaultLanes(const Topology& t) {
  size_t smallest = t.ranks_of_node[0].size();
  for (const std::vector<int>& r : t.ranks_of_node) smallest = std::min(smallest, r.size());
  return std::max(1, static_cast<int>(smallest) / (t.num_nodes() - 1));
}

class NodePairAllToAllGen final : public Generator {
 public:
  const char* name() const override { return "nodepair"; }
  const char* summary() const override {
    return "node-pair alltoall: per pair of nodes, k network messages through gateway ranks; "
           "factor: k (default: the smallest node's ranks per remote node)";
  }
  bool Serves(Coll c) const override { return c == Coll::kAllToAll; }
  int MinRounds(const CollSpec& spec) const override { return NumNodes(spec) > 1 ? 3 : 1; }

  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override {
    const Topology& t = *spec.nodes;
    const int n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
    const int k = factors.empty() ? DefaultLanes(t) : factors[0];
    const std::vector<int>& rn = t.ranks_of_node[n];
    const int ln = static_cast<int>(rn.size());
    const uint64_t blk = spec.count * ElemBytes(spec);
    Builder b(spec, rank);
    ScratchTop scratch(&b);
    auto take = [&](uint64_t bytes) { return scratch.Take(bytes); };
    const ir::Ref src = StartAllToAll(b, spec, rank, blk, scratch);
    // Lanes out of this node in round order (m = n + r), and into it (from m = n - r).
    auto lanes_of = [&](bool out) {
      std::vector<Lane> v;
      for (int r = 1; r < N; ++r) {
        const int m = out ? (n + r) % N : (n - r + N) % N;
        const uint64_t lm = out ? t.ranks_of_node[m].size() : ln;
        for (int q = 0; q < k; ++q) {
          v.push_back({m, q, q * lm / k, (q + 1) * lm / k - q * lm / k});
        }
      }
      return v;
    };
    const std::vector<Lane> outs = lanes_of(true), ins = lanes_of(false);
    // This rank's blocks for lane l's destinations: in place where they are consecutive, else
    // packed into scratch.
    auto my_blocks_for = [&](const Lane& l) {
      const std::vector<int>& rm = t.ranks_of_node[l.m];
      const std::vector<int> dests(rm.begin() + l.first, rm.begin() + l.first + l.count);
      if (l.count == 0 || Consecutive(dests)) return Plus(src, (l.count ? dests[0] : 0) * blk);
      const uint64_t pack = take(l.count * blk);
      for (uint64_t j = 0; j < l.count; ++j) {
        b.Copy(ScratchAt(pack + j * blk), Plus(src, dests[j] * blk), blk);
      }
      return ScratchAt(pack);
    };

    // 1. Own blocks to node peers, then each outgoing lane's blocks to its gateway here.
    for (int s = 1; s < ln; ++s) {
      const int to = (i + s) % ln, from = (i - s + ln) % ln;
      b.Send(rn[to], Plus(src, rn[to] * blk), blk);
      b.Recv(rn[from], RecvAt(rn[from] * blk), blk);
    }
    std::vector<uint64_t> gathered(outs.size(), 0);  // lanes served here: [source s][dest j]
    for (size_t o = 0; o < outs.size(); ++o) {
      const Lane& l = outs[o];
      const int gw = GatewayIndex(t, k, n, l.m, l.q);
      if (gw == i) {
        gathered[o] = take(ln * l.count * blk);
        for (int s = 0; s < ln; ++s) {
          if (s != i) b.Recv(rn[s], ScratchAt(gathered[o] + s * l.count * blk), l.count * blk);
        }
      } else {
        b.Send(rn[gw], my_blocks_for(l), l.count * blk);
      }
    }
    b.WaitAll();

    // 2. Across nodes: each lane's gateways exchange one message, packed destination-major.
    std::vector<uint64_t> arrived(ins.size(), 0);  // lanes received here: [dest j][source s]
    for (size_t o = 0; o < outs.size(); ++o) {
      const Lane& l = outs[o];
      if (GatewayIndex(t, k, n, l.m, l.q) != i) continue;
      const uint64_t out = take(l.count * ln * blk);
      for (uint64_t j = 0; j < l.count; ++j) {
        const int dest = t.ranks_of_node[l.m][l.first + j];
        for (int s = 0; s < ln; ++s) {
          const ir::Ref from =
              s == i ? Plus(src, dest * blk) : ScratchAt(gathered[o] + (s * l.count + j) * blk);
          b.Copy(ScratchAt(out + (j * ln + s) * blk), from, blk);
        }
      }
      b.Send(t.ranks_of_node[l.m][GatewayIndex(t, k, l.m, n, l.q)], ScratchAt(out),
             l.count * ln * blk);
    }
    for (size_t o = 0; o < ins.size(); ++o) {
      const Lane& l = ins[o];
      if (GatewayIndex(t, k, n, l.m, l.q) != i) continue;
      const uint64_t lm = t.ranks_of_node[l.m].size();
      arrived[o] = take(l.count * lm * blk);
      b.Recv(t.ranks_of_node[l.m][GatewayIndex(t, k, l.m, n, l.q)], ScratchAt(arrived[o]),
             l.count * lm * blk);
    }
    b.WaitAll();

    // 3. Inside the node: each incoming lane's blocks to their destinations, in lane order.
    std::vector<std::pair<int, uint64_t>> unpack;  // (node, scratch) to copy out at the end
    for (size_t o = 0; o < ins.size(); ++o) {
      const Lane& l = ins[o];
      const std::vector<int>& rm = t.ranks_of_node[l.m];
      const uint64_t lm = rm.size();
      const int gw = GatewayIndex(t, k, n, l.m, l.q);
      const bool mine = i >= static_cast<int>(l.first) && i < static_cast<int>(l.first + l.count);
      if (gw == i) {
        for (uint64_t j = 0; j < l.count; ++j) {
          const int d = static_cast<int>(l.first + j);
          const ir::Ref part = ScratchAt(arrived[o] + j * lm * blk);
          if (d != i) {
            b.Send(rn[d], part, lm * blk);
          } else {
            PlaceNodeBlocks(b, rm, part, blk);
          }
        }
      } else if (mine && Consecutive(rm)) {
        b.Recv(rn[gw], RecvAt(rm.front() * blk), lm * blk);
      } else if (mine) {
        const uint64_t staged = take(lm * blk);
        b.Recv(rn[gw], ScratchAt(staged), lm * blk);
        unpack.push_back({l.m, staged});
      }
    }
    b.WaitAll();
    for (const auto& [m, staged] : unpack)
      PlaceNodeBlocks(b, t.ranks_of_node[m], ScratchAt(staged), blk);
    return b.Take();
  }

 protected:
  std::string DeclineShape(const CollSpec& spec, const std::vector<int>& f,
                           const GenEnv&) const override {
    if (f.size() > 1 || (f.size() == 1 && f[0] < 1)) return "nodepair takes one count >= 1";
    if (!spec.nodes || spec.nodes->nranks != spec.nranks || spec.nodes->num_nodes() < 2) {
      return "nodepair needs the node map (ranks on more than one node)";
    }
    return "";
  }
};

}  // namespace

const Generator& NodePairAllToAll() {
  static const NodePairAllToAllGen g;
  return g;
}

}  // namespace weft::sched
