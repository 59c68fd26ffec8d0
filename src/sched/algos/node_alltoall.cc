// Node-aware alltoall (after Open MPI HAN's, for ranks on several nodes): a rank's blocks for
// another node do not cross the network one by one. For each destination y on another node,
// one rank of the source node, its "sender" (local index local(y) mod the source node's size),
// sends y one message holding the blocks of every rank of the source node for y. So
//   1. inside the node, every rank hands each node peer its block for that peer and the blocks
//      for the remote ranks that peer sends to (packed, one message each);
//   2. across nodes, in rounds over the other nodes (node n + r sends to node n + r, receives
//      from node n - r; `w` rounds share one waitall), each sender packs and sends one message
//      per destination it serves: with equal nodes exactly one per remote node.
// Step 1 goes a group of w rounds at a time, the next group's in the waitall of the current
// group's network messages, so the network starts after one group's forwarding instead of all
// of it: at 32 x 64 64 B blocks went from 449 to 432 us and 1 KiB blocks from 6,394 to 5,564
// us (weft-sim alltoall -n 64|1024 -d int8 --topology 32x64 --recipe nodea2a:4 --net-gbits 200
// --net-latency-us 7.5, before and after; bench/hierarchy-sim/alltoall-32x64).
// At P ranks on N nodes of L a rank sends (L - 1)(1 + G) + N - 1 messages, G = ceil((N - 1) / w)
// groups, instead of P - 1: at 32 x 64 with w = 4, 598 (31 of them across nodes) instead of
// 2,047 (1,984 across), with the same bytes on the network. Any placement works (block,
// round-robin, uneven nodes); with uneven nodes a rank of a small node serves several
// destinations of a larger one. Blocks from a node whose ranks are consecutive land in the
// receive buffer directly; otherwise they go through scratch.
// Factor: rounds per waitall (default 4).
#include <algorithm>
#include <vector>

