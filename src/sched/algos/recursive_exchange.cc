// Recursive exchange: the multi-radix butterfly, driven by a signed factor set. Negative
// factors are reduce_scatter radices in the order they run; each is mirrored by an equal
// positive factor, the allgather that undoes it (run in reverse); positive factors without a
// negative partner are full-vector exchanges (recursive doubling, radix k) between the two.
// "-4,-2,2,4": reduce_scatter radix 4 then 2, allgather radix 2 then 4. "2,2,2": recursive
// doubling. reduce_scatter runs the negative factors of a set, allgather the positive ones.
//
// Group sizes that are not the product C of the radices are folded (no factors: C = 1, every
// rank folds onto rank 0): the P ranks form C
// contiguous groups whose lowest rank leads; members hand their data to the leader before the
// butterfly and receive the result after it. Pieces follow whole 64-byte lines where that keeps
// them near even (SplitForMessages), elements otherwise. Digits run lowest first (stride 1 first)
// so partial results always cover consecutive ranks: the reduction happens in rank order and the
// generator serves non-commutative ops; the owner of each piece is the only rank reducing it, so
// every rank ends bitwise identical. reduce_scatter with a commutative op runs the highest digit
// first instead, which leaves block r at rank r without a final permutation.
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched {
namespace {

// The factor set read for one collective.
struct Steps {
  std::vector<int> split;  // reduce_scatter radices (allgather: the reverse of its radices)
  std::vector<int> full;   // full-vector exchange radices
  bool reduce = false;     // runs the split as a reduce_scatter
  bool gather = false;     // runs the split backwards as an allgather
  bool msd_first = false;  // highest digit first
  int leaders = 1;         // product of every radix
};

std::string ReadSteps(const CollSpec& spec, const std::vector<int>& factors, Steps* st) {
  std::vector<int> neg, pos;
  for (int f : factors) {
    if (f == 1 || f == -1) return "factor " + std::to_string(f) + " is not a radix";
    (f < 0 ? neg : pos).push_back(f < 0 ? -f : f);
  }
  switch (spec.coll) {
    case Coll::kReduceScatter:  // the reduce_scatter half of the set
      st->split = neg;
      st->reduce = true;
      st->msd_first = Commutative(spec.op);
      break;
    case Coll::kAllGather:  // the allgather half of the set
      st->split.assign(pos.rbegin(), pos.rend());
      st->gather = true;
      st->msd_first = true;
      break;
    case Coll::kAllReduce: {
      std::vector<int> unmatched = neg;
      for (int f : pos) {
        auto it = std::find(unmatched.begin(), unmatched.end(), f);
        if (it != unmatched.end()) {
          unmatched.erase(it);
        } else {
          st->full.push_back(f);
        }
      }
      if (!unmatched.empty()) {
        return "reduce_scatter radix " + std::to_string(unmatched[0]) +
               " has no allgather radix to undo it";
      }
      st->split = neg;
      st->reduce = st->gather = true;
      break;
    }
    default:
      return "recursive exchange serves allreduce, reduce_scatter and allgather";
  }
  long long c = 1;
  for (int f : st->split) c *= f;
  for (int f : st->full) c = std::min<long long>(c * f, 1LL << 40);
  if (c > spec.nranks) {
    return "factors multiply to " + std::to_string(c) + ", more than the " +
           std::to_string(spec.nranks) + " ranks";
  }
  st->leaders = static_cast<int>(c);
  return "";
}

class RecursiveExchangeGen final : public Generator {
 public:
  const char* name() const override { return "rexch"; }
  const char* summary() const override {
    return "multi-radix butterfly; factors: -k reduce_scatter radix, +k allgather radix or, "
           "unmatched, full-vector exchange";
  }
  bool Serves(Coll c) const override {
    return c == Coll::kAllReduce || c == Coll::kReduceScatter || c == Coll::kAllGather;
  }
  bool OrderPreserving() const override { return true; }
  bool Pipelinable() const override { return true; }

  std::vector<int> DefaultFactors(const CollSpec& spec) const override {
    const std::vector<int> radices = patterns::RadicesUpTo(spec.nranks, 4);
    std::vector<int> f;
    if (spec.coll != Coll::kAllGather) {
      for (int r : radices) f.push_back(-r);
    }
    if (spec.coll != Coll::kReduceScatter) f.insert(f.end(), radices.rbegin(), radices.rend());
    return f;
  }

  uint64_t ScaleUnit(const CollSpec& spec, const std::vector<int>& factors) const override {
    if (spec.coll != Coll::kAllReduce) return 1;
    Steps st;
    ReadSteps(spec, factors, &st);
    return patterns::RadixProduct(st.split) * LineElems(ElemBytes(spec));
  }

  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec& spec, const std::vector<int>& factors,
                           const GenEnv&) const override {
    Steps st;
    return ReadSteps(spec, factors, &st);
  }
};

// Digit strides of the split and full steps, in the order they run.
std::vector<int> Strides(const Steps& st) {
  std::vector<int> radix = st.split;
  radix.insert(radix.end(), st.full.begin(), st.full.end());
  std::vector<int> stride(radix.size());
  int s = 1;
  if (st.msd_first) {
    for (size_t i = radix.size(); i-- > 0;) stride[i] = s, s *= radix[i];
  } else {
    for (size_t i = 0; i < radix.size(); ++i) stride[i] = s, s *= radix[i];
  }
  return stride;
}

// The other digits of a step's group in the order this rank exchanges with them: d + 1, d + 2,
// ... around the group, so that in each round of posts the members' messages go to different
// peers. In digit order every member sent to digit 0 first and to the last digit last; across
// nodes, where a step's group is one rank per node, node 0's link then took every node's first
// messages and the last node's link their last, so node 0's ranks had all their pieces while
// the last node's still waited (weft-sim, zerocopy/rexch:-32,32 at 32 x 64 and 64 KiB: 32.9 us
// in digit order, 28.4 around the group).
std::vector<int> ExchangeOrder(int r, int d) {
  std::vector<int> order;
  for (int t = 1; t < r; ++t) order.push_back((d + t) % r);
  return order;
}

// The scratch slot of digit j's incoming piece (d: this rank's digit, which has none).
int Slot(int j, int d) { return j < d ? j : j - 1; }

ir::Program RecursiveExchangeGen::Generate(const CollSpec& spec, const std::vector<int>& factors,
                                           int rank) const {
  Steps st;
  ReadSteps(spec, factors, &st);
  Builder b(spec, rank);
  const int P = spec.nranks;
  const uint64_t es = ElemBytes(spec), n = spec.count;
  const bool allgather = spec.coll == Coll::kAllGather;
  const bool reduce_scatter = spec.coll == Coll::kReduceScatter;
  const uint64_t vec = (spec.coll == Coll::kAllReduce ? n : n * P) * es;  // whole vector
  const int nseg = patterns::RadixProduct(st.split);
  const FoldGroups fold{P, st.leaders};
  const int group = fold.GroupOf(rank), leader = fold.First(group);

  // Pieces: allreduce splits the vector evenly; the block collectives keep each fold group's
  // blocks together (nseg == leaders there).
  std::vector<uint64_t> seg(nseg + 1);
  if (spec.coll == Coll::kAllReduce) {
    seg = SplitForMessages(n, nseg, es);
  } else {
    for (int k = 0; k <= nseg; ++k) seg[k] = static_cast<uint64_t>(fold.First(k)) * n;
  }
  const ir::Ref W = reduce_scatter ? ScratchAt(0) : RecvAt(0);  // where results build up
  const uint64_t slots = reduce_scatter ? vec : 0;              // scratch receive slots
  if (reduce_scatter) b.NeedScratch(vec);
  bool in_w = false;  // whether W (rather than send) holds this rank's current data
  auto cur = [&](uint64_t elem) { return Plus(in_w ? W : SendAt(0), elem * es); };

  // Steps, alike on every rank: fold in (step 0 where ranks fold), then one per split, full and
  // allgather step, then the hand-out of results.
  const int ns = static_cast<int>(st.split.size()), nf = static_cast<int>(st.full.size());
  // Without folding (every rank leads) the fold steps are empty on every rank and take no
  // number: chunked, an empty step would still take a round of the pipeline, in which the next
  // chunk's node level ran before this chunk's first messages ([zerocopy/rexch:-32,32]@32K).
  const int f = st.leaders == P ? 0 : 1;
  b.SetStep(0);
  // Fold in.
  if (rank != leader) {
    b.Send(leader, SendAt(0), allgather ? n * es : vec);
    b.WaitAll();
  } else if (allgather) {
    b.Copy(RecvAt(rank * n * es), SendAt(0), n * es);
    for (int q = rank + 1; q < fold.First(group + 1); ++q) b.Recv(q, RecvAt(q * n * es), n * es);
    b.WaitAll();
  } else if (fold.Size(group) > 1) {
    std::vector<ir::Ref> srcs = {SendAt(0)};
    for (int q = rank + 1; q < fold.First(group + 1); ++q) {
      srcs.push_back(ScratchAt(slots + (q - rank - 1) * vec));
      b.Recv(q, srcs.back(), vec);
    }
    b.NeedScratch(slots + (srcs.size() - 1) * vec);
    b.WaitAll();
    b.Reduce(W, srcs, vec);
    in_w = true;
  }

  const std::vector<int> stride = Strides(st);
  const int L = group;  // this leader's index in the butterfly
  auto digit = [&](size_t i, int radix) { return (L / stride[i]) % radix; };
  auto member = [&](size_t i, int d, int j) { return fold.First(L + (j - d) * stride[i]); };
  std::vector<std::pair<int, int>> ranges;  // (first piece, pieces) before each split step
  int lo = 0, m = nseg;
  if (rank == leader) {
    for (size_t i = 0; i < st.split.size(); ++i) {
      const int r = st.split[i], d = digit(i, r), part = m / r;
      b.SetStep(f + static_cast<int>(i));
      ranges.emplace_back(lo, m);
      if (st.reduce) {
        const uint64_t mine = seg[lo + (d + 1) * part] - seg[lo + d * part];
        std::vector<ir::Ref> srcs(r);  // in digit order: the reduction keeps rank order
        srcs[d] = cur(seg[lo + d * part]);
        for (int j : ExchangeOrder(r, d)) {
          const uint64_t a = seg[lo + j * part], z = seg[lo + (j + 1) * part];
          b.Send(member(i, d, j), cur(a), (z - a) * es);
          srcs[j] = ScratchAt(slots + Slot(j, d) * mine * es);
          b.Recv(member(i, d, j), srcs[j], mine * es);
        }
        b.NeedScratch(slots + (r - 1) * mine * es);
        b.WaitAll();
        b.Reduce(Plus(W, seg[lo + d * part] * es), srcs, mine * es);
        in_w = true;
      }
      lo += d * part;
      m = part;
    }
    for (size_t i = 0; i < st.full.size(); ++i) {
      const size_t si = st.split.size() + i;
      const int r = st.full[i], d = digit(si, r);
      b.SetStep(f + ns + static_cast<int>(i));
      const uint64_t a = seg[lo], len = (seg[lo + m] - a) * es;
      std::vector<ir::Ref> srcs(r);
      srcs[d] = cur(a);
      for (int j : ExchangeOrder(r, d)) {
        b.Send(member(si, d, j), cur(a), len);
        srcs[j] = ScratchAt(slots + Slot(j, d) * len);
        b.Recv(member(si, d, j), srcs[j], len);
      }
      b.NeedScratch(slots + (r - 1) * len);
      b.WaitAll();
      b.Reduce(Plus(W, a * es), srcs, len);
      in_w = true;
    }
    if (st.reduce && !in_w) b.Copy(W, SendAt(0), vec);  // one rank: nothing to combine
    for (size_t i = st.split.size(); i-- > 0 && st.gather;) {
      const int r = st.split[i], d = digit(i, r);
      b.SetStep(f + ns + nf + (ns - 1 - static_cast<int>(i)));
      const int first = ranges[i].first, part = ranges[i].second / r;
      const uint64_t a = seg[first + d * part], z = seg[first + (d + 1) * part];
      for (int j : ExchangeOrder(r, d)) {
        const uint64_t ja = seg[first + j * part], jz = seg[first + (j + 1) * part];
        b.Send(member(i, d, j), Plus(W, a * es), (z - a) * es);
        b.Recv(member(i, d, j), Plus(W, ja * es), (jz - ja) * es);
      }
      b.WaitAll();
    }
  }

  b.SetStep(f + 2 * ns + nf);
  if (reduce_scatter) {
    // The leader holding piece `lo` hands each rank of fold group `lo` its block; every rank
    // receives its own block from the leader of its group's piece.
    if (rank == leader) {
      for (int q = fold.First(lo); q < fold.First(lo + 1); ++q) {
        if (q == rank) {
          b.Copy(RecvAt(0), Plus(W, q * n * es), n * es);
        } else {
          b.Send(q, Plus(W, q * n * es), n * es);
        }
      }
    }
    // The leader whose digits spell this rank's group as a piece index.
    int owner = 0, rest = nseg;
    for (size_t i = 0; i < st.split.size(); ++i) {
      rest /= st.split[i];
      owner += (group / rest) % st.split[i] * stride[i];
    }
    if (fold.First(owner) != rank) b.Recv(fold.First(owner), RecvAt(0), n * es);
    b.WaitAll();
  } else if (rank == leader) {
    for (int q = rank + 1; q < fold.First(group + 1); ++q) b.Send(q, W, vec);
    b.WaitAll();
  } else {
    b.Recv(leader, RecvAt(0), vec);
    b.WaitAll();
  }
  return b.Take();
}

}  // namespace

const Generator& RecursiveExchange() {
  static const RecursiveExchangeGen g;
  return g;
}

}  // namespace weft::sched
