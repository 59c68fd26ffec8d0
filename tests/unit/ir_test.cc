#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sched/ir/program.h"
#include "sched/ir/text.h"
#include "sched/ir/verify.h"

namespace weft::ir {
namespace {

Ref R(Space s, uint64_t off, int rank = 0) { return Ref{s, rank, off}; }

// A 2-rank allreduce of 2 doubles by exchange: send own, receive peer's, reduce.
std::vector<Program> Exchange() {
  std::vector<Program> ps(2);
  for (int r = 0; r < 2; ++r) {
    Program& p = ps[r];
    p.rank = r;
    p.nranks = 2;
    p.dtype = weftFloat64;
    p.send_bytes = p.recv_bytes = p.scratch_bytes = 16;
    Instr send{Opcode::kSend, {}, {R(Space::kSend, 0)}, 16, 1 - r};
    Instr recv{Opcode::kRecv, R(Space::kScratch, 0), {}, 16, 1 - r};
    Instr wait{Opcode::kWaitAll};
    Instr red{Opcode::kReduce, R(Space::kRecv, 0), {R(Space::kSend, 0), R(Space::kScratch, 0)}, 16};
    p.code = {send, recv, wait, red};
  }
  return ps;
}

TEST(Ir, EveryOpcodeRoundTripsThroughText) {
  Program p;
  p.rank = 1;
  p.nranks = 4;
  p.dtype = weftBfloat16;
  p.send_bytes = p.recv_bytes = 256;
  p.scratch_bytes = 128;
  p.shm_slot_bytes = 64;
  p.code = {
      {Opcode::kCopy, R(Space::kShm, 0, 1), {R(Space::kSend, 64)}, 64},
      {Opcode::kReduce,
       R(Space::kRecv, 0),
       {R(Space::kRecv, 0), R(Space::kShm, 0, 2), R(Space::kPeerSend, 8, 3)},
       32,
       -1,
       0,
       0,
       weftMax},
      {Opcode::kSend, {}, {R(Space::kScratch, 0)}, 128, 3},
      {Opcode::kRecv, R(Space::kPeerRecv, 0, 2), {}, 16, 0},
      {Opcode::kWaitAll},
      {Opcode::kSignal, {}, {}, 0, -1, 2},
      {Opcode::kWait, {}, {}, 0, 3, 2, 41},
      {Opcode::kFence},
      {Opcode::kWaitOlder, {}, {}, 0, -1, 0, 7},
  };
  ASSERT_EQ(static_cast<int>(p.code.size()), kNumOpcodes) << "cover every opcode";
  const std::string text = PrintProgram(p);
  Program back;
  std::string why;
  ASSERT_TRUE(ParseProgram(text, &back, &why)) << why << "\n" << text;
  EXPECT_EQ(back, p);
  EXPECT_EQ(PrintProgram(back), text);
  EXPECT_NE(text.find("reduce recv+0, recv+0, shm(2)+0, peer_send(3)+8, 32, max"),
            std::string::npos)
      << text;
}

TEST(Ir, ParserNamesTheLineAndTheProblem) {
  Program p;
  std::string why;
  const std::string head = "program rank 0 nranks 2 dtype double send 8 recv 8 scratch 0 shm 0\n";
  EXPECT_FALSE(ParseProgram(head + "  jump recv+0\nend\n", &p, &why));
  EXPECT_EQ(why, "line 2: unknown opcode 'jump'");
  EXPECT_FALSE(ParseProgram(head + "  copy recv+0, 8\nend\n", &p, &why));
  EXPECT_NE(why.find("line 2"), std::string::npos);
  EXPECT_FALSE(ParseProgram(head + "  copy recv+0, shm+0, 8\nend\n", &p, &why))
      << "shm needs a rank";
  EXPECT_FALSE(ParseProgram(head + "  waitall 3\nend\n", &p, &why));
  EXPECT_NE(why.find("too many operands"), std::string::npos);
  EXPECT_FALSE(ParseProgram(head + "  fence\n", &p, &why));
  EXPECT_NE(why.find("missing 'end'"), std::string::npos);
  EXPECT_FALSE(ParseProgram("program rank 0\nend\n", &p, &why));
}

TEST(Ir, SeveralProgramsRoundTrip) {
  std::vector<Program> ps = Exchange(), back;
  std::string why;
  ASSERT_TRUE(ParsePrograms(PrintPrograms(ps), &back, &why)) << why;
  EXPECT_EQ(back, ps);
}

TEST(Ir, VerifierAcceptsAMatchedExchange) {
  std::string why;
  EXPECT_TRUE(VerifyMatching(Exchange(), &why)) << why;
}

TEST(Ir, VerifierRejectsBoundsAliasingAndPeers) {
  std::string why;
  Program p = Exchange()[0];
  p.code.push_back({Opcode::kCopy, R(Space::kRecv, 8), {R(Space::kSend, 0)}, 16});
  EXPECT_FALSE(VerifyProgram(p, &why));
  EXPECT_NE(why.find("exceeds"), std::string::npos) << why;

  p = Exchange()[0];
  p.code.push_back({Opcode::kCopy, R(Space::kScratch, 0), {R(Space::kScratch, 8)}, 16});
  EXPECT_FALSE(VerifyProgram(p, &why));
  p.code.back().dst.offset = 0;
  p.scratch_bytes = 64;
  p.code.back().srcs[0].offset = 16;
  EXPECT_TRUE(VerifyProgram(p, &why)) << why;

  p = Exchange()[0];
  p.code.push_back(
      {Opcode::kReduce, R(Space::kRecv, 0), {R(Space::kScratch, 0), R(Space::kRecv, 0)}, 16});
  EXPECT_TRUE(VerifyProgram(p, &why)) << "the destination may equal any one source: " << why;
  p.scratch_bytes = 32;
  p.code.back().srcs[1].offset = 8;
  p.recv_bytes = 32;
  EXPECT_FALSE(VerifyProgram(p, &why)) << "a partial overlap with a source";
  p = Exchange()[0];
  p.code.push_back(
      {Opcode::kReduce, R(Space::kRecv, 0), {R(Space::kScratch, 0), R(Space::kRecv, 0)}, 16});
  p.code.back() = {
      Opcode::kReduce, R(Space::kRecv, 0), {R(Space::kRecv, 0), R(Space::kScratch, 0)}, 12};
  EXPECT_FALSE(VerifyProgram(p, &why)) << "12 bytes is not a whole number of doubles";

  p = Exchange()[0];
  p.code[0].peer = 0;
  EXPECT_FALSE(VerifyProgram(p, &why)) << "send to self";
  p.code[0].peer = 2;
  EXPECT_FALSE(VerifyProgram(p, &why)) << "peer out of range";
}

// A banked program's entry wait may be relaxed (shm_segment.h); the verifier insists that it
// comes before the bank is touched and that the stamp word is left alone, and the flag
// survives the text form.
TEST(Ir, BankedProgramsWaitBeforeTouchingTheirBank) {
  Program p;
  p.nranks = 3;
  p.send_bytes = p.recv_bytes = 8;
  p.shm_slot_bytes = 16;
  p.shm_banked = true;
  p.code = {{Opcode::kWait, {}, {}, 0, 1, 0, 0},
            {Opcode::kCopy, R(Space::kShm, 8, 0), {R(Space::kSend, 0)}, 8},
            {Opcode::kSignal, {}, {}, 0, -1, 0}};
  std::string why;
  EXPECT_FALSE(VerifyProgram(p, &why)) << "node rank 2's entry wait is missing";
  EXPECT_NE(why.find("node rank 2"), std::string::npos) << why;
  p.code.insert(p.code.begin() + 1, {Opcode::kWait, {}, {}, 0, 2, 0, 0});
  EXPECT_TRUE(VerifyProgram(p, &why)) << why;
  p.code[2].dst.offset = 0;
  EXPECT_FALSE(VerifyProgram(p, &why)) << "byte 0 of a bank is the stamp";
  p.code[2].dst.offset = 8;
  Program back;
  ASSERT_TRUE(ParseProgram(PrintProgram(p), &back, &why)) << why;
  EXPECT_TRUE(back.shm_banked);
  EXPECT_EQ(back, p);
}

TEST(Ir, VerifierRejectsUnmatchedMessages) {
  std::string why;
  auto ps = Exchange();
  ps[1].code[1].bytes = 8;  // rank 1 expects 8 bytes, rank 0 sends 16
  EXPECT_FALSE(VerifyMatching(ps, &why));
  EXPECT_NE(why.find("0 -> 1"), std::string::npos) << why;
  ps = Exchange();
  ps[1].code.erase(ps[1].code.begin() + 1);  // rank 1 never receives
  EXPECT_FALSE(VerifyMatching(ps, &why));
  EXPECT_NE(why.find("1 sent, 0 received"), std::string::npos) << why;
}

TEST(Ir, DocsTableMatchesOpcodesDef) {
  std::ifstream f(std::string(WEFT_SOURCE_DIR) + "/docs/ir.md");
  ASSERT_TRUE(f.good()) << "docs/ir.md missing";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find(OpcodesMarkdown()), std::string::npos)
      << "docs/ir.md's opcode table is out of date; it should read:\n"
      << OpcodesMarkdown();
}

}  // namespace
}  // namespace weft::ir
