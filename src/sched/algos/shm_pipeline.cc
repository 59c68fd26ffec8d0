// Pipelined shared memory, the large-message intra-node path. The vector is cut into chunks
// sized to stay in cache (the recipe's @size, default kDefaultChunk); for each chunk:
//   A(s) publish: copy what peers need of chunk s into this rank's slot (buffer s mod 2),
//        signal counter 1;
//   B(s) consume: once every peer has published chunk s, reduce this rank's piece across the
//        slots in rank order (reading its own operand straight from its send buffer) into its
//        slot's result area, or copy the peers' blocks out (allgather, bcast, alltoall);
//        signal counter 2;
//   C(s) collect: once every peer has reduced chunk s, copy their pieces out of their slots.
// Rank order is A(0), then for each s: B(s), A(s + 1), C(s): a rank publishes the next chunk
// before it waits for the peers' results of this one, so a late peer costs one wait, not two.
// Two buffers per slot suffice: A(s + 2) rewrites the buffer of chunk s only after waiting (in
// C(s + 1)) for every peer's counter 2 of chunk s + 1, which each peer advances after it
// finished reading chunk s (its C(s) precedes its B(s + 1)).
// Each execution waits first for every peer's counter 0 and signals it last (after its last
// read of a peer's slot), the rule every shared-memory program keeps (one_shot.cc, copy_in.cc),
// so consecutive programs of any kind never overwrite a slot a peer is still reading.
// Memory traffic per rank is one read of the input and one write of the output; the
// intermediate copies stay in L2 when the chunk is small enough (docs/intra-node.md).
#include <algorithm>

#include "sched/algos/builder.h"
#include "sched/algos/registry.h"

namespace weft::sched {
namespace {

// Bytes a rank publishes per step. 256 KiB at 2 ranks measured best in 64K..1M (see
// docs/intra-node.md): 4 x 256 KiB of slot buffers and the chunk's piece stay in a 2 MiB L2.
constexpr uint64_t kDefaultChunk = 256u << 10;

class ShmPipelineGen final : public Generator {
 public:
  const char* name() const override { return "shmpipe"; }
  const char* summary() const override {
    return "pipelined shared memory: publish, reduce or copy out, collect, chunk by chunk in "
           "cache; no factors; @size is the bytes published per step; one node";
  }
  // Not gather and scatter: their one reader (or writer) would pipeline with itself; oneshot,
  // cma and tree serve them. Not the scans (oneshot and doubling serve them).
  bool Serves(Coll c) const override {
    return c != Coll::kGather && c != Coll::kScatter && !IsScan(c);
  }
  bool OrderPreserving() const override { return true; }
  bool ChunksItself() const override { return true; }
  uint64_t ScaleUnit(const CollSpec&, const std::vector<int>&) const override { return 0; }
  ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                       int rank) const override {
    return GenerateChunked(spec, factors, 0, rank);
  }
  ir::Program GenerateChunked(const CollSpec& spec, const std::vector<int>& factors,
                              uint64_t chunk_bytes, int rank) const override;

 protected:
  std::string DeclineShape(const CollSpec&, const std::vector<int>& f,
                           const GenEnv& env) const override {
    if (!env.shared_memory)
      return "shmpipe needs its ranks to share a segment (one node, or a node level where every "
             "node has one)";
    return f.empty() ? "" : "shmpipe takes no factors";
  }
};

// One rank's program under construction: the chunk windows and the three phases.
class PipeWriter {
 public:
  PipeWriter(const CollSpec& spec, uint64_t chunk_bytes, int rank)
      : spec_(spec), b_(spec, rank), P_(spec.nranks), r_(rank), es_(ElemBytes(spec)) {
    const uint64_t line = LineElems(es_);
    // Block-wise collectives publish a window of every block: a step's window is chunk / P.
    const bool per_block = spec.coll == Coll::kReduceScatter || spec.coll == Coll::kAllToAll;
    const uint64_t budget = std::max<uint64_t>(chunk_bytes, 64) / (per_block ? P_ : 1);
    window_ = std::max<uint64_t>(line, budget / es_ / line * line);
    // A window past the call's data would only size the slots (shmpipe@1G on a 1000-element
    // call made weft-sim map 15 GB): no more than the data, in whole lines.
    if (spec.count > 0) window_ = std::min(window_, (spec.count + line - 1) / line * line);
    steps_ = spec.count == 0 ? 0 : (spec.count + window_ - 1) / window_;
    const uint64_t wbytes = window_ * es_;
    in_bytes_ = per_block ? P_ * wbytes : wbytes;
    out_bytes_ = (spec.coll == Coll::kAllReduce || spec.coll == Coll::kReduce) ? wbytes : 0;
    b_.NeedShm(2 * (in_bytes_ + out_bytes_));
  }

  ir::Program Build() {
    b_.WaitPeers(0, 0);
    if (steps_ > 0) Publish(0);
    for (uint64_t s = 0; s < steps_; ++s) {
      b_.WaitPeers(1, s + 1);
      Consume(s);
      b_.Signal(2);
      if (s + 1 < steps_) Publish(s + 1);
      b_.WaitPeers(2, s + 1);
      Collect(s);
    }
    b_.Signal(0);
    return b_.Take();
  }

