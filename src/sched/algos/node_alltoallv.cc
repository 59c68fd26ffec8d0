// The node-aware alltoallv (node_alltoallv.h says what it does and why).
//   1. Inside the node, every rank sends each node peer its own block for that peer and, in one
//      message, its small blocks for the destinations that peer forwards to.
//   2. Across nodes, in rounds over the other nodes (`rounds_per_wait` rounds per waitall), a
//      forwarder sends each destination it serves one message with the small blocks of its
//      whole node for it, and every rank sends its large blocks for that node directly.
// Pieces that lie end to end in one buffer travel without packing, so with the blocks in rank
// order a message goes from the user's buffer and lands in the user's buffer.
#include "sched/algos/node_alltoallv.h"

#include <algorithm>
#include <utility>

#include "sched/algos/builder.h"
#include "sched/algos/node_partners.h"

namespace weft::sched {
namespace {

struct Piece {
  ir::Ref at;
  uint64_t bytes = 0;
};

uint64_t Total(const std::vector<Piece>& ps) {
  uint64_t n = 0;
  for (const Piece& p : ps) n += p.bytes;
  return n;
}

// The non-empty pieces follow one another in one buffer (or there are none); *first is where
// the run starts.
bool EndToEnd(const std::vector<Piece>& ps, ir::Ref* first) {
  const Piece* prev = nullptr;
  for (const Piece& p : ps) {
    if (p.bytes == 0) continue;
    if (prev == nullptr) {
      *first = p.at;
    } else if (!(p.at == Plus(prev->at, prev->bytes))) {
      return false;
    }
    prev = &p;
  }
  return true;
}

// Builder plus a bump allocator over scratch.
class Scratch {
 public:
  explicit Scratch(Builder& b) : b_(b) {}
  uint64_t Take(uint64_t bytes) {
    const uint64_t at = top_;
    top_ += bytes;
    b_.NeedScratch(top_);
    return at;
  }

 private:
  Builder& b_;
  uint64_t top_ = 0;
};

// One message to `peer` holding the pieces in order: straight from their buffer when they lie
// end to end, else packed into scratch first.
void SendPieces(Builder& b, Scratch& scratch, int peer, const std::vector<Piece>& ps) {
  ir::Ref first;
  const uint64_t total = Total(ps);
  if (total == 0) return;
  if (EndToEnd(ps, &first)) return b.Send(peer, first, total);
  const uint64_t at = scratch.Take(total);
  uint64_t o = at;
  for (const Piece& p : ps) {
    b.Copy(ScratchAt(o), p.at, p.bytes);
    o += p.bytes;
  }
  b.Send(peer, ScratchAt(at), total);
}

CollSpec BytesSpec(const Topology& t, bool in_place) {
  CollSpec spec;
  spec.coll = Coll::kAllToAll;
  spec.nranks = t.nranks;
  spec.dtype = weftUint8;
  spec.in_place = in_place;
  return spec;
}

// Offsets of the count table's part for each node peer (local order, this rank's own skipped).
std::vector<uint64_t> TableOffsets(const Topology& t, int n, int i, uint64_t* total) {
  const int ln = static_cast<int>(t.ranks_of_node[n].size());
  std::vector<uint64_t> at(ln, 0);
  uint64_t o = 0;
  for (int p = 0; p < ln; ++p) {
    if (p == i) continue;
    at[p] = o;
    o += 8 * ServedBy(t, n, p).size();
  }
  *total = o;
  return at;
}

}  // namespace

ir::Program NodeAllToAllVCounts(const Topology& t, int rank) {
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank);
  const std::vector<int>& rn = t.ranks_of_node[n];
  const int ln = static_cast<int>(rn.size());
  const uint64_t k = ServedBy(t, n, i).size();
  Builder b(BytesSpec(t, false), rank);
  uint64_t send_total = 0;
  const std::vector<uint64_t> at = TableOffsets(t, n, i, &send_total);
  b.program().send_bytes = send_total;
  b.program().recv_bytes = 8 * k * (ln - 1);
  for (int s = 1; s < ln; ++s) {
    const int to = (i + s) % ln, from = (i - s + ln) % ln;
    b.Send(rn[to], SendAt(at[to]), 8 * ServedBy(t, n, to).size(), kVCountsTag);
    b.Recv(rn[from], RecvAt(8 * k * (from < i ? from : from - 1)), 8 * k, kVCountsTag);
  }
  b.WaitAll();
  return b.Take();
}

