// Static checks of ir programs: each program alone (bounds, aliasing, operands), and the
// programs of one collective together (every send matched by a receive of the same size).
#pragma once

#include <string>
#include <vector>

#include "sched/ir/program.h"

namespace weft::ir {

/// Checks one program: every ref inside its space (send, recv, scratch and shm slot sizes
/// from the header; peer spaces sized like this rank's), Reduce lengths a whole number of
/// elements, Copy source and destination disjoint, Reduce's destination disjoint from every
/// source but the first (which it may equal), peers in range and never this rank. On failure
/// returns false with "instr N (text): reason" in *why.
bool VerifyProgram(const Program& p, std::string* why);

/// Checks the programs of all ranks of one collective: one program per rank in order, each
/// passing VerifyProgram, and for every pair (a, b) the sends from a to b and the receives at b
/// from a agree in number and, in order, in size.
bool VerifyMatching(const std::vector<Program>& programs, std::string* why);

}  // namespace weft::ir