 private:
  // Elements [first, first + n) of the step's window.
  uint64_t First(uint64_t s) const { return s * window_; }
  uint64_t Len(uint64_t s) const { return std::min(window_, spec_.count - First(s)); }
  uint64_t Buf(uint64_t s) const { return (s % 2) * (in_bytes_ + out_bytes_); }
  // Rank q's piece of an allreduce/reduce window of n elements: [cut[q], cut[q + 1]).
  std::vector<uint64_t> Cuts(uint64_t n) const { return SplitElems(n, P_, es_); }
  bool Reducing() const { return out_bytes_ > 0; }
  bool Collects() const {
    return spec_.coll == Coll::kAllReduce || (spec_.coll == Coll::kReduce && r_ == spec_.root);
  }

  void Publish(uint64_t s) {
    const uint64_t f = First(s) * es_, n = Len(s) * es_, w = window_ * es_;
    const uint64_t buf = Buf(s);
    switch (spec_.coll) {
      case Coll::kAllReduce:
      case Coll::kReduce: {
        const std::vector<uint64_t> cut = Cuts(Len(s));
        for (int q = 0; q < P_; ++q) {  // the pieces the peers reduce
          if (q == r_) continue;
          b_.Copy(ShmAt(r_, buf + cut[q] * es_), SendAt(f + cut[q] * es_),
                  (cut[q + 1] - cut[q]) * es_);
        }
        break;
      }
      case Coll::kReduceScatter:
      case Coll::kAllToAll: {
        const uint64_t blk = spec_.count * es_;
        for (int q = 0; q < P_; ++q) {
          if (q != r_) b_.Copy(ShmAt(r_, buf + q * w), SendAt(q * blk + f), n);
        }
        break;
      }
      case Coll::kAllGather:
        b_.Copy(ShmAt(r_, buf), SendAt(f), n);
        break;
      case Coll::kBroadcast:
        if (r_ == spec_.root) b_.Copy(ShmAt(r_, buf), SendAt(f), n);
        break;
      case Coll::kGather:
      case Coll::kScatter:
      case Coll::kScan:
      case Coll::kExScan:
        break;  // not served (Serves)
    }
    b_.Signal(1);
  }

  void Consume(uint64_t s) {
    const uint64_t f = First(s) * es_, n = Len(s) * es_, w = window_ * es_;
    const uint64_t buf = Buf(s);
    std::vector<ir::Ref> srcs;
    switch (spec_.coll) {
      case Coll::kAllReduce:
      case Coll::kReduce: {
        const std::vector<uint64_t> cut = Cuts(Len(s));
        const uint64_t a = cut[r_] * es_, len = (cut[r_ + 1] - cut[r_]) * es_;
        for (int q = 0; q < P_; ++q) srcs.push_back(q == r_ ? SendAt(f + a) : ShmAt(q, buf + a));
        // Into the slot's result area (in cache for the peers), then out to the user's buffer.
        const ir::Ref out = ShmAt(r_, buf + in_bytes_ + a);
        b_.Reduce(out, srcs, len);
        if (Collects()) b_.Copy(RecvAt(f + a), out, len);
        break;
      }
      case Coll::kReduceScatter: {
        const uint64_t blk = spec_.count * es_;
        for (int q = 0; q < P_; ++q) {
          srcs.push_back(q == r_ ? SendAt(r_ * blk + f) : ShmAt(q, buf + r_ * w));
        }
        b_.Reduce(RecvAt(f), srcs, n);
        break;
      }
      case Coll::kAllToAll: {
        const uint64_t blk = spec_.count * es_;
        for (int q = 0; q < P_; ++q) {
          const ir::Ref dst = RecvAt(q * blk + f);
          b_.Copy(dst, q == r_ ? SendAt(r_ * blk + f) : ShmAt(q, buf + r_ * w), n);
        }
        break;
      }
      case Coll::kAllGather: {
        const uint64_t blk = spec_.count * es_;
        for (int q = 0; q < P_; ++q) {
          b_.Copy(RecvAt(q * blk + f), q == r_ ? SendAt(f) : ShmAt(q, buf), n);
        }
        break;
      }
      case Coll::kBroadcast:
        b_.Copy(RecvAt(f), r_ == spec_.root ? SendAt(f) : ShmAt(spec_.root, buf), n);
        break;
      case Coll::kGather:
      case Coll::kScatter:
      case Coll::kScan:
      case Coll::kExScan:
        break;  // not served (Serves)
    }
  }

  void Collect(uint64_t s) {
    if (!Reducing() || !Collects()) return;
    const uint64_t f = First(s) * es_, buf = Buf(s) + in_bytes_;
    const std::vector<uint64_t> cut = Cuts(Len(s));
    for (int q = 0; q < P_; ++q) {
      if (q == r_) continue;
      const uint64_t a = cut[q] * es_;
      b_.Copy(RecvAt(f + a), ShmAt(q, buf + a), (cut[q + 1] - cut[q]) * es_);
    }
  }

  const CollSpec& spec_;
  Builder b_;
  const int P_, r_;
  const uint64_t es_;
  uint64_t window_ = 0, steps_ = 0, in_bytes_ = 0, out_bytes_ = 0;
};

ir::Program ShmPipelineGen::GenerateChunked(const CollSpec& spec, const std::vector<int>&,
                                            uint64_t chunk_bytes, int rank) const {
  return PipeWriter(spec, chunk_bytes ? chunk_bytes : kDefaultChunk, rank).Build();
}

}  // namespace

const Generator& ShmPipeline() {
  static const ShmPipelineGen g;
  return g;
}

}  // namespace weft::sched
