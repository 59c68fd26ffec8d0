#include "sched/passes/embed.h"

#include <algorithm>

namespace weft::sched::passes {
namespace {

ir::Ref Place(const ir::Ref& r, const EmbedMap& map) {
  switch (r.space) {
    case ir::Space::kSend:
      return {map.send.space, map.send.rank, map.send.offset + r.offset};
    case ir::Space::kRecv:
      return {map.recv.space, map.recv.rank, map.recv.offset + r.offset};
    case ir::Space::kScratch:
      return {ir::Space::kScratch, 0, map.scratch + r.offset};
    default:
      return r;  // slots keep their node ranks (a node part's; Embed's contract)
  }
}

}  // namespace

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
    out->steps = std::max(out->steps, map.step_base + part.steps);
  }
  for (size_t i = 0; i < part.code.size(); ++i) {
    const ir::Instr& in = part.code[i];
    ir::Instr m = in;
    m.dst = Place(in.dst, map);
    for (ir::Ref& s : m.srcs) s = Place(s, map);
    // An in-place group call copies its send buffer to its receive buffer; placed where the
    // two are one, the copy is dropped (as Builder drops copies onto themselves).
    if (in.op == ir::Opcode::kCopy && m.dst == m.srcs[0]) continue;
    if (in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv) m.peer = map.ranks[in.peer];
    if (in.op == ir::Opcode::kWait && static_cast<size_t>(in.counter) < signalled.size()) {
      m.value += signalled[in.counter];
    }
    out->code.push_back(std::move(m));
    if (numbered) out->step.push_back(map.step_base + part.step[i]);
  }
}

}  // namespace weft::sched::passes
