#include "sched/passes/feed_sends.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace weft::sched::passes {
namespace {

using ir::Opcode;
using Run = std::pair<uint64_t, uint64_t>;  // [begin, end) from the reduce's destination

bool UserSpace(ir::Space s) { return s == ir::Space::kSend || s == ir::Space::kRecv; }

// Whether two byte ranges may share memory: in one space (and node rank) and overlapping, or
// one in the send and one in the receive buffer, which are one buffer in place.
bool MayOverlap(const ir::Ref& a, uint64_t an, const ir::Ref& b, uint64_t bn) {
  if (an == 0 || bn == 0) return false;
  if (a.space != b.space) return UserSpace(a.space) && UserSpace(b.space);
  if (ir::HasRank(a.space) && a.rank != b.rank) return false;
  return a.offset < b.offset + bn && b.offset < a.offset + an;
}

bool Within(const ir::Ref& r, uint64_t n, const ir::Ref& d, uint64_t dn) {
  return r.space == d.space && r.rank == d.rank && r.offset >= d.offset &&
         r.offset + n <= d.offset + dn;
}

bool Window(Opcode op) {
  return op == Opcode::kSend || op == Opcode::kRecv || op == Opcode::kSignal;
}

// The sends in code(i, end) that the reduce at i feeds, in order; empty where the rewrite is not
// safe or gains nothing.
std::vector<size_t> FedSends(const std::vector<ir::Instr>& code, size_t i, size_t end,
                             uint64_t es) {
  const ir::Instr& r = code[i];
  std::vector<size_t> fed;
  std::vector<Run> runs;
  for (size_t j = i + 1; j < end; ++j) {
    const ir::Instr& in = code[j];
    if (in.op == Opcode::kSend) {
      if (in.bytes > 0 && Within(in.srcs[0], in.bytes, r.dst, r.bytes)) {
        const uint64_t at = in.srcs[0].offset - r.dst.offset;
        if (at % es != 0 || in.bytes % es != 0) return {};
        fed.push_back(j);
        runs.emplace_back(at, at + in.bytes);
      } else if (MayOverlap(in.srcs[0], in.bytes, r.dst, r.bytes)) {
        return {};  // reads part of the result, or around it
      }
    } else if (in.op == Opcode::kRecv) {
      // Posted before the pieces after it now: it must not write what they read or write.
      if (MayOverlap(in.dst, in.bytes, r.dst, r.bytes)) return {};
      for (const ir::Ref& s : r.srcs) {
        if (MayOverlap(in.dst, in.bytes, s, r.bytes)) return {};
      }
    }
  }
  std::sort(runs.begin(), runs.end());
  for (size_t k = 1; k < runs.size(); ++k) {
    if (runs[k].first < runs[k - 1].second) return {};  // two sends of one range
  }
  uint64_t covered = 0;
  for (const Run& run : runs) covered += run.second - run.first;
  // One send of the whole result: nothing to start earlier.
  if (fed.size() < 2 && covered == r.bytes) return {};
  return fed;
}

// Sorted, adjacent runs joined.
std::vector<Run> Merged(std::vector<Run> runs) {
  std::sort(runs.begin(), runs.end());
  std::vector<Run> out;
  for (const Run& run : runs) {
    if (!out.empty() && out.back().second == run.first) {
      out.back().second = run.second;
    } else {
      out.push_back(run);
    }
  }
  return out;
}

ir::Instr Piece(const ir::Instr& r, const Run& run) {
  ir::Instr in = r;
  in.bytes = run.second - run.first;
  in.dst.offset += run.first;
  for (ir::Ref& s : in.srcs) s.offset += run.first;
  return in;
}

}  // namespace

void FeedSends(ir::Program* p, uint64_t elem_bytes) {
  if (elem_bytes == 0) return;
  const std::vector<ir::Instr>& code = p->code;
  const bool steps = p->step.size() == code.size();
  std::vector<ir::Instr> out;
  std::vector<int> out_step;
  out.reserve(code.size());
  auto emit = [&](ir::Instr in, size_t from) {
    out.push_back(std::move(in));
    if (steps) out_step.push_back(p->step[from]);
  };
  size_t i = 0;
  while (i < code.size()) {
    const ir::Instr& r = code[i];
    size_t end = i + 1;
    if (r.op == Opcode::kReduce) {
      while (end < code.size() && Window(code[end].op)) ++end;
    }
    const std::vector<size_t> fed =
        r.op == Opcode::kReduce ? FedSends(code, i, end, elem_bytes) : std::vector<size_t>{};
    if (fed.empty()) {
      emit(r, i);
      ++i;
      continue;
    }
    // Fed sends in at most kMaxFeedPieces groups of consecutive ones; each group's ranges are
    // reduced just before its first send. What no send reads is reduced after the last send.
    const size_t groups = std::min<size_t>(kMaxFeedPieces, fed.size());
    std::vector<std::vector<Run>> runs(groups);
    std::vector<int> group_of(end - i, -1);
    std::vector<Run> all;
    for (size_t k = 0; k < fed.size(); ++k) {
      const ir::Instr& s = code[fed[k]];
      const uint64_t at = s.srcs[0].offset - r.dst.offset;
      group_of[fed[k] - i] = static_cast<int>(k * groups / fed.size());
      runs[group_of[fed[k] - i]].emplace_back(at, at + s.bytes);
      all.emplace_back(at, at + s.bytes);
    }
    std::vector<Run> rest;  // [0, r.bytes) less every send's range
    uint64_t pos = 0;
    for (const Run& run : Merged(all)) {
      if (run.first > pos) rest.emplace_back(pos, run.first);
      pos = run.second;
    }
    if (pos < r.bytes) rest.emplace_back(pos, r.bytes);
    std::vector<size_t> signals;  // after the last piece
    int next = 0;
    for (size_t j = i + 1; j < end; ++j) {
      if (code[j].op == Opcode::kSignal) {
        signals.push_back(j);
        continue;
      }
      for (const int g = group_of[j - i]; next <= g; ++next) {
        for (const Run& run : Merged(runs[next])) emit(Piece(r, run), i);
      }
      emit(code[j], j);
    }
    for (const Run& run : rest) emit(Piece(r, run), i);
    for (size_t j : signals) emit(code[j], j);
    i = end;
  }
  p->code = std::move(out);
  if (steps) p->step = std::move(out_step);
}

}  // namespace weft::sched::passes
