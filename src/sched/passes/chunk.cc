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
// to its last waitall (dropped: the round supplies one); instructions after it move to the next
// phase. A step's earlier waitalls (a node level's own rounds, which passes::Embed runs inside
// one step of a composition) stay in its phase. False when the steps cannot be aligned (an
// instruction of step s after the last waitall of step s + 1).
bool Phases(ir::Program&& p, std::vector<std::vector<ir::Instr>>* out) {
  out->clear();
  if (p.step.size() != p.code.size()) return p.code.empty();
  int last = p.step.empty() ? 0 : *std::max_element(p.step.begin(), p.step.end());
  out->resize(last + 2);
  std::vector<size_t> last_wait(last + 2, p.code.size());  // per step: its last waitall
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.code[i].op == ir::Opcode::kWaitAll) last_wait[p.step[i]] = i;
  }
  std::vector<bool> waited(last + 2, false);
  for (size_t i = 0; i < p.code.size(); ++i) {
    int s = p.step[i];
    if (i == last_wait[s]) {
      waited[s] = true;
      continue;
    }
    // After this step's last waitall, or in a step without one but the last (a node level run
    // through counters): runs with the next step. A node level's reduce then feeds its own
    // chunk's first messages (passes::FeedSends) in one round, instead of running a round ahead
    // beside the chunk before's messages, which left its own to wait for that round's waitall
    // ([zerocopy/rexch:-32,32]@32K at 32 x 64, 64 KiB: its second chunk's messages left 5 us
    // after its reduce).
    if (waited[s] || (last_wait[s] == p.code.size() && s < last)) ++s;
    if (waited[s]) return false;
    (*out)[s].push_back(std::move(p.code[i]));
  }
  while (!out->empty() && out->back().empty()) out->pop_back();
  return true;
}

// A message started and not yet known complete.
struct Flying {
  uint64_t index;  // in the order started
  uint32_t chunk;
  bool recv;
  ir::Ref at;  // its buffer (Canonical)
  uint64_t bytes;
};

// In place, the call's send and receive buffers are one (chunking serves allreduce, bcast and
// reduce, whose in-place forms share offsets): refs to either compare as the receive buffer's.
ir::Ref Canonical(ir::Ref r, bool in_place) {
  if (in_place && r.space == ir::Space::kSend) r.space = ir::Space::kRecv;
  return r;
}

bool Overlap(const ir::Ref& a, uint64_t an, const ir::Ref& b, uint64_t bn) {
  return a.space == b.space && a.rank == b.rank && an > 0 && bn > 0 && a.offset < b.offset + bn &&
         b.offset < a.offset + an;
}

// How many of the first messages started must be complete before `phase` (of `chunk`) runs:
// those whose buffers it touches (a receive's that it reads or writes, a send's that it
// writes), and, where it signals or waits on node counters (publishing to node peers what this
// rank wrote, or taking over what they left), every message of its chunk started before.
// Where it only reads what an earlier send reads, or touches other buffers, it need not wait:
// the messages of the pipeline's other chunks keep flying.
uint64_t MessagesNeeded(const std::vector<ir::Instr>& phase, const std::vector<Flying>& flying,
                        uint32_t chunk, bool in_place) {
  uint64_t need = 0;
  auto touch = [&](const ir::Ref& r, uint64_t n, bool write) {
    const ir::Ref at = Canonical(r, in_place);
    for (const Flying& f : flying) {
      if ((f.recv || write) && Overlap(at, n, f.at, f.bytes)) need = std::max(need, f.index + 1);
    }
  };
  for (const ir::Instr& in : phase) {
    switch (in.op) {
      case ir::Opcode::kCopy:
      case ir::Opcode::kReduce:
        for (const ir::Ref& r : in.srcs) touch(r, in.bytes, false);
        touch(in.dst, in.bytes, true);
        break;
      case ir::Opcode::kSend:
        touch(in.srcs[0], in.bytes, false);
        break;
      case ir::Opcode::kRecv:
        touch(in.dst, in.bytes, true);
        break;
      case ir::Opcode::kSignal:
      case ir::Opcode::kWait:
        for (const Flying& f : flying) {
          if (f.chunk == chunk) need = std::max(need, f.index + 1);
        }
        break;
      default:
        break;
    }
  }
  return need;
}

