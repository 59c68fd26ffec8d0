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
  // Scratch: the running total, then the partner's total as it arrives. The total is a copy of
  // the input, so an in-place call may overwrite its buffer with the result from round one.
  const ir::Ref total = ScratchAt(0), incoming = ScratchAt(blk);
  b.NeedScratch(2 * blk);
  b.Copy(total, SendAt(0), blk);
  bool have_result = false;  // exscan: whether the receive buffer holds a result yet
  if (!exclusive) {
    if (!spec.in_place) b.Copy(RecvAt(0), SendAt(0), blk);
    have_result = true;
  }
  for (int mask = 1; mask < P; mask <<= 1) {
    const int partner = rank ^ mask;
    if (partner >= P) continue;
    // In the last round no total is needed afterwards, so only the lower rank's goes (to the
    // upper, for its result): at 2 ranks one message, as a linear scan sends.
    const bool last = (mask << 1) >= P;
    if (!last || partner > rank) b.Send(partner, total, blk);
    if (!last || partner < rank) b.Recv(partner, incoming, blk);
    b.WaitAll();
    if (partner < rank) {
      if (have_result) {
        b.Reduce(RecvAt(0), {incoming, RecvAt(0)}, blk);
      } else {
        b.Copy(RecvAt(0), incoming, blk);
        have_result = true;
      }
      if (!last) b.Reduce(total, {incoming, total}, blk);
    } else if (!last) {
      b.Reduce(total, {total, incoming}, blk);
    }
  }
  return b.Take();
}

}  // namespace

const Generator& ScanDoubling() {
  static const ScanDoublingGen g;
  return g;
}

}  // namespace weft::sched
