// Single copy, the data-movement form: every rank copies what it needs straight out of its
// node peers' send buffers (the ir's peer_send space, which the transport reaches with
// process_vm_readv), so each byte moves once, with no pass through a shared segment. The
// buffers' addresses are published at the start of each execution: a first signal says "mine
// are out", and a rank reads a peer's buffer only after that peer's signal. A peer's send
// buffer is the user's again once the call returns, so the call ends with every rank waiting
// until all have finished reading (counter 0). Serves allgather, bcast, alltoall, gather and
// scatter (where only the root waits for, or is waited for by, the others); an
// in-place alltoall would overwrite blocks its peers are still reading, so it gathers into
// scratch and moves the blocks into place after everyone has read. allreduce and
// reduce_scatter are zero copy's programs (zero_copy.cc) with each peer's operand read into
// scratch first: the kernels cannot reduce out of another process's memory. Across nodes that
// makes a node level for the user's own buffers, where zero copy needs weftMemAlloc's.
// Needs every rank on one node and single copy permitted (WEFT_CMA, probed per communicator).
#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class SingleCopyGen final : public Generator {
 public:
  const char* name() const override { return "cma"; }
  const char* summary() const override {
    return "single copy: read the peers' send buffers directly (process_vm_readv); no factors; "
           "one node";
  }
  bool Serves(Coll c) const override {
    return c == Coll::kAllGather || c == Coll::kBroadcast || c == Coll::kAllToAll ||
           c == Coll::kGather || c == Coll::kScatter || c == Coll::kAllReduce ||
           c == Coll::kReduceScatter;
  }
  bool OrderPreserving() const override { return true; }  // every reduce in rank order
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec& spec, const std::vector<int>& f,
                           const GenEnv& env) const override {
    if (!env.shared_memory) return "cma needs every rank on one node";
    if (!env.single_copy) return "single copy is not available (WEFT_CMA=0 or not permitted)";
    return f.empty() ? "" : "cma takes no factors";
  }
};

// Gather and scatter: only the root's buffer is shared, so only the root or its peers read.
// A gather's root reads every peer's block and then releases them; a scatter's peers read
// their block of the root's buffer, which the root keeps until all have.
void EmitRooted(Builder& b) {
  const CollSpec& spec = b.spec();
  const int P = spec.nranks, rank = b.rank(), root = spec.root;
  const uint64_t blk = spec.count * ElemBytes(spec);
  const bool gather = spec.coll == Coll::kGather;
  if (rank == root) {
    if (gather) {
      b.WaitPeers(1, 1);
      for (int q = 0; q < P; ++q) {
        if (q != rank) b.Copy(RecvAt(q * blk), PeerSendAt(q, 0), blk);
      }
    }
    if (!spec.in_place) {
      b.Copy(gather ? RecvAt(rank * blk) : RecvAt(0), gather ? SendAt(0) : SendAt(rank * blk), blk);
    }
    b.Signal(0);
    if (!gather) b.WaitPeers(0, 1);  // every peer has read its block of this send buffer
    return;
  }
  if (!gather) {
    b.Wait(root, 1, 1);
    b.Copy(RecvAt(0), PeerSendAt(root, rank * blk), blk);
  }
  b.Signal(0);
  if (gather) b.Wait(root, 0, 1);  // the root has read this rank's send buffer
}

// allreduce and reduce_scatter: this rank's piece of every peer's input is read into scratch,
// one single copy each, and reduced in rank order with its own; an allreduce then copies the
// other pieces out of their owners' receive buffers once each owner says its piece is final
// (counter 2). In place is safe as in zero copy: a rank writes only its own piece before that
// signal, and the peers read only their pieces of its buffer until then.
void EmitReducing(Builder& b) {
  const CollSpec& spec = b.spec();
  const int P = spec.nranks, rank = b.rank();
  const uint64_t es = ElemBytes(spec);
  const bool scatter = spec.coll == Coll::kReduceScatter;
  const std::vector<uint64_t> cut =
      scatter ? std::vector<uint64_t>{} : SplitElems(spec.count, P, es);
  const uint64_t lo = scatter ? rank * spec.count * es : cut[rank] * es;
  const uint64_t len = scatter ? spec.count * es : (cut[rank + 1] - cut[rank]) * es;
  b.NeedScratch(static_cast<uint64_t>(P - 1) * len);
  std::vector<ir::Ref> srcs(P);
  uint64_t at = 0;
  for (int q = 0; q < P; ++q) {
    if (q == rank) {
      srcs[q] = SendAt(lo);
      continue;
    }
    b.Copy(ScratchAt(at), PeerSendAt(q, lo), len);
    srcs[q] = ScratchAt(at);
    at += len;
  }
  b.Reduce(scatter ? RecvAt(0) : RecvAt(lo), srcs, len);
  if (scatter) return;
  b.Signal(2);  // my piece is final
  b.WaitPeers(2, 1);
  for (int q = 0; q < P; ++q) {
    if (q != rank)
      b.Copy(RecvAt(cut[q] * es), PeerRecvAt(q, cut[q] * es), (cut[q + 1] - cut[q]) * es);
  }
}

ir::Program SingleCopyGen::Generate(const CollSpec& spec, const std::vector<int>&, int rank) const {
  Builder b(spec, rank);
  // One step, as zero copy's: as a node level, chunk c's node parts run beside chunk c - 1's
  // network rounds ([cma/NET]@SIZE).
  b.SetStep(0);
  const int P = spec.nranks;
  const uint64_t blk = spec.count * ElemBytes(spec);
  b.WaitPeers(0, 0);  // the rule of every shared-memory program (shm_segment.h)
  b.Signal(1);        // this execution's buffers are published (BeginExecution)
  if (spec.coll == Coll::kGather || spec.coll == Coll::kScatter) {
    EmitRooted(b);
    return b.Take();
  }
  b.WaitPeers(1, 1);
  switch (spec.coll) {
    case Coll::kAllReduce:
    case Coll::kReduceScatter:
      EmitReducing(b);
      break;
    case Coll::kAllGather:
      for (int q = 0; q < P; ++q) {
        b.Copy(RecvAt(q * blk), q == rank ? SendAt(0) : PeerSendAt(q, 0), blk);
      }
      break;
    case Coll::kBroadcast:
      b.Copy(RecvAt(0), rank == spec.root ? SendAt(0) : PeerSendAt(spec.root, 0), blk);
      break;
    case Coll::kAllToAll:
      if (spec.in_place) b.NeedScratch(P * blk);
      for (int q = 0; q < P; ++q) {
        if (q == rank) {
          b.Copy(RecvAt(q * blk), SendAt(rank * blk), blk);
        } else {
          b.Copy(spec.in_place ? ScratchAt(q * blk) : RecvAt(q * blk), PeerSendAt(q, rank * blk),
                 blk);
        }
      }
      break;
    default:
      break;
  }
  b.Signal(0);        // done reading the peers' buffers
  b.WaitPeers(0, 1);  // and they are done reading mine: the caller may reuse its buffers
  if (spec.coll == Coll::kAllToAll && spec.in_place) {
    for (int q = 0; q < P; ++q) {
      if (q != rank) b.Copy(RecvAt(q * blk), ScratchAt(q * blk), blk);
    }
  }
  return b.Take();
}

}  // namespace

const Generator& SingleCopy() {
  static const SingleCopyGen g;
  return g;
}

}  // namespace weft::sched
