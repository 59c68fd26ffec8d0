#include "sched/passes/embed.h"

#include <algorithm>

#include "sched/algos/builder.h"  // Plus

namespace weft::sched::passes {
namespace {

// The blocks a part's space is scattered to, or null where it is placed contiguously.
const std::vector<ir::Ref>* BlocksOf(ir::Space s, const EmbedMap& map) {
  if (map.block == 0) return nullptr;
  const std::vector<ir::Ref>* b = s == ir::Space::kSend   ? &map.send_blocks
                                  : s == ir::Space::kRecv ? &map.recv_blocks
                                                          : nullptr;
  return b == nullptr || b->empty() ? nullptr : b;
}

// Whether r names a node peer's part buffer that lies block by block in the peer's call.
bool PeerBlocks(const ir::Ref& r, const EmbedMap& map) {
  if (map.block == 0 || (r.space != ir::Space::kPeerSend && r.space != ir::Space::kPeerRecv)) {
    return false;
  }
  const auto& peers = r.space == ir::Space::kPeerSend ? map.peer_send : map.peer_recv;
  return static_cast<size_t>(r.rank) < peers.size() && peers[r.rank].size() > 1;
}

ir::Ref Place(const ir::Ref& r, const EmbedMap& map) {
  if (const std::vector<ir::Ref>* blocks = BlocksOf(r.space, map)) {
    ir::Ref at = (*blocks)[r.offset / map.block];
    at.offset += r.offset % map.block;
    return at;
  }
  switch (r.space) {
    case ir::Space::kSend:
      return {map.send.space, map.send.rank, map.send.offset + r.offset};
    case ir::Space::kRecv:
      return {map.recv.space, map.recv.rank, map.recv.offset + r.offset};
    case ir::Space::kScratch:
      return {ir::Space::kScratch, 0, map.scratch + r.offset};
    case ir::Space::kPeerSend:
    case ir::Space::kPeerRecv: {
      const auto& peers = r.space == ir::Space::kPeerSend ? map.peer_send : map.peer_recv;
      if (static_cast<size_t>(r.rank) >= peers.size()) return r;  // unmapped (the contract)
      // The peer's part buffer in its call buffers: contiguous, or block by block.
      const std::vector<ir::Ref>& at = peers[r.rank];
      const bool blocks = at.size() > 1;
      const size_t k = blocks ? r.offset / map.block : 0;
      if (k >= at.size()) return r;  // past the peer's part (the verifier reports the ref)
      const ir::Ref& base = at[k];
      const uint64_t within = blocks ? r.offset % map.block : r.offset;
      return {base.space == ir::Space::kSend ? ir::Space::kPeerSend : ir::Space::kPeerRecv, r.rank,
              base.offset + within};
    }
    default:
      return r;  // slots keep their node ranks (a node part's; Embed's contract)
  }
}

// Bytes from `pos` of an element-wise instruction (copy, reduce) that stay inside one block of
// every scattered ref it names.
uint64_t Piece(const ir::Instr& in, uint64_t pos, const EmbedMap& map) {
  uint64_t piece = in.bytes - pos;
  auto clip = [&](const ir::Ref& r) {
    if (BlocksOf(r.space, map) == nullptr && !PeerBlocks(r, map)) return;
    piece = std::min(piece, map.block - (r.offset + pos) % map.block);
  };
  clip(in.dst);
  for (const ir::Ref& s : in.srcs) clip(s);
  return piece;
}

// Whether ref r's `bytes` from its offset lie within one block of `block` bytes.
bool WithinBlock(const ir::Ref& r, uint64_t bytes, uint64_t block) {
  return bytes == 0 || r.offset / block == (r.offset + bytes - 1) / block;
}

}  // namespace

bool Scatterable(const ir::Program& part, ir::Space space, uint64_t block) {
  if (block == 0) return false;
  for (const ir::Instr& in : part.code) {
    if (in.op == ir::Opcode::kSend && in.srcs[0].space == space &&
        !WithinBlock(in.srcs[0], in.bytes, block)) {
      return false;
    }
    if (in.op == ir::Opcode::kRecv && in.dst.space == space &&
        !WithinBlock(in.dst, in.bytes, block)) {
      return false;
    }
  }
  return true;
}

void Embed(const ir::Program& part, const EmbedMap& map, ir::Program* out) {
  out->scratch_bytes = std::max(out->scratch_bytes, map.scratch + part.scratch_bytes);
  out->shm_slot_bytes = std::max(out->shm_slot_bytes, part.shm_slot_bytes);
  // A node part's waits count from the signals before it: its entry wait (counter 0, value 0)
  // then asks that every peer finished the node part before, whose slots this one rewrites.
  std::vector<uint64_t> signalled;
  if (map.node) {
    for (const ir::Instr& in : out->code) {
      if (in.op != ir::Opcode::kSignal) continue;
      if (signalled.size() <= static_cast<size_t>(in.counter)) signalled.resize(in.counter + 1);
      ++signalled[in.counter];
    }
  }
  const bool numbered = part.steps > 0 && part.step.size() == part.code.size() &&
                        out->step.size() == out->code.size();
  if (!numbered) {
    out->step.clear();
    out->steps = 0;
  } else {
    // A node part is one step of the composition, its own rounds inside it: every node level
    // then takes the same steps (zerocopy has one), so the network parts' messages fall in the
    // same rounds on a node that runs its level point-to-point (PointToPointNodeLevel) as on
    // the others when the composition is chunked.
    out->steps = std::max(out->steps, map.step_base + (map.node ? 1 : part.steps));
  }
  auto push = [&](ir::Instr&& m, size_t i) {
    // An in-place group call copies its send buffer to its receive buffer; placed where the
    // two are one, the copy is dropped (as Builder drops copies onto themselves).
    if (m.op == ir::Opcode::kCopy && m.dst == m.srcs[0]) return;
    out->code.push_back(std::move(m));
    if (numbered) out->step.push_back(map.step_base + (map.node ? 0 : part.step[i]));
  };
  size_t end = part.code.size();
  while (map.drop_exit_waits && end > 0 && part.code[end - 1].op == ir::Opcode::kWait &&
         part.code[end - 1].counter == 0) {
    --end;
  }
  for (size_t i = 0; i < end; ++i) {
    const ir::Instr& in = part.code[i];
    if (map.block != 0 && (in.op == ir::Opcode::kCopy || in.op == ir::Opcode::kReduce)) {
      // Element-wise: one instruction per stretch inside one block of each scattered ref.
      for (uint64_t pos = 0, piece = 0; pos < in.bytes; pos += piece) {
        piece = Piece(in, pos, map);
        ir::Instr m = in;
        m.bytes = piece;
        m.dst = Place(Plus(in.dst, pos), map);
        for (size_t k = 0; k < in.srcs.size(); ++k) m.srcs[k] = Place(Plus(in.srcs[k], pos), map);
        push(std::move(m), i);
      }
      continue;
    }
    ir::Instr m = in;
    m.dst = Place(in.dst, map);
    for (ir::Ref& s : m.srcs) s = Place(s, map);
    if (in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv) m.peer = map.ranks[in.peer];
    if (in.op == ir::Opcode::kWait && static_cast<size_t>(in.counter) < signalled.size()) {
      m.value += signalled[in.counter];
    }
    push(std::move(m), i);
  }
}

}  // namespace weft::sched::passes
