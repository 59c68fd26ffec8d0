// Helpers generators share: a Program under construction with instructions that drop
// themselves when empty, refs by space, and the element partitions of a vector.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/coll_spec.h"
#include "sched/ir/program.h"

namespace weft::sched {

/// A ref into one of this rank's spaces.
inline ir::Ref At(ir::Space s, uint64_t offset) { return {s, 0, offset}; }
inline ir::Ref SendAt(uint64_t o) { return At(ir::Space::kSend, o); }
inline ir::Ref RecvAt(uint64_t o) { return At(ir::Space::kRecv, o); }
inline ir::Ref ScratchAt(uint64_t o) { return At(ir::Space::kScratch, o); }
inline ir::Ref ShmAt(int node_rank, uint64_t o) { return {ir::Space::kShm, node_rank, o}; }
/// Node peer's send / receive buffer (single copy or mapped memory).
inline ir::Ref PeerSendAt(int node_rank, uint64_t o) {
  return {ir::Space::kPeerSend, node_rank, o};
}
inline ir::Ref PeerRecvAt(int node_rank, uint64_t o) {
  return {ir::Space::kPeerRecv, node_rank, o};
}
/// ref moved by `bytes`.
inline ir::Ref Plus(ir::Ref r, uint64_t bytes) {
  r.offset += bytes;
  return r;
}

/// Appends instructions to one rank's Program. Zero-byte operations are dropped (both ends of a
/// message compute the same size, so they drop it together), as are copies onto themselves and
/// a waitall with nothing outstanding.
class Builder {
 public:
  /// Starts the program of `rank` for spec: header sizes from the spec, scratch 0.
  Builder(const CollSpec& spec, int rank);

  void Copy(ir::Ref dst, ir::Ref src, uint64_t bytes);
  /// dst = srcs[0] op srcs[1] ... in order; one source is a copy.
  void Reduce(ir::Ref dst, const std::vector<ir::Ref>& srcs, uint64_t bytes);
  void Send(int peer, ir::Ref src, uint64_t bytes, int tag = 0);
  void Recv(int peer, ir::Ref dst, uint64_t bytes, int tag = 0);
  void WaitAll();
  void Signal(int counter);
  void Wait(int node_peer, int counter, uint64_t value);
  /// Wait on every node peer (not this rank) until its counter has reached value.
  void WaitPeers(int counter, uint64_t value);
  /// Numbers the instructions that follow as step s (see Program::step): generators that
  /// can be pipelined give every rank the same step for both ends of a message.
  void SetStep(int s) {
    step_ = s;
    if (s + 1 > program_.steps) program_.steps = s + 1;
  }
  /// Makes the scratch space at least `bytes`.
  void NeedScratch(uint64_t bytes);
  void NeedShm(uint64_t bytes);

  const CollSpec& spec() const { return spec_; }
  int rank() const { return program_.rank; }
  ir::Program& program() { return program_; }
  ir::Program Take() { return std::move(program_); }

 private:
  CollSpec spec_;
  ir::Program program_;
  void Push(ir::Instr&& in);
  bool outstanding_ = false;
  int step_ = 0;
};

/// Splits `count` elements into `parts` contiguous pieces as evenly as whole 64-byte lines
/// allow (so pieces are at least one line where the count permits; the last non-empty piece
/// takes the remainder). Returns parts + 1 element offsets, first 0 and last count.
std::vector<uint64_t> SplitElems(uint64_t count, int parts, uint64_t elem_bytes);

/// SplitElems for pieces that travel as messages between ranks' own buffers (no line is
/// shared between ranks' writes there): whole lines unless that makes the largest piece more
/// than 1/8 larger than an even split by elements, which is used then. With fewer lines than
/// pieces the line split leaves ranks empty and doubles others: at 32 x 64 ranks and 64 KiB of
/// doubles, rexch:-32 over a rank's 1 KiB slice gave 16 ranks of each group 64 bytes and
/// 16 none, and weft-sim put zerocopy/rexch:-32,32 at 45.9 us against 35.4 split evenly.
std::vector<uint64_t> SplitForMessages(uint64_t count, int parts, uint64_t elem_bytes);

/// Elements per 64-byte line for elements of elem_bytes (at least 1).
inline uint64_t LineElems(uint64_t elem_bytes) { return elem_bytes >= 64 ? 1 : 64 / elem_bytes; }

/// Contiguous groups folding P ranks onto C <= P leaders: group g holds ranks
/// [first(g), first(g + 1)), the first P mod C groups one rank larger; each group's leader is
/// its lowest rank, so a group's reduction keeps rank order.
struct FoldGroups {
  int nranks = 1, groups = 1;
  int First(int g) const;
  int Size(int g) const { return First(g + 1) - First(g); }
  int GroupOf(int rank) const;
};

}  // namespace weft::sched
