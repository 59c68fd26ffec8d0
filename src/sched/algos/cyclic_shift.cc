// Cyclic shift (Bruck / dissemination), radix k: ceil(log_k P) steps whatever P is, the
// latency-optimal form for small blocks. Data lives rotated in scratch, position i holding
// block (rank + i) mod P.
//   allgather: with `have` blocks gathered, rank r receives positions [j*have, j*have + c)
//     from rank r + j*have (j = 1..k-1) and sends its first c positions to r - j*have.
//   reduce_scatter: the same exchanges backwards; rank r sends positions [j*h, j*h + c) to
//     r + j*h, which combines them into its first c positions. Partial results from different
//     ranks meet in varying order, so the op must be commutative.
// Factor: one positive radix (default 2).
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

int RadixOf(const std::vector<int>& f) { return f.empty() ? 2 : f[0]; }

// Blocks gathered before each allgather step: 1, k, k^2, ... (below P).
std::vector<int> Haves(int P, int k) {
  std::vector<int> h;
  for (long long have = 1; have < P; have *= k) h.push_back(static_cast<int>(have));
  return h;
}

class CyclicShiftGen final : public Generator {
 public:
  const char* name() const override { return "shift"; }
  const char* summary() const override {
    return "cyclic shift (Bruck/dissemination), log_k P steps; factor: radix k (default 2)";
  }
  bool Serves(Coll c) const override { return c == Coll::kAllGather || c == Coll::kReduceScatter; }
  std::vector<int> DefaultFactors(const CollSpec&) const override { return {2}; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv&) const override {
    if (f.size() > 1 || (f.size() == 1 && f[0] < 2)) return "shift takes one radix >= 2";
    return "";
  }
};

ir::Program CyclicShiftGen::Generate(const CollSpec& spec, const std::vector<int>& factors,
                                     int rank) const {
  Builder b(spec, rank);
  const int P = spec.nranks, k = RadixOf(factors);
  const uint64_t blk = spec.count * ElemBytes(spec);
  auto pos = [&](int i) { return ScratchAt(i * blk); };
  auto mod = [P](long long x) { return static_cast<int>(((x % P) + P) % P); };
  const std::vector<int> haves = Haves(P, k);
  const uint64_t slot = P * blk;  // receive slots after the P rotated positions

  if (spec.coll == Coll::kAllGather) {
    b.NeedScratch(P * blk);
    b.Copy(pos(0), SendAt(0), blk);
    for (int have : haves) {
      for (int j = 1; j < k; ++j) {
        const long long c = std::min<long long>(have, P - static_cast<long long>(j) * have);
        if (c <= 0) break;
        b.Send(mod(rank - static_cast<long long>(j) * have), pos(0), c * blk);
        b.Recv(mod(rank + static_cast<long long>(j) * have), pos(j * have), c * blk);
      }
      b.WaitAll();
    }
    // Unrotate: position i is block rank + i.
    b.Copy(RecvAt(rank * blk), pos(0), (P - rank) * blk);
    b.Copy(RecvAt(0), pos(P - rank), rank * blk);
    return b.Take();
  }

  // reduce_scatter
  b.Copy(pos(0), SendAt(rank * blk), (P - rank) * blk);
  b.Copy(pos(P - rank), SendAt(0), rank * blk);
  uint64_t most = 0;
  for (int h : haves) most = std::max<uint64_t>(most, (k - 1) * static_cast<uint64_t>(h) * blk);
  b.NeedScratch(slot + most);
  if (P == 1) b.NeedScratch(blk);
  for (size_t s = haves.size(); s-- > 0;) {
    const int h = haves[s];
    std::vector<long long> counts;
    for (int j = 1; j < k; ++j) {
      const long long c = std::min<long long>(h, P - static_cast<long long>(j) * h);
      if (c <= 0) break;
      counts.push_back(c);
      b.Send(mod(rank + static_cast<long long>(j) * h), pos(j * h), c * blk);
      b.Recv(mod(rank - static_cast<long long>(j) * h), ScratchAt(slot + (j - 1) * h * blk),
             c * blk);
    }
    b.WaitAll();
    for (size_t j = 0; j < counts.size(); ++j) {
      b.Reduce(pos(0), {pos(0), ScratchAt(slot + j * h * blk)}, counts[j] * blk);
    }
  }
  b.Copy(RecvAt(0), pos(0), blk);
  return b.Take();
}

}  // namespace

const Generator& CyclicShift() {
  static const CyclicShiftGen g;
  return g;
}

}  // namespace weft::sched
