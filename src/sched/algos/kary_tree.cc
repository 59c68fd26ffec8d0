// k-nomial tree reduce and broadcast, root anywhere; allreduce = reduce to rank 0 + broadcast.
// Whole vectors travel (pipelining comes from the chunking pass), so the depth is
// ceil(log_k P) latencies. A reduce combines each rank's own data with its children's subtree
// results in increasing relative rank: every subtree covers consecutive relative ranks, so
// the reduction is in rank order when the tree is rooted at rank 0. Non-commutative reduces
// at another root therefore build the tree at 0 and add one hop to the root.
// Gather and scatter move subtrees: a subtree covers consecutive relative ranks, so each edge
// carries one contiguous run of blocks (a binomial gather at k = 2, a linear one at k >= P).
// Factor: one positive radix (default 2).
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"
#include "sched/patterns/knomial.h"

namespace weft::sched {
namespace {

class KaryTreeGen final : public Generator {
 public:
  const char* name() const override { return "tree"; }
  const char* summary() const override {
    return "k-nomial tree reduce / broadcast / gather / scatter (allreduce: reduce + broadcast); "
           "factor: radix k (default 2; k >= P: the root talks to every rank)";
  }
  bool Serves(Coll c) const override {
    return c == Coll::kReduce || c == Coll::kBroadcast || c == Coll::kAllReduce ||
           c == Coll::kGather || c == Coll::kScatter;
  }
  bool OrderPreserving() const override { return true; }
  bool Pipelinable() const override { return true; }
  std::vector<int> DefaultFactors(const CollSpec&) const override { return {2}; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv&) const override {
    if (f.size() > 1 || (f.size() == 1 && f[0] < 2)) return "tree takes one radix >= 2";
    return "";
  }
};

// Tree levels: relative rank v's lowest non-zero base-k digit is at position low(v) (L, the
// depth, for the root); v's children sit at positions below low(v). A reduce moves the
// position-i edges in step i (leaves first); a broadcast in step first + L - 1 - i (root
// first). Both ends of an edge compute the same step, which the chunking pass relies on.
int LowDigit(int v, int k, int depth) {
  if (v == 0) return depth;
  int i = 0;
  while (v % k == 0) v /= k, ++i;
  return i;
}

// Children of relative rank v at digit position i, ascending.
std::vector<int> KidsAt(int v, int i, int k, int P) {
  std::vector<int> out;
  long long step = 1;
  for (int e = 0; e < i; ++e) step *= k;
  for (int j = 1; j < k; ++j) {
    const long long c = v + j * step;
    if (c < P) out.push_back(static_cast<int>(c));
  }
  return out;
}

// Emits the reduce of send over every rank to `root`'s recv, in steps first..first+L (the last
// only for the extra hop of a non-commutative reduce at a root other than 0).
void EmitReduce(Builder& b, int k, int root, int first) {
  const CollSpec& spec = b.spec();
  const int P = spec.nranks, rank = b.rank(), L = patterns::KnomialDepth(P, k);
  const uint64_t vec = spec.count * ElemBytes(spec);
  const int top = Commutative(spec.op) ? root : 0;
  const int v = (rank - top + P) % P, low = LowDigit(v, k, L);
  const bool result_here = rank == top && top == root;
  const ir::Ref W = result_here ? RecvAt(0) : ScratchAt(0);
  const uint64_t slot = result_here ? 0 : vec;
  std::vector<ir::Ref> srcs = {SendAt(0)};
  for (int i = 0; i < low && i < L; ++i) {
    b.SetStep(first + i);
    for (int kid : KidsAt(v, i, k, P)) {
      srcs.push_back(ScratchAt(slot + (srcs.size() - 1) * vec));
      b.Recv((kid + top) % P, srcs.back(), vec);
    }
    b.WaitAll();
  }
  b.NeedScratch(slot + (srcs.size() - 1) * vec);
  ir::Ref acc = SendAt(0);
  if (srcs.size() > 1) {
    b.Reduce(W, srcs, vec);
    acc = W;
  }
  if (rank != top) {
    b.SetStep(first + low);
    b.Send(patterns::KnomialParent(rank, P, k, top), acc, vec);
    b.WaitAll();
  } else if (top != root) {
    b.SetStep(first + L);
    b.Send(root, acc, vec);
    b.WaitAll();
  } else if (srcs.size() == 1) {
    b.Copy(RecvAt(0), SendAt(0), vec);
  }
  if (rank == root && top != root) {
    b.SetStep(first + L);
    b.Recv(top, RecvAt(0), vec);
    b.WaitAll();
  }
}

// Emits the broadcast of recv from root (root's data already in its recv), in steps
// first..first+L-1.
void EmitBroadcast(Builder& b, int k, int root, int first) {
  const CollSpec& spec = b.spec();
  const int P = spec.nranks, rank = b.rank(), L = patterns::KnomialDepth(P, k);
  const uint64_t vec = spec.count * ElemBytes(spec);
  const int v = (rank - root + P) % P, low = LowDigit(v, k, L);
  if (rank != root) {
    b.SetStep(first + L - 1 - low);
    b.Recv(patterns::KnomialParent(rank, P, k, root), RecvAt(0), vec);
    b.WaitAll();
  }
  for (int i = std::min(low, L) - 1; i >= 0; --i) {
    b.SetStep(first + L - 1 - i);
    for (int kid : KidsAt(v, i, k, P)) b.Send((kid + root) % P, RecvAt(0), vec);
    b.WaitAll();
  }
}

// Relative ranks in v's subtree: k^low(v) from v on, cut at P (all P for the root).
int SubtreeSize(int v, int k, int P) {
  if (v == 0) return P;
  long long n = 1;
  for (int u = v; u % k == 0; u /= k) n *= k;
  return static_cast<int>(std::min<long long>(n, P - v));
}

// A run of `n` blocks of relative ranks from relative rank c, in a buffer in absolute rank order
// (rank = relative + root mod P): one piece, or two where the run wraps past rank P - 1.
struct Run {
  uint64_t first_at, first_bytes, second_bytes;  // absolute offset of the first piece; sizes
};
Run AbsoluteRun(int c, int n, int root, int P, uint64_t blk) {
  const int a = (c + root) % P;
  const int head = std::min(n, P - a);
  return {a * blk, head * blk, (n - head) * blk};
}

// Emits the gather of every rank's block to root's recv, leaves first (step i moves the
// position-i edges, as EmitReduce does).
void EmitGather(Builder& b, int k) {
  const CollSpec& spec = b.spec();
  const int P = spec.nranks, rank = b.rank(), root = spec.root;
  const int L = patterns::KnomialDepth(P, k);
  const uint64_t blk = spec.count * ElemBytes(spec);
  const int v = (rank - root + P) % P, low = LowDigit(v, k, L);
  if (v != 0 && low == 0) {  // a leaf sends its block as it is
    b.SetStep(0);
    b.Send(patterns::KnomialParent(rank, P, k, root), SendAt(0), blk);
    b.WaitAll();
    return;
  }
  // An inner rank assembles its subtree's blocks in scratch, its own first; the root receives
  // each child's run straight into place, but a run that wraps past rank P - 1 lands in scratch
  // and is copied out in two pieces.
  if (v != 0) {
    b.NeedScratch(SubtreeSize(v, k, P) * blk);
    b.Copy(ScratchAt(0), SendAt(0), blk);
  } else if (!spec.in_place) {
    b.Copy(RecvAt(rank * blk), SendAt(0), blk);
  }
  Run wrapped{0, 0, 0};
  for (int i = 0; i < low && i < L; ++i) {
    b.SetStep(i);
    for (int c : KidsAt(v, i, k, P)) {
      const int n = SubtreeSize(c, k, P);
      const int peer = (c + root) % P;
      if (v != 0) {
        b.Recv(peer, ScratchAt((c - v) * blk), n * blk);
        continue;
      }
      const Run run = AbsoluteRun(c, n, root, P, blk);
      if (run.second_bytes == 0) {
        b.Recv(peer, RecvAt(run.first_at), n * blk);
      } else {
        wrapped = run;
        b.NeedScratch(n * blk);
        b.Recv(peer, ScratchAt(0), n * blk);
      }
    }
    b.WaitAll();
  }
  if (v != 0) {
    b.SetStep(low);
    b.Send(patterns::KnomialParent(rank, P, k, root), ScratchAt(0), SubtreeSize(v, k, P) * blk);
    b.WaitAll();
  } else if (wrapped.second_bytes != 0) {
    b.Copy(RecvAt(wrapped.first_at), ScratchAt(0), wrapped.first_bytes);
    b.Copy(RecvAt(0), ScratchAt(wrapped.first_bytes), wrapped.second_bytes);
  }
}

// Emits the scatter of root's send to every rank's recv, root first (step L - 1 - i moves the
// position-i edges, as EmitBroadcast does).
void EmitScatter(Builder& b, int k) {
  const CollSpec& spec = b.spec();
  const int P = spec.nranks, rank = b.rank(), root = spec.root;
  const int L = patterns::KnomialDepth(P, k);
  const uint64_t blk = spec.count * ElemBytes(spec);
  const int v = (rank - root + P) % P, low = LowDigit(v, k, L);
  if (v != 0) {
    b.SetStep(L - 1 - low);
    const bool leaf = low == 0;
    const int n = SubtreeSize(v, k, P);
    if (!leaf) b.NeedScratch(n * blk);
    b.Recv(patterns::KnomialParent(rank, P, k, root), leaf ? RecvAt(0) : ScratchAt(0), n * blk);
    b.WaitAll();
    if (leaf) return;
  }
  for (int i = std::min(low, L) - 1; i >= 0; --i) {
    b.SetStep(L - 1 - i);
    for (int c : KidsAt(v, i, k, P)) {
      const int n = SubtreeSize(c, k, P);
      const int peer = (c + root) % P;
      if (v != 0) {
        b.Send(peer, ScratchAt((c - v) * blk), n * blk);
        continue;
      }
      const Run run = AbsoluteRun(c, n, root, P, blk);
      if (run.second_bytes == 0) {
        b.Send(peer, SendAt(run.first_at), n * blk);
      } else {  // the run that wraps is sent from one piece of scratch
        b.NeedScratch(n * blk);
        b.Copy(ScratchAt(0), SendAt(run.first_at), run.first_bytes);
        b.Copy(ScratchAt(run.first_bytes), SendAt(0), run.second_bytes);
        b.Send(peer, ScratchAt(0), n * blk);
      }
    }
    b.WaitAll();
  }
  if (v != 0) {
    b.Copy(RecvAt(0), ScratchAt(0), blk);
  } else if (!spec.in_place) {
    b.Copy(RecvAt(0), SendAt(rank * blk), blk);
  }
}

ir::Program KaryTreeGen::Generate(const CollSpec& spec, const std::vector<int>& factors,
                                  int rank) const {
  Builder b(spec, rank);
  const int k = factors.empty() ? 2 : factors[0];
  const uint64_t vec = spec.count * ElemBytes(spec);
  switch (spec.coll) {
    case Coll::kReduce:
      EmitReduce(b, k, spec.root, 0);
      break;
    case Coll::kBroadcast:
      if (rank == spec.root) b.Copy(RecvAt(0), SendAt(0), vec);
      EmitBroadcast(b, k, spec.root, 0);
      break;
    case Coll::kGather:
      EmitGather(b, k);
      break;
    case Coll::kScatter:
      EmitScatter(b, k);
      break;
    default:  // allreduce
      EmitReduce(b, k, 0, 0);
      EmitBroadcast(b, k, 0, patterns::KnomialDepth(spec.nranks, k) + 1);
      break;
  }
  return b.Take();
}

}  // namespace

const Generator& KaryTree() {
  static const KaryTreeGen g;
  return g;
}

}  // namespace weft::sched