bool PostsMessages(const std::vector<ir::Instr>& phase) {
  return std::any_of(phase.begin(), phase.end(), [](const ir::Instr& in) {
    return in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv;
  });
}

// Node counters across chunks: each chunk's program counts its counter waits from its own
// start (its first signal of a counter is 1), but in the merged program a peer's counter also
// holds every earlier chunk's signals. A wait for chunk c's v-th signal of counter k becomes a
// wait for the merged count at which this rank makes that signal (node parts are symmetric:
// every node rank makes the same signals in the same merged order); a wait for 0 (the entry
// rule: peers finished what came before) becomes the count of other chunks' signals before it.
// False where a wait names a signal its chunk does not make (no symmetric count to map to).
bool RenumberCounterWaits(ir::Program* p, const std::vector<uint32_t>& chunk_of, uint64_t chunks) {
  std::vector<std::vector<std::vector<uint64_t>>> at(chunks);  // [chunk][counter] -> merged count
  std::vector<uint64_t> total;
  for (size_t i = 0; i < p->code.size(); ++i) {
    const ir::Instr& in = p->code[i];
    if (in.op != ir::Opcode::kSignal) continue;
    const size_t k = static_cast<size_t>(in.counter);
    if (total.size() <= k) total.resize(k + 1, 0);
    auto& mine = at[chunk_of[i]];
    if (mine.size() <= k) mine.resize(k + 1);
    mine[k].push_back(++total[k]);
  }
  if (total.empty()) return true;  // no node counters
  std::vector<uint64_t> seen(total.size(), 0);
  std::vector<std::vector<uint64_t>> own(chunks, std::vector<uint64_t>(total.size(), 0));
  for (size_t i = 0; i < p->code.size(); ++i) {
    ir::Instr& in = p->code[i];
    const size_t k = static_cast<size_t>(in.counter);
    if (in.op == ir::Opcode::kSignal) {
      ++seen[k];
      ++own[chunk_of[i]][k];
    } else if (in.op == ir::Opcode::kWait) {
      const auto& mine = at[chunk_of[i]];
      if (in.value == 0) {
        in.value = k < seen.size() ? seen[k] - own[chunk_of[i]][k] : 0;
      } else if (k < mine.size() && in.value <= mine[k].size()) {
        in.value = mine[k][in.value - 1];
      } else {
        return false;
      }
    }
  }
  return true;
}

