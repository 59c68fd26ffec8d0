// Pairwise exchange alltoall: at step i rank r sends block r + i to rank r + i and receives
// block r - i from rank r - i, so every pair meets once and no rank is hit by two at a time.
// Factor: how many steps share one round (default 4: enough to overlap latencies without
// flooding a receiver). In place, the send blocks are first copied to scratch.
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class PairwiseGen final : public Generator {
 public:
  const char* name() const override { return "pairwise"; }
  const char* summary() const override {
    return "pairwise exchange alltoall; factor: steps per round (default 4)";
  }
  bool Serves(Coll c) const override { return c == Coll::kAllToAll; }
  std::vector<int> DefaultFactors(const CollSpec&) const override { return {4}; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override {
    Builder b(spec, rank);
    const int P = spec.nranks, w = factors.empty() ? 4 : factors[0];
    const uint64_t blk = spec.count * ElemBytes(spec);
    ir::Ref src = SendAt(0);
    if (spec.in_place) {
      b.NeedScratch(P * blk);
      b.Copy(ScratchAt(0), SendAt(0), P * blk);
      src = ScratchAt(0);
    }
    b.Copy(RecvAt(rank * blk), Plus(src, rank * blk), blk);
    for (int s = 1; s < P; s += w) {
      for (int i = s; i < std::min(s + w, P); ++i) {
        const int to = (rank + i) % P, from = (rank - i + P) % P;
        b.Send(to, Plus(src, to * blk), blk);
        b.Recv(from, RecvAt(from * blk), blk);
      }
      b.WaitAll();
    }
    return b.Take();
  }

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv&) const override {
    if (f.size() > 1 || (f.size() == 1 && f[0] < 1)) return "pairwise takes one count >= 1";
    return "";
  }
};

}  // namespace

const Generator& PairwiseAllToAll() {
  static const PairwiseGen g;
  return g;
}

}  // namespace weft::sched
