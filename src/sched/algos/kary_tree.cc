// k-nomial tree reduce and broadcast, root anywhere; allreduce = reduce to rank 0 + broadcast.
// Whole vectors travel (pipelining comes from the chunking pass), so the depth is
// ceil(log_k P) latencies. A reduce combines each rank's own data with its children's subtree
// results in increasing relative rank: every subtree covers consecutive relative ranks, so
// the reduction is in rank order when the tree is rooted at rank 0. Non-commutative reduces
// at another root therefore build the tree at 0 and add one hop to the root.
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
    return "k-nomial tree reduce / broadcast (allreduce: both); factor: radix k (default 2)";
  }
  bool Serves(Coll c) const override {
    return c == Coll::kReduce || c == Coll::kBroadcast || c == Coll::kAllReduce;
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
