// Cyclic copy-in reduction, the shared-memory form: every rank copies its input into its slot
// of the node's segment, reduces its own piece across all slots in rank order (so it serves
// non-commutative ops), and the pieces are gathered from the slots. Node counters order the
// phases: counter 0 advances once per phase, and values are relative to the start of the
// execution (the transport adds the count of earlier executions). Like every shared-memory
// program, it first waits for the peers' counter 0 (they finished reading the slots) and
// signals it last. Needs every rank on one node.
// Slot layout: [input | results], each the whole vector.
#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class CopyInGen final : public Generator {
 public:
  const char* name() const override { return "copyin"; }
  const char* summary() const override {
    return "shared-memory copy-in reduction in rank order; no factors; one node";
  }
  bool Serves(Coll c) const override {
    return c == Coll::kAllReduce || c == Coll::kReduceScatter || c == Coll::kReduce;
  }
  bool OrderPreserving() const override { return true; }
  uint64_t ScaleUnit(const CollSpec& spec, const std::vector<int>&) const override {
    return spec.coll == Coll::kReduceScatter ? 1 : spec.nranks * LineElems(ElemBytes(spec));
  }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv& env) const override {
    if (!env.shared_memory)
      return "copyin needs its ranks to share a segment (one node, or a node level where every "
             "node has one)";
    return f.empty() ? "" : "copyin takes no factors";
  }
};

ir::Program CopyInGen::Generate(const CollSpec& spec, const std::vector<int>&, int rank) const {
  Builder b(spec, rank);
  const int P = spec.nranks;
  const uint64_t es = ElemBytes(spec);
  const bool rs = spec.coll == Coll::kReduceScatter;
  const uint64_t elems = rs ? spec.count * P : spec.count;
  const uint64_t vec = elems * es;
  std::vector<uint64_t> seg(P + 1);
  if (rs) {
    for (int k = 0; k <= P; ++k) seg[k] = k * spec.count;
  } else {
    seg = SplitElems(elems, P, es);
  }
  b.NeedShm(2 * vec);
  // Peers have finished reading the slots of the previous execution (its last signal), which
  // may have been another shared-memory program.
  b.WaitPeers(0, 0);
  b.Copy(ShmAt(rank, 0), SendAt(0), vec);
  b.Signal(0);
  b.WaitPeers(0, 1);
  const uint64_t a = seg[rank] * es, len = (seg[rank + 1] - seg[rank]) * es;
  std::vector<ir::Ref> srcs;
  for (int q = 0; q < P; ++q) srcs.push_back(ShmAt(q, a));
  b.Reduce(rs ? RecvAt(0) : ShmAt(rank, vec + a), srcs, len);
  b.Signal(0);
  if (!rs && (spec.coll == Coll::kAllReduce || rank == spec.root)) {
    b.WaitPeers(0, 2);
    for (int q = 0; q < P; ++q) {
      const uint64_t qa = seg[q] * es;
      b.Copy(RecvAt(qa), ShmAt(q, vec + qa), (seg[q + 1] - seg[q]) * es);
    }
  }
  // Done reading the peers' slots: the next execution (of any shared-memory program) waits
  // for this signal before rewriting a slot.
  b.Signal(0);
  return b.Take();
}

}  // namespace

const Generator& CopyIn() {
  static const CopyInGen g;
  return g;
}

}  // namespace weft::sched
