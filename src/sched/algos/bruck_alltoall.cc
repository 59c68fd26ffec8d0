// Bruck alltoall: ceil(log2 P) rounds instead of P - 1, each moving about half the data, for
// small blocks where latency dominates. Blocks are rotated so position i holds the block for
// rank r + i; in the round of bit d, the positions with that bit set go to rank r + d (packed
// into one message) and the same positions arrive from r - d. At the end position i holds the
// block from rank r - i.
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class BruckGen final : public Generator {
 public:
  const char* name() const override { return "bruck"; }
  const char* summary() const override { return "Bruck alltoall, log2 P rounds; no factors"; }
  bool Serves(Coll c) const override { return c == Coll::kAllToAll; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv&) const override {
    return f.empty() || (f.size() == 1 && f[0] == 2) ? "" : "bruck is radix 2 only";
  }
};

ir::Program BruckGen::Generate(const CollSpec& spec, const std::vector<int>&, int rank) const {
  Builder b(spec, rank);
  const int P = spec.nranks;
  const uint64_t blk = spec.count * ElemBytes(spec);
  int most = 0;  // the largest number of positions one round moves
  for (int d = 1; d < P; d *= 2) {
    int moved = 0;
    for (int i = d; i < P; i += 2 * d) moved += std::min(d, P - i);
    most = std::max(most, moved);
  }
  const uint64_t pack = P * blk, unpack = pack + most * blk;
  b.NeedScratch(unpack + most * blk);
  auto T = [&](int i) { return ScratchAt(i * blk); };
  b.Copy(T(0), SendAt(rank * blk), (P - rank) * blk);
  b.Copy(T(P - rank), SendAt(0), rank * blk);
  for (int d = 1; d < P; d *= 2) {
    // Positions with bit d set come in runs of d: copy run by run.
    int moved = 0;
    for (int i = d; i < P; i += 2 * d) {
      const int run = std::min(d, P - i);
      b.Copy(ScratchAt(pack + moved * blk), T(i), run * blk);
      moved += run;
    }
    b.Send((rank + d) % P, ScratchAt(pack), moved * blk);
    b.Recv((rank - d + P) % P, ScratchAt(unpack), moved * blk);
    b.WaitAll();
    moved = 0;
    for (int i = d; i < P; i += 2 * d) {
      const int run = std::min(d, P - i);
      b.Copy(T(i), ScratchAt(unpack + moved * blk), run * blk);
      moved += run;
    }
  }
  for (int i = 0; i < P; ++i) b.Copy(RecvAt(((rank - i + P) % P) * blk), T(i), blk);
  return b.Take();
}

}  // namespace

const Generator& BruckAllToAll() {
  static const BruckGen g;
  return g;
}

}  // namespace weft::sched
