// Ring: reduce_scatter, allgather and allreduce (= the two) in P - 1 steps each, every step
// moving one piece to the next rank. Bandwidth-optimal and latency-heavy; partial sums travel
// around the ring starting at different ranks, so the op must be commutative.
//
// reduce_scatter: at step s rank r sends piece (r - s - 1) mod P and receives piece
// (r - s - 2) mod P, which it combines with its own contribution; after P - 1 steps it holds
// piece r complete. allgather: at step s it forwards piece (r - s) mod P and receives piece
// (r - s - 1) mod P.
#include "sched/patterns/ring.h"

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class RingGen final : public Generator {
 public:
  const char* name() const override { return "ring"; }
  const char* summary() const override { return "ring, P - 1 steps per phase; no factors"; }
  bool Serves(Coll c) const override {
    return c == Coll::kAllReduce || c == Coll::kReduceScatter || c == Coll::kAllGather;
  }
  bool Pipelinable() const override { return true; }
  int MinRounds(const CollSpec& spec) const override {
    return (spec.coll == Coll::kAllReduce ? 2 : 1) * (spec.nranks - 1);
  }
  uint64_t ScaleUnit(const CollSpec& spec, const std::vector<int>&) const override {
    return spec.coll == Coll::kAllReduce ? spec.nranks * LineElems(ElemBytes(spec)) : 1;
  }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& factors,
                           const GenEnv&) const override {
    return factors.empty() ? "" : "ring takes no factors";
  }
};

ir::Program RingGen::Generate(const CollSpec& spec, const std::vector<int>&, int rank) const {
  Builder b(spec, rank);
  const int P = spec.nranks;
  const uint64_t es = ElemBytes(spec), n = spec.count;
  const bool allreduce = spec.coll == Coll::kAllReduce;
  std::vector<uint64_t> seg(P + 1);
  if (allreduce) {
    seg = SplitForMessages(n, P, es);
  } else {
    for (int k = 0; k <= P; ++k) seg[k] = k * n;
  }
  auto bytes = [&](int k) { return (seg[k + 1] - seg[k]) * es; };
  auto at = [&](ir::Ref base, int k) { return Plus(base, seg[k] * es); };
  auto mod = [P](int x) { return ((x % P) + P) % P; };
  const int next = patterns::RingNext(rank, P), prev = patterns::RingPrev(rank, P);
  const bool reduce_scatter = spec.coll == Coll::kReduceScatter;
  const ir::Ref W = reduce_scatter ? ScratchAt(0) : RecvAt(0);

  if (spec.coll != Coll::kAllGather) {
    const uint64_t slot = reduce_scatter ? n * P * es : 0;
    uint64_t most = 0;
    for (int k = 0; k < P; ++k) most = std::max(most, bytes(k));
    b.NeedScratch(slot + most);
    for (int s = 0; s < P - 1; ++s) {
      b.SetStep(s);
      const int out = mod(rank - s - 1), in = mod(rank - s - 2);
      b.Send(next, at(s == 0 ? SendAt(0) : W, out), bytes(out));
      b.Recv(prev, ScratchAt(slot), bytes(in));
      b.WaitAll();
      b.Reduce(at(W, in), {ScratchAt(slot), at(SendAt(0), in)}, bytes(in));
    }
    b.SetStep(P - 1);
    if (P == 1) b.Copy(W, SendAt(0), n * es);
    if (reduce_scatter) b.Copy(RecvAt(0), at(W, rank), n * es);
  } else {
    b.Copy(at(RecvAt(0), rank), SendAt(0), n * es);
  }
  if (spec.coll != Coll::kReduceScatter) {
    for (int s = 0; s < P - 1; ++s) {
      b.SetStep(P - 1 + s);
      const int out = mod(rank - s), in = mod(rank - s - 1);
      b.Send(next, at(W, out), bytes(out));
      b.Recv(prev, at(W, in), bytes(in));
      b.WaitAll();
    }
  }
  return b.Take();
}

}  // namespace

const Generator& Ring() {
  static const RingGen g;
  return g;
}

}  // namespace weft::sched