std::vector<uint64_t> VCountsTable(const Topology& t, int rank,
                                   const std::vector<uint64_t>& bytes_to) {
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank);
  const int ln = static_cast<int>(t.ranks_of_node[n].size());
  std::vector<uint64_t> table;
  for (int p = 0; p < ln; ++p) {
    if (p == i) continue;
    for (int d : ServedBy(t, n, p)) table.push_back(bytes_to[d]);
  }
  return table;
}

ir::Program NodeAllToAllV(const NodeAllToAllVShape& sh, const VBlocks& vb) {
  const Topology& t = *sh.nodes;
  const int rank = sh.rank, n = t.node_of_rank[rank], i = t.LocalRank(rank), N = t.num_nodes();
  const std::vector<int>& rn = t.ranks_of_node[n];
  const int ln = static_cast<int>(rn.size());
  const int w = std::max(1, sh.rounds_per_wait);
  Builder b(BytesSpec(t, sh.in_place), rank);
  b.program().send_bytes = sh.in_place ? sh.recv_bytes : sh.send_bytes;
  b.program().recv_bytes = sh.recv_bytes;
  Scratch scratch(b);
  ir::Ref src = SendAt(0);
  if (sh.in_place) {  // every block is read before any is overwritten
    src = ScratchAt(scratch.Take(sh.recv_bytes));
    b.Copy(src, SendAt(0), sh.recv_bytes);
  }
  auto own = [&](int to) { return Plus(src, vb.SendOffset(rank, to)); };
  auto small = [&](int from, int to) {
    return t.node_of_rank[from] != t.node_of_rank[to] && vb.Bytes(from, to) < sh.direct_bytes;
  };
  b.Copy(RecvAt(vb.RecvOffset(rank, rank)), own(rank), vb.Bytes(rank, rank));

  // 1. Inside the node.
  const std::vector<int> mine = ServedBy(t, n, i);
  const size_t k = mine.size();
  std::vector<uint64_t> fwd(ln * k, 0);  // scratch place of node peer s's block for mine[d]
  for (int s = 1; s < ln; ++s) {
    const int to = (i + s) % ln, from = (i - s + ln) % ln;
    b.Send(rn[to], own(rn[to]), vb.Bytes(rank, rn[to]));
    std::vector<Piece> out;
    for (int d : ServedBy(t, n, to)) {
      if (small(rank, d)) out.push_back({own(d), vb.Bytes(rank, d)});
    }
    SendPieces(b, scratch, rn[to], out);
    b.Recv(rn[from], RecvAt(vb.RecvOffset(rank, rn[from])), vb.Bytes(rn[from], rank));
    uint64_t total = 0;
    for (size_t d = 0; d < k; ++d) {
      if (small(rn[from], mine[d])) total += vb.Bytes(rn[from], mine[d]);
    }
    uint64_t o = scratch.Take(total);
    b.Recv(rn[from], ScratchAt(o), total);
    for (size_t d = 0; d < k; ++d) {
      if (!small(rn[from], mine[d])) continue;
      fwd[from * k + d] = o;
      o += vb.Bytes(rn[from], mine[d]);
    }
  }
  b.WaitAll();

  // 2. Across nodes, in rounds.
  for (int r0 = 1; r0 < N; r0 += w) {
    std::vector<std::pair<std::vector<Piece>, uint64_t>> unpack;  // pieces, scratch place
    for (int r = r0; r < std::min(r0 + w, N); ++r) {
      const int to = (n + r) % N, from = (n - r + N) % N;
      for (size_t d = 0; d < k; ++d) {
        if (t.node_of_rank[mine[d]] != to) continue;
        std::vector<Piece> out;
        for (int s = 0; s < ln; ++s) {
          if (!small(rn[s], mine[d])) continue;
          out.push_back(
              {s == i ? own(mine[d]) : ScratchAt(fwd[s * k + d]), vb.Bytes(rn[s], mine[d])});
        }
        SendPieces(b, scratch, mine[d], out);
      }
      for (int y : t.ranks_of_node[to]) {
        if (!small(rank, y)) b.Send(y, own(y), vb.Bytes(rank, y));
      }
      const std::vector<int>& rf = t.ranks_of_node[from];
      std::vector<Piece> in;
      for (int x : rf) {
        if (small(x, rank)) in.push_back({RecvAt(vb.RecvOffset(rank, x)), vb.Bytes(x, rank)});
      }
      const int sender = SenderFor(t, from, rank);
      ir::Ref first;
      const uint64_t total = Total(in);
      if (EndToEnd(in, &first)) {
        if (total > 0) b.Recv(sender, first, total);
      } else {
        const uint64_t at = scratch.Take(total);
        b.Recv(sender, ScratchAt(at), total);
        unpack.emplace_back(std::move(in), at);
      }
      for (int x : rf) {
        if (!small(x, rank)) b.Recv(x, RecvAt(vb.RecvOffset(rank, x)), vb.Bytes(x, rank));
      }
    }
    b.WaitAll();
    for (const auto& [pieces, at] : unpack) {
      uint64_t o = at;
      for (const Piece& p : pieces) {
        b.Copy(p.at, ScratchAt(o), p.bytes);
        o += p.bytes;
      }
    }
  }
  return b.Take();
}

