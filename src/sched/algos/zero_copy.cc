// Zero copy, for buffers every rank took from weftMemAlloc (mapped in every node peer): the
// peers' buffers are plain memory here, so reductions read them in place. An allreduce splits
// the vector into one piece per rank; each rank reduces its piece straight from all the send
// buffers into its own receive buffer, then copies the other pieces out of their owners'
// receive buffers. Each input byte is read once and each output byte written once plus one
// copy per rank: nothing passes through a shared segment. reduce_scatter stops after the
// reduction; reduce writes each piece into the root's receive buffer. A first signal says "my
// buffers are published" (BeginExecution), a second "my piece is reduced", and the call ends
// when every rank has finished touching its peers' buffers (counter 0), since they are the
// user's again once it returns. Allgather, bcast and alltoall are the single-copy programs
// (single_copy.cc), whose copies the transport now makes with memcpy instead of CMA.
// In place is safe: a rank writes only its own piece before the second signal, and reads a
// peer's piece only after the peer's.
#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class ZeroCopyGen final : public Generator {
 public:
  const char* name() const override { return "zerocopy"; }
  const char* summary() const override {
    return "zero copy: reduce and copy straight between weftMemAlloc buffers mapped in every "
           "peer; no factors; one node";
  }
  // Not the scans: in place, a rank's result overwrites the input its higher peers read.
  bool Serves(Coll c) const override { return !IsScan(c); }
  bool OrderPreserving() const override { return true; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec& spec, const std::vector<int>& f,
                           const GenEnv& env) const override {
    if (!env.shared_memory) return "zerocopy needs every rank on one node";
    if (!env.zero_copy) return "zerocopy needs every rank's buffers from weftMemAlloc";
    return f.empty() ? "" : "zerocopy takes no factors";
  }
};

ir::Program ZeroCopyGen::Generate(const CollSpec& spec, const std::vector<int>&, int rank) const {
  // One step, without a waitall: as the node level of a hierarchical allreduce, chunk c's
  // node parts then run beside chunk c - 1's network rounds ([zerocopy/NET]@SIZE).
  if (!Reduces(spec.coll)) {
    ir::Program p = SingleCopy().Generate(spec, {}, rank);
    p.steps = 1;  // every instruction is step 0 already
    return p;
  }
  Builder b(spec, rank);
  b.SetStep(0);
  const int P = spec.nranks;
  const uint64_t es = ElemBytes(spec);
  const uint64_t blk = spec.count * es;
  b.WaitPeers(0, 0);  // the rule of every shared-memory program (shm_segment.h)
  b.Signal(1);        // this execution's buffers are published (BeginExecution)
  b.WaitPeers(1, 1);
  std::vector<ir::Ref> srcs(P);
  // Operand q of the elements at byte offset o of every rank's input.
  auto inputs = [&](uint64_t o) {
    for (int q = 0; q < P; ++q) srcs[q] = q == rank ? SendAt(o) : PeerSendAt(q, o);
    return srcs;
  };
  if (spec.coll == Coll::kReduceScatter) {
    b.Reduce(RecvAt(0), inputs(rank * blk), blk);
  } else {
    const std::vector<uint64_t> cut = SplitElems(spec.count, P, es);
    const uint64_t lo = cut[rank] * es, len = (cut[rank + 1] - cut[rank]) * es;
    if (spec.coll == Coll::kAllReduce) {
      b.Reduce(RecvAt(lo), inputs(lo), len);
      b.Signal(2);  // my piece is final
      b.WaitPeers(2, 1);
      for (int q = 0; q < P; ++q) {
        if (q == rank) continue;
        const uint64_t qlo = cut[q] * es;
        b.Copy(RecvAt(qlo), PeerRecvAt(q, qlo), (cut[q + 1] - cut[q]) * es);
      }
    } else {  // reduce: every rank writes its piece into the root's receive buffer
      b.Reduce(rank == spec.root ? RecvAt(lo) : PeerRecvAt(spec.root, lo), inputs(lo), len);
    }
  }
  b.Signal(0);        // done with the peers' buffers
  b.WaitPeers(0, 1);  // and they with mine: the caller may reuse its buffers
  return b.Take();
}

}  // namespace

const Generator& ZeroCopy() {
  static const ZeroCopyGen g;
  return g;
}

}  // namespace weft::sched
