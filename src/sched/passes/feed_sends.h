// The feeding pass: a reduce whose result the next instructions send in pieces (a recursive
// exchange's next step, a hierarchical allreduce's network level after its node level) is cut
// along those pieces, and each send follows the part of the reduce that produces its bytes,
// instead of every send waiting for the whole reduce. The messages then leave while the rank
// still reduces, as NCCL's kernels push each slice on as soon as it is reduced.
#pragma once

#include <cstdint>

#include "sched/ir/program.h"

namespace weft::sched::passes {

/// Most pieces one reduce is cut into: the sends it feeds are taken in this many groups at most,
/// so a reduce feeding 31 small messages becomes 8 reduces, not 31 (each reduce instruction
/// costs the interpreter a dispatch and a pass over its operand list).
inline constexpr int kMaxFeedPieces = 8;

/// Rewrites p so that each send fed by a reduce follows the piece of it that produces its bytes.
/// Only where that is safe without looking past the reduce: the instructions between the reduce
/// and its last fed send are sends, receives and signals; the fed sends read disjoint ranges of
/// the reduce's destination; no receive there writes what the reduce reads or writes; no other
/// send reads what it writes. Signals there move after the last piece (a signal may only come
/// later: it tells peers what this rank has finished). `elem_bytes` keeps cuts on elements.
/// Step numbers (Program::step) go with their instructions.
void FeedSends(ir::Program* p, uint64_t elem_bytes);

}  // namespace weft::sched::passes