#include "sched/algos/builder.h"
#include "sched/algos/node_partners.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class NodeAllToAllGen final : public Generator {
 public:
  const char* name() const override { return "nodea2a"; }
  const char* summary() const override {
    return "node-aware alltoall: packs inside the node, one message per remote rank served; "
           "factor: rounds per waitall (default 4)";
  }
  bool Serves(Coll c) const override { return c == Coll::kAllToAll; }
  std::vector<int> DefaultFactors(const CollSpec&) const override { return {4}; }
  int MinRounds(const CollSpec& spec) const override { return NumNodes(spec) > 1 ? 2 : 1; }

  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override {
    const Topology& t = *spec.nodes;
    const int n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
    const std::vector<int>& rn = t.ranks_of_node[n];
    const int ln = static_cast<int>(rn.size());
    const int w = factors.empty() ? 4 : factors[0];
    const uint64_t blk = spec.count * ElemBytes(spec);
    Builder b(spec, rank);
    ScratchTop scratch(&b);
    auto take = [&](uint64_t bytes) { return scratch.Take(bytes); };
    const ir::Ref src = StartAllToAll(b, spec, rank, blk, scratch);

    // Destinations in round order: a peer on this node forwards for the same rounds (node
    // n + r is round r for every rank of node n), so both sides order a group's blocks alike.
    const uint64_t groups = (N - 1 + w - 1) / w;
    auto round_of = [&](int y) { return (t.node_of_rank[y] - n + N) % N; };
    auto group_of = [&](int y) { return (round_of(y) - 1) / w; };
    auto in_round_order = [&](std::vector<int> ys) {
      std::stable_sort(ys.begin(), ys.end(),
                       [&](int a, int c) { return round_of(a) < round_of(c); });
      return ys;
    };
    auto of_group = [&](const std::vector<int>& ys, uint64_t g) {
      std::vector<int> out;
      for (int y : ys) {
        if (static_cast<uint64_t>(group_of(y)) == g) out.push_back(y);
      }
      return out;
    };
    const std::vector<int> mine = in_round_order(ServedBy(t, n, i));
    std::vector<std::vector<int>> theirs(ln);  // what each node peer serves, in round order
    for (int s = 0; s < ln; ++s) theirs[s] = in_round_order(ServedBy(t, n, s));
    std::vector<uint64_t> fwd_in(groups);  // per group: [source local index][destination]
    std::vector<std::vector<int>> mine_g(groups);
    for (uint64_t g = 0; g < groups; ++g) {
      mine_g[g] = of_group(mine, g);
      fwd_in[g] = take(ln * mine_g[g].size() * blk);
    }

    // 1. Inside the node, a group of rounds at a time (the first group's with each peer's own
    // block): what each peer forwards for those rounds, packed, one message a peer. Group g + 1
    // moves while group g crosses the network.
    auto forward = [&](uint64_t g) {
      const uint64_t k = mine_g[g].size();
      for (int s = 1; s < ln; ++s) {
        const int to = (i + s) % ln, from = (i - s + ln) % ln;
        const std::vector<int> serve = of_group(theirs[to], g);
        const uint64_t pack = take(serve.size() * blk);
        for (size_t d = 0; d < serve.size(); ++d) {
          b.Copy(ScratchAt(pack + d * blk), Plus(src, serve[d] * blk), blk);
        }
        if (g == 0) b.Send(rn[to], Plus(src, rn[to] * blk), blk);
        b.Send(rn[to], ScratchAt(pack), serve.size() * blk);
        if (g == 0) b.Recv(rn[from], RecvAt(rn[from] * blk), blk);
        b.Recv(rn[from], ScratchAt(fwd_in[g] + from * k * blk), k * blk);
      }
    };
    forward(0);
    b.WaitAll();

    // 2. Across nodes, group by group of w rounds (node n + r sends to node n + r, receives
    // from node n - r), the next group's forwarding in the same waitall.
    const uint64_t out = take(mine.size() * ln * blk);  // [destination][source local index]
    std::vector<uint64_t> staged(N, 0);                 // scratch for blocks from a scattered node
    for (int m = 0; m < N; ++m) {
      if (m != n && !Consecutive(t.ranks_of_node[m])) {
        staged[m] = take(t.ranks_of_node[m].size() * blk);
      }
    }
    for (uint64_t g = 0; g < groups; ++g) {
      std::vector<int> unpack;
      const uint64_t k = mine_g[g].size();
      for (int r = 1 + static_cast<int>(g) * w; r < std::min<int>(1 + (g + 1) * w, N); ++r) {
        const int to = (n + r) % N, from = (n - r + N) % N;
        for (uint64_t d = 0; d < k; ++d) {
          const int y = mine_g[g][d];
          if (t.node_of_rank[y] != to) continue;
          const uint64_t at = out + d * ln * blk;
          for (int s = 0; s < ln; ++s) {
            const ir::Ref blk_from_s =
                s == i ? Plus(src, y * blk) : ScratchAt(fwd_in[g] + (s * k + d) * blk);
            b.Copy(ScratchAt(at + s * blk), blk_from_s, blk);
          }
          b.Send(y, ScratchAt(at), ln * blk);
        }
        const std::vector<int>& rf = t.ranks_of_node[from];
        const int lf = static_cast<int>(rf.size());
        const int sender = SenderFor(t, from, rank);
        if (Consecutive(rf)) {
          b.Recv(sender, RecvAt(rf.front() * blk), lf * blk);
        } else {
          b.Recv(sender, ScratchAt(staged[from]), lf * blk);
          unpack.push_back(from);
        }
      }
      if (g + 1 < groups) forward(g + 1);
      b.WaitAll();
      for (int from : unpack)
        PlaceNodeBlocks(b, t.ranks_of_node[from], ScratchAt(staged[from]), blk);
    }
    return b.Take();
  }

 protected:
  std::string DeclineShape(const CollSpec& spec, const std::vector<int>& f,
                           const GenEnv&) const override {
    if (f.size() > 1 || (f.size() == 1 && f[0] < 1)) return "nodea2a takes one count >= 1";
    if (!spec.nodes || spec.nodes->nranks != spec.nranks) {
      return "nodea2a needs the node map (ranks on more than one node)";
    }
    return "";
  }
};

}  // namespace

const Generator& NodeAllToAll() {
  static const NodeAllToAllGen g;
  return g;
}

}  // namespace weft::sched