RankVBlocks::RankVBlocks(const Topology& t, int rank, std::vector<uint64_t> send_bytes,
                         std::vector<uint64_t> send_offsets, std::vector<uint64_t> recv_bytes,
                         std::vector<uint64_t> recv_offsets,
                         const std::vector<uint64_t>& peer_table)
    : t_(t),
      rank_(rank),
      send_bytes_(std::move(send_bytes)),
      send_offsets_(std::move(send_offsets)),
      recv_bytes_(std::move(recv_bytes)),
      recv_offsets_(std::move(recv_offsets)),
      served_index_(t.nranks, -1) {
  const int n = t.node_of_rank[rank], i = t.LocalRank(rank);
  const int ln = static_cast<int>(t.ranks_of_node[n].size());
  const std::vector<int> mine = ServedBy(t, n, i);
  served_ = mine.size();
  for (size_t d = 0; d < served_; ++d) served_index_[mine[d]] = static_cast<int>(d);
  peer_.assign(ln * served_, 0);
  size_t at = 0;
  for (int s = 0; s < ln; ++s) {
    if (s == i) continue;
    for (size_t d = 0; d < served_ && at < peer_table.size(); ++d) {
      peer_[s * served_ + d] = peer_table[at++];
    }
  }
}

uint64_t RankVBlocks::Bytes(int from, int to) const {
  if (from == rank_) return send_bytes_[to];
  if (to == rank_) return recv_bytes_[from];
  if (t_.node_of_rank[from] != t_.node_of_rank[rank_] || served_index_[to] < 0) return 0;
  return peer_[t_.LocalRank(from) * served_ + served_index_[to]];
}

uint64_t RankVBlocks::SendOffset(int from, int to) const {
  return from == rank_ ? send_offsets_[to] : 0;
}

uint64_t RankVBlocks::RecvOffset(int to, int from) const {
  return to == rank_ ? recv_offsets_[from] : 0;
}

}  // namespace weft::sched
