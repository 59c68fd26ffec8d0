// Recursive-doubling prefix reduction (scan and exscan), as in MPICH's scan: in round k a rank
// swaps with rank ^ 2^k the reduction of the aligned block of 2^k ranks it has covered so far
// (its "total"). A total from a lower block is folded in on the left, into both the total and
// the result; one from a higher block only into the total on the right. Rank order is kept, so
// non-commutative ops are exact, and a partner past P is skipped, so any P works: the aligned
// blocks are cut at P, and a rank's block then simply has no upper half that round.
// ceil(log2 P) rounds of one message each way, the last one way only (no total is needed after
// it); every rank reduces its whole vector each round. Across nodes it is the scans' schedule;
// on one node oneshot takes them up to OneShotMaxBytes (compile.cc says what was measured).
// Exscan's result starts at the first lower total (the round of the rank's lowest set bit);
// rank 0 receives none and its receive buffer is left as it was.
#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class ScanDoublingGen final : public Generator {
 public:
  const char* name() const override { return "doubling"; }
  const char* summary() const override {
    return "recursive-doubling scan and exscan over point-to-point messages; no factors";
  }
  bool Serves(Coll c) const override { return IsScan(c); }
  bool OrderPreserving() const override { return true; }
  int MinRounds(const CollSpec& spec) const override {
    int rounds = 0;
    while ((1 << rounds) < spec.nranks) ++rounds;
    return rounds;
  }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv&) const override {
    return f.empty() ? "" : "doubling takes no factors";
  }
};

ir::Program ScanDoublingGen::Generate(const CollSpec& spec, const std::vector<int>&,
                                      int rank) const {
  Builder b(spec, rank);
  const int P = spec.nranks;
  const uint64_t blk = spec.count * ElemBytes(spec);
  const bool exclusive = spec.coll == Coll::kExScan;
  if (P == 1) {
    if (!exclusive && !spec.in_place) b.Copy(RecvAt(0), SendAt(0), blk);
    return b.Take();
  }
  // The running total and the result are read where they lie until something must be written:
  // the total is the input until a partner's total is folded in (then scratch), a scan's result
  // is the input until a lower total is folded in (then the receive buffer), and an exscan's
  // first lower total is received straight into the receive buffer. In place the input is the
  // receive buffer, which the result overwrites, so the total is copied aside first. At 2 ranks
  // (not in place) that is one message and no copy for exscan, one reduction for scan, as
  // MPI's linear scan does (copying the total first cost 0.53x native at 2 MiB).
  const ir::Ref incoming = ScratchAt(blk);
  ir::Ref total = SendAt(0);
  if (spec.in_place) {
    total = ScratchAt(0);
    b.NeedScratch(blk);
    b.Copy(total, SendAt(0), blk);
  }
  ir::Ref result = spec.in_place ? RecvAt(0) : SendAt(0);  // a scan's result so far
  bool have_result = !exclusive;  // exscan: whether the receive buffer holds a result yet
  auto fold_total = [&](const std::vector<ir::Ref>& srcs) {
    const ir::Ref to = ScratchAt(0);
    b.NeedScratch(blk);
    b.Reduce(to, srcs, blk);
    total = to;
  };
  for (int mask = 1; mask < P; mask <<= 1) {
    const int partner = rank ^ mask;
    if (partner >= P) continue;
    // In the last round no total is needed afterwards, so only the lower rank's goes (to the
    // upper, for its result): at 2 ranks one message, as a linear scan sends.
    const bool last = (mask << 1) >= P;
    if (!last || partner > rank) b.Send(partner, total, blk);
    if (partner < rank) {
      const bool direct = !have_result;  // an exscan's first lower total is its result
      const ir::Ref in = direct ? RecvAt(0) : incoming;
      if (!direct) b.NeedScratch(2 * blk);
      b.Recv(partner, in, blk);
      b.WaitAll();
      if (!direct) b.Reduce(RecvAt(0), {incoming, result}, blk);
      result = RecvAt(0);
      have_result = true;
      if (!last) fold_total({in, total});
    } else if (!last) {
      b.NeedScratch(2 * blk);
      b.Recv(partner, incoming, blk);
      b.WaitAll();
      fold_total({total, incoming});
    }
  }
  // A scan's result that is still its input.
  if (!exclusive && !(result == RecvAt(0))) b.Copy(RecvAt(0), result, blk);
  b.WaitAll();
  return b.Take();
}

}  // namespace

const Generator& ScanDoubling() {
  static const ScanDoublingGen g;
  return g;
}

}  // namespace weft::sched