// Both: with move_user, each chunk's user-buffer refs move by its byte offset (the generator
// wrote them for a vector of the chunk's count); without, the generator placed them.
ir::Program Chunked(const CollSpec& spec, uint64_t chunk_bytes, int rank,
                    const std::function<ir::Program(const CollSpec&, uint64_t)>& generate,
                    bool move_user) {
  const uint64_t es = ElemBytes(spec), line = LineElems(es);
  uint64_t per = std::max<uint64_t>(line, chunk_bytes / es / line * line);
  // Tags stay below MPI's guaranteed bound: grow chunks rather than run out of tags.
  while ((spec.count + per - 1) / per > kMaxTag) per *= 2;
  const uint64_t chunks = spec.count == 0 ? 0 : (spec.count + per - 1) / per;
  if (chunks <= 1) return generate(spec, 0);

  std::vector<std::vector<std::vector<ir::Instr>>> phases(chunks);
  std::vector<ir::Program> progs(chunks);
  uint64_t scratch = 0, shm = 0;
  size_t depth = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    CollSpec piece = spec;
    piece.count = std::min(per, spec.count - c * per);
    progs[c] = generate(piece, c * per);
    scratch = std::max(scratch, progs[c].scratch_bytes);
    shm = std::max(shm, progs[c].shm_slot_bytes);
  }
  for (uint64_t c = 0; c < chunks; ++c) {
    // A generator without aligned steps is not pipelined: one program for the whole count.
    if (!Phases(std::move(progs[c]), &phases[c])) return generate(spec, 0);
    depth = std::max(depth, phases[c].size());
  }
  if (depth == 0) return generate(spec, 0);
  for (uint64_t c = 0; c < chunks; ++c) {
    ir::Program tmp;
    for (auto& ph : phases[c]) {
      tmp.code = std::move(ph);
      Relocate(&tmp, move_user ? c * per * es : 0, (c % depth) * scratch, static_cast<int>(c));
      ph = std::move(tmp.code);
    }
  }
  Builder b(spec, rank);
  b.NeedScratch(depth * scratch);
  b.NeedShm(shm);
  ir::Program& out = b.program();
  std::vector<uint32_t> chunk_of;  // per merged instruction, its chunk
  // Messages started so far, how many of the first of them a wait has completed, and those
  // not yet known complete.
  uint64_t started = 0, completed = 0;
  std::vector<Flying> flying;
  auto wait_for = [&](uint64_t need) {
    if (need <= completed) return;
    ir::Instr wait;
    wait.op = need == started ? ir::Opcode::kWaitAll : ir::Opcode::kWaitOlder;
    wait.value = started - need;
    out.code.push_back(std::move(wait));
    chunk_of.push_back(0);
    completed = need;
    flying.erase(std::remove_if(flying.begin(), flying.end(),
                                [&](const Flying& f) { return f.index < need; }),
                 flying.end());
  };
  for (uint64_t t = 0; t < chunks + depth - 1; ++t) {
    const uint64_t first = t + 1 >= depth ? t + 1 - depth : 0;
    const uint64_t newest = std::min<uint64_t>(t, chunks - 1);
    // The phases that post messages first, newest chunk first: a chunk's first phase needs no
    // message of the round before, so its work (and its messages) go ahead while an older
    // chunk's messages of that round still fly. Then the phases that only copy, reduce or wait
    // on node counters, oldest first, while the round's messages fly.
    for (const bool posts : {true, false}) {
      for (uint64_t k = 0; k <= newest - first; ++k) {
        const uint64_t c = posts ? newest - k : first + k;
        const uint64_t ph = t - c;
        if (ph >= phases[c].size()) continue;
        std::vector<ir::Instr>& phase = phases[c][ph];
        if (phase.empty() || PostsMessages(phase) != posts) continue;
        wait_for(MessagesNeeded(phase, flying, static_cast<uint32_t>(c), spec.in_place));
        for (ir::Instr& in : phase) {
          if (in.op == ir::Opcode::kSend || in.op == ir::Opcode::kRecv) {
            const bool recv = in.op == ir::Opcode::kRecv;
            flying.push_back({started++, static_cast<uint32_t>(c), recv,
                              Canonical(recv ? in.dst : in.srcs[0], spec.in_place), in.bytes});
          }
          out.code.push_back(std::move(in));
          chunk_of.push_back(static_cast<uint32_t>(c));
        }
        phase.clear();
      }
    }
  }
  wait_for(started);
  if (!RenumberCounterWaits(&out, chunk_of, chunks)) return generate(spec, 0);
  return b.Take();
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
  return Chunked(
      spec, chunk_bytes, rank, [&](const CollSpec& piece, uint64_t) { return generate(piece); },
      true);
}

ir::Program PipelinePlaced(const CollSpec& spec, uint64_t chunk_bytes, int rank,
                           const std::function<ir::Program(const CollSpec&, uint64_t)>& generate) {
  return Chunked(spec, chunk_bytes, rank, generate, false);
}

}  // namespace weft::sched::passes
