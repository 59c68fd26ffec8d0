// The ir's text form: what weft-plan prints and golden files hold. The printer and parser are
// driven by each opcode's operand letters in opcodes.def, and round-trip exactly.
//
//   program rank 0 nranks 4 dtype double send 1024 recv 1024 scratch 512 shm 0
//     copy recv+0, send+0, 256
//     reduce recv+0, recv+0, scratch+0, 256, sum
//     send 1, send+256, 256, 0
//     wait 1, 0, 3
//   end
#pragma once

#include <string>
#include <vector>

#include "sched/ir/program.h"

namespace weft::ir {

/// A Ref as text: "send+64", "shm(2)+0", "peer_recv(1)+128".
std::string RefText(const Ref& r);
/// One instruction as text, without indentation.
std::string InstrText(const Instr& in);
/// A whole program (header, indented instructions, "end").
std::string PrintProgram(const Program& p);
/// Programs one after another (every rank of a collective).
std::string PrintPrograms(const std::vector<Program>& ps);

/// Parses PrintProgram's form; on failure returns false with "line N: reason" in *why.
bool ParseProgram(const std::string& text, Program* out, std::string* why);
/// Parses PrintPrograms' form (one or more programs).
bool ParsePrograms(const std::string& text, std::vector<Program>* out, std::string* why);

}  // namespace weft::ir
