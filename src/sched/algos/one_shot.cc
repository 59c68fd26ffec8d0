// One-shot shared memory, the small-message latency path: every rank copies its input into
// its slot of the node segment and signals; once every peer has signalled, each rank builds
// its own result straight from the slots (reducing in rank order, so the op need not
// commute and every rank computes the same bits), then signals again. The program is banked:
// oneshots in a row take the node's latency banks in turn and wait at their start only for
// what bank_placer.h asks (often nothing), so back-to-back calls cost one copy in, one pass out
// and one wait on the inputs they read; after any other program it waits for the peers'
// second signal first. No MPI at all. Every rank
// reads the whole input of its peers it needs, so it suits small and medium messages; the cost
// model keeps it there. Serves every collective (gather and scatter: only the root's side
// copies more than one block; a scan's rank r reduces the first r slots and its own input). Needs
// every rank on one node.
#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

class OneShotGen final : public Generator {
 public:
  const char* name() const override { return "oneshot"; }
  const char* summary() const override {
    return "one-shot shared memory: copy in, everyone reads what it needs; no factors; one node";
  }
  bool Serves(Coll) const override { return true; }
  bool OrderPreserving() const override { return true; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec& spec, const std::vector<int>& f,
                           const GenEnv& env) const override {
    if (!env.shared_memory)
      return "oneshot needs its ranks to share a segment (one node, or a node level where every "
             "node has one)";
    // Every rank reads every peer's input: beyond 64 ranks that is more traffic than a
    // latency path should cost (measured only up to 5 ranks here; a node-level tree is the
    // way past it).
    if (spec.nranks > 64) return "oneshot serves at most 64 ranks";
    return f.empty() ? "" : "oneshot takes no factors";
  }
};

ir::Program OneShotGen::Generate(const CollSpec& spec, const std::vector<int>&, int rank) const {
  Builder b(spec, rank);
  const int P = spec.nranks;
  const uint64_t blk = spec.count * ElemBytes(spec);
  const uint64_t in = SendBytes(spec, spec.root);  // the largest send buffer
  // Data from byte 8: a bank's first 8 bytes are the transport's stamp (shm_segment.h).
  constexpr uint64_t kAt = 8;
  b.NeedShm(kAt + in);
  // Banked: when the previous execution was a oneshot too, this one writes the other bank and
  // its entry wait below asks only that the peers finished the execution before the previous
  // one (shm_segment.h), so back-to-back calls do not synchronise at their start.
  b.program().shm_banked = in > 0;
  // Peers have finished reading this bank's last contents (the transport relaxes the target).
  b.WaitPeers(0, 0);
  // What only this rank reads stays out of its slot: a gather root's own block, which it copies
  // straight to its receive buffer (or finds there, in place), a scan rank's own input (read from
  // its send buffer),
  const bool from_root = spec.coll == Coll::kBroadcast || spec.coll == Coll::kScatter;
  const bool to_root = spec.coll == Coll::kReduce || spec.coll == Coll::kGather;
  // and a scan's last rank, whose input no one else reads.
  const bool scan = IsScan(spec.coll);
  if ((!from_root || rank == spec.root) && !(spec.coll == Coll::kGather && rank == spec.root) &&
      !(scan && rank == P - 1)) {
    b.Copy(ShmAt(rank, kAt), SendAt(0), SendBytes(spec, rank));
  }
  b.Signal(0);
  // Wait only for the inputs this rank reads: a bcast's or scatter's receivers wait for the
  // root, a reduce's or gather's root for everyone, and the root of a bcast or the senders of a
  // reduce for nobody (as an eager MPI send returns before the receiver looks).
  if (from_root) {
    if (rank != spec.root) b.Wait(spec.root, 0, 1);
  } else if (scan) {  // a scan's rank r reads the ranks below it
    for (int q = 0; q < rank; ++q) b.Wait(q, 0, 1);
  } else if (!to_root || rank == spec.root) {
    b.WaitPeers(0, 1);
  }
  std::vector<ir::Ref> all;
  auto slots_at = [&](uint64_t offset) {
    all.clear();
    for (int q = 0; q < P; ++q) all.push_back(ShmAt(q, kAt + offset));
    return all;
  };
  switch (spec.coll) {
    case Coll::kAllReduce:
      b.Reduce(RecvAt(0), slots_at(0), blk);
      break;
    case Coll::kReduce:
      if (rank == spec.root) b.Reduce(RecvAt(0), slots_at(0), blk);
      break;
    case Coll::kReduceScatter:
      b.Reduce(RecvAt(0), slots_at(rank * blk), blk);
      break;
    case Coll::kBroadcast:
      b.Copy(RecvAt(0), ShmAt(spec.root, kAt), blk);
      break;
    case Coll::kAllGather:
      for (int q = 0; q < P; ++q) b.Copy(RecvAt(q * blk), ShmAt(q, kAt), blk);
      break;
    case Coll::kAllToAll:
      for (int q = 0; q < P; ++q) b.Copy(RecvAt(q * blk), ShmAt(q, kAt + rank * blk), blk);
      break;
    case Coll::kGather:
      if (rank != spec.root) break;
      for (int q = 0; q < P; ++q) {
        if (q != rank) {
          b.Copy(RecvAt(q * blk), ShmAt(q, kAt), blk);
        } else if (!spec.in_place) {
          b.Copy(RecvAt(q * blk), SendAt(0), blk);
        }
      }
      break;
    case Coll::kScatter:
      if (rank != spec.root) {
        b.Copy(RecvAt(0), ShmAt(spec.root, kAt + rank * blk), blk);
      } else if (!spec.in_place) {
        b.Copy(RecvAt(0), SendAt(rank * blk), blk);
      }
      break;
    case Coll::kScan:  // the slots of ranks 0..rank - 1 in rank order, then its own input
    case Coll::kExScan: {
      slots_at(0);
      all.resize(rank);
      if (spec.coll == Coll::kScan) all.push_back(SendAt(0));
      if (!all.empty() && !(all.size() == 1 && spec.in_place && spec.coll == Coll::kScan)) {
        b.Reduce(RecvAt(0), all, blk);
      }
      break;
    }
  }
  b.Signal(0);
  return b.Take();
}

}  // namespace

const Generator& OneShot() {
  static const OneShotGen g;
  return g;
}

}  // namespace weft::sched
