#include "sched/algos/builder.h"

#include <algorithm>

namespace weft::sched {

using ir::Instr;
using ir::Opcode;

Builder::Builder(const CollSpec& spec, int rank) : spec_(spec) {
  program_.rank = rank;
  program_.nranks = spec.nranks;
  program_.dtype = spec.dtype;
  program_.send_bytes = SendBytes(spec, rank);
  program_.recv_bytes = RecvBytes(spec, rank);
}

void Builder::Copy(ir::Ref dst, ir::Ref src, uint64_t bytes) {
  if (bytes == 0 || dst == src) return;
  Instr in;
  in.op = Opcode::kCopy;
  in.dst = dst;
  in.srcs = {src};
  in.bytes = bytes;
  Push(std::move(in));
}

void Builder::Reduce(ir::Ref dst, const std::vector<ir::Ref>& srcs, uint64_t bytes) {
  if (bytes == 0) return;
  if (srcs.size() == 1) return Copy(dst, srcs[0], bytes);
  Instr in;
  in.op = Opcode::kReduce;
  in.dst = dst;
  in.srcs = srcs;
  in.bytes = bytes;
  in.redop = spec_.op;
  Push(std::move(in));
}

void Builder::Send(int peer, ir::Ref src, uint64_t bytes, int tag) {
  if (bytes == 0) return;
  Instr in;
  in.op = Opcode::kSend;
  in.peer = peer;
  in.srcs = {src};
  in.bytes = bytes;
  in.tag = tag;
  Push(std::move(in));
  outstanding_ = true;
}

void Builder::Recv(int peer, ir::Ref dst, uint64_t bytes, int tag) {
  if (bytes == 0) return;
  Instr in;
  in.op = Opcode::kRecv;
  in.peer = peer;
  in.dst = dst;
  in.bytes = bytes;
  in.tag = tag;
  Push(std::move(in));
  outstanding_ = true;
}

void Builder::WaitAll() {
  if (!outstanding_) return;
  Instr in;
  in.op = Opcode::kWaitAll;
  Push(std::move(in));
  outstanding_ = false;
}

void Builder::Signal(int counter) {
  Instr in;
  in.op = Opcode::kSignal;
  in.counter = counter;
  Push(std::move(in));
}

void Builder::Wait(int node_peer, int counter, uint64_t value) {
  Instr in;
  in.op = Opcode::kWait;
  in.peer = node_peer;
  in.counter = counter;
  in.value = value;
  Push(std::move(in));
}

void Builder::WaitPeers(int counter, uint64_t value) {
  for (int q = 0; q < program_.nranks; ++q) {
    if (q != program_.rank) Wait(q, counter, value);
  }
}

void Builder::Push(ir::Instr&& in) {
  program_.code.push_back(std::move(in));
  program_.step.push_back(step_);
}

void Builder::NeedScratch(uint64_t bytes) {
  program_.scratch_bytes = std::max(program_.scratch_bytes, bytes);
}

void Builder::NeedShm(uint64_t bytes) {
  program_.shm_slot_bytes = std::max(program_.shm_slot_bytes, bytes);
}

std::vector<uint64_t> SplitElems(uint64_t count, int parts, uint64_t elem_bytes) {
  const uint64_t line = LineElems(elem_bytes);
  const uint64_t lines = (count + line - 1) / line;
  const uint64_t P = static_cast<uint64_t>(parts);
  std::vector<uint64_t> off(parts + 1, 0);
  for (uint64_t i = 0; i < P; ++i) {
    const uint64_t my_lines = lines / P + (i < lines % P ? 1 : 0);
    off[i + 1] = std::min(count, off[i] + my_lines * line);
  }
  return off;
}

std::vector<uint64_t> SplitForMessages(uint64_t count, int parts, uint64_t elem_bytes) {
  std::vector<uint64_t> off = SplitElems(count, parts, elem_bytes);
  const uint64_t P = static_cast<uint64_t>(parts);
  uint64_t largest = 0;
  for (uint64_t i = 0; i < P; ++i) largest = std::max(largest, off[i + 1] - off[i]);
  const uint64_t even = (count + P - 1) / P;
  if (8 * largest <= 9 * even) return off;
  for (uint64_t i = 0; i <= P; ++i) off[i] = count / P * i + std::min(i, count % P);
  return off;
}

int FoldGroups::First(int g) const {
  const int q = nranks / groups, r = nranks % groups;
  return g * q + std::min(g, r);
}

int FoldGroups::GroupOf(int rank) const {
  const int q = nranks / groups, r = nranks % groups;
  // The first r groups hold q + 1 ranks each.
  if (rank < r * (q + 1)) return rank / (q + 1);
  return r + (rank - r * (q + 1)) / q;
}

}  // namespace weft::sched
