#include "sched/passes/chunk.h"

#include <algorithm>
#include <vector>

#include "sched/algos/builder.h"

namespace weft::sched::passes {
namespace {

constexpr int kMaxTag = 16383;  // schedule tags sit above 0x4000; MPI guarantees up to 32767

// Moves a chunk program's refs to the chunk's place: user buffers by the chunk's byte offset,
// scratch by its slot.
void Relocate(ir::Program* p, uint64_t user_offset, uint64_t scratch_offset, int tag) {
  auto move = [&](ir::Ref& r) {
    if (r.space == ir::Space::kScratch) {
      r.offset += scratch_offset;
    } else if (r.space != ir::Space::kShm) {
      r.offset += user_offset;
    }
  };
  for (ir::Instr& in : p->code) {
    move(in.dst);
    for (ir::Ref& r : in.srcs) move(r);
    if (in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv) in.tag = tag;
  }
}

// Cuts a chunk program into its steps (Program::step): phase s holds step s's instructions up
// to its waitall (dropped: the round supplies one); instructions after the waitall move to the
// next phase. False when a step holds two waitalls (the generator's steps cannot be aligned).
bool Phases(ir::Program&& p, std::vector<std::vector<ir::Instr>>* out) {
  out->clear();
  if (p.step.size() != p.code.size()) return p.code.empty();
  int last = p.step.empty() ? 0 : *std::max_element(p.step.begin(), p.step.end());
  out->resize(last + 2);
  std::vector<bool> waited(last + 2, false);
  for (size_t i = 0; i < p.code.size(); ++i) {
    int s = p.step[i];
    if (p.code[i].op == ir::Opcode::kWaitAll) {
      if (waited[s]) return false;
      waited[s] = true;
      continue;
    }
    if (waited[s]) ++s;  // after this step's waitall: runs with the next step
    if (waited[s]) return false;
    (*out)[s].push_back(std::move(p.code[i]));
  }
  while (!out->empty() && out->back().empty()) out->pop_back();
  return true;
}

}  // namespace

std::string DeclineChunking(const CollSpec& spec) {
  if (spec.coll == Coll::kAllReduce || spec.coll == Coll::kBroadcast ||
      spec.coll == Coll::kReduce) {
    return "";
  }
  return std::string("chunking applies to allreduce, bcast and reduce, not ") + CollName(spec.coll);
}

ir::Program Pipeline(const CollSpec& spec, uint64_t chunk_bytes, int rank,
                     const std::function<ir::Program(const CollSpec&)>& generate) {
  const uint64_t es = ElemBytes(spec), line = LineElems(es);
  uint64_t per = std::max<uint64_t>(line, chunk_bytes / es / line * line);
  // Tags stay below MPI's guaranteed bound: grow chunks rather than run out of tags.
  while ((spec.count + per - 1) / per > kMaxTag) per *= 2;
  const uint64_t chunks = spec.count == 0 ? 0 : (spec.count + per - 1) / per;
  if (chunks <= 1) return generate(spec);

  std::vector<std::vector<std::vector<ir::Instr>>> phases(chunks);
  std::vector<ir::Program> progs(chunks);
  uint64_t scratch = 0, shm = 0;
  size_t depth = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    CollSpec piece = spec;
    piece.count = std::min(per, spec.count - c * per);
    progs[c] = generate(piece);
    scratch = std::max(scratch, progs[c].scratch_bytes);
    shm = std::max(shm, progs[c].shm_slot_bytes);
  }
  for (uint64_t c = 0; c < chunks; ++c) {
    // A generator without aligned steps is not pipelined: one program for the whole count.
    if (!Phases(std::move(progs[c]), &phases[c])) return generate(spec);
    depth = std::max(depth, phases[c].size());
  }
  if (depth == 0) return generate(spec);
  for (uint64_t c = 0; c < chunks; ++c) {
    ir::Program tmp;
    for (auto& ph : phases[c]) {
      tmp.code = std::move(ph);
      Relocate(&tmp, c * per * es, (c % depth) * scratch, static_cast<int>(c));
      ph = std::move(tmp.code);
    }
  }
  Builder b(spec, rank);
  b.NeedScratch(depth * scratch);
  b.NeedShm(shm);
  ir::Program& out = b.program();
  for (uint64_t t = 0; t < chunks + depth - 1; ++t) {
    bool comm = false;
    const uint64_t first = t + 1 >= depth ? t + 1 - depth : 0;
    for (uint64_t c = first; c <= std::min<uint64_t>(t, chunks - 1); ++c) {
      if (t - c >= phases[c].size()) continue;
      for (ir::Instr& in : phases[c][t - c]) {
        comm |= in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv;
        out.code.push_back(std::move(in));
      }
    }
    if (comm) {
      ir::Instr wait;
      wait.op = ir::Opcode::kWaitAll;
      out.code.push_back(std::move(wait));
    }
  }
  return b.Take();
}

}  // namespace weft::sched::passes
