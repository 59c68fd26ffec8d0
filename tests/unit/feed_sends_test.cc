// The feeding pass (a reduce cut along the sends it feeds) and waitolder, the wait that leaves
// the newest messages in flight: what each rewrites, what each leaves alone, and the
// verifier's view of messages a waitolder leaves flying.
#include "sched/passes/feed_sends.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "sched/algos/builder.h"
#include "sched/ir/text.h"
#include "sched/ir/verify.h"

namespace weft::sched {
namespace {

using ir::Opcode;

// A reduce of 256 bytes into recv+0 whose result goes out in four 64-byte pieces, one of them
// kept (rank 0 of a radix-4 reduce_scatter step), with receives into scratch beside the sends.
ir::Program FourPieces() {
  Builder b(CollSpec{Coll::kAllReduce, 4, 64, weftFloat32}, 0);
  b.NeedScratch(512);
  b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(256)}, 256);
  for (int q = 1; q < 4; ++q) {
    b.Send(q, RecvAt(q * 64), 64);
    b.Recv(q, ScratchAt((q - 1) * 64), 64);
  }
  b.WaitAll();
  return b.Take();
}

// Per byte of the reduce's destination, how many reduce instructions write it.
std::vector<int> Coverage(const ir::Program& p, uint64_t bytes) {
  std::vector<int> n(bytes, 0);
  for (const ir::Instr& in : p.code) {
    if (in.op != Opcode::kReduce) continue;
    for (uint64_t i = 0; i < in.bytes; ++i) ++n[in.dst.offset + i];
  }
  return n;
}

TEST(FeedSends, EachSendFollowsThePieceThatProducesIt) {
  ir::Program p = FourPieces();
  passes::FeedSends(&p, 4);
  std::string why;
  ASSERT_TRUE(ir::VerifyProgram(p, &why)) << why;
  EXPECT_EQ(Coverage(p, 256), std::vector<int>(256, 1)) << ir::PrintProgram(p);
  // Each send comes after the reduce that writes its bytes, and before the next piece.
  std::vector<uint64_t> reduced;  // bytes reduced so far, by offset
  int reduces_before_first_send = 0;
  bool sent = false;
  for (const ir::Instr& in : p.code) {
    if (in.op == Opcode::kReduce) {
      for (uint64_t i = 0; i < in.bytes; ++i) reduced.push_back(in.dst.offset + i);
      if (!sent) ++reduces_before_first_send;
      EXPECT_EQ(in.srcs[0].offset, in.dst.offset) << "operands move with the piece";
      EXPECT_EQ(in.srcs[1].offset, 256 + in.dst.offset);
    }
    if (in.op == Opcode::kSend) {
      sent = true;
      for (uint64_t i = 0; i < in.bytes; ++i) {
        EXPECT_NE(std::find(reduced.begin(), reduced.end(), in.srcs[0].offset + i), reduced.end())
            << "a send before its bytes are reduced:\n"
            << ir::PrintProgram(p);
      }
    }
  }
  EXPECT_EQ(reduces_before_first_send, 1) << "the first send waits for its own piece only";
  // The piece no send reads (rank 0's own) is reduced last, after every send.
  const ir::Instr* last_reduce = nullptr;
  for (const ir::Instr& in : p.code) {
    if (in.op == Opcode::kReduce) last_reduce = &in;
  }
  ASSERT_NE(last_reduce, nullptr);
  EXPECT_EQ(last_reduce->dst.offset, 0u);
  EXPECT_EQ(last_reduce->bytes, 64u);
}

// Whether the pass leaves the program `build` writes as it was.
bool Unchanged(const std::function<void(Builder&)>& build, CollSpec spec) {
  Builder b(spec, 0);
  b.NeedScratch(512);
  build(b);
  b.WaitAll();
  ir::Program p = b.Take();
  const ir::Program before = p;
  passes::FeedSends(&p, ElemBytes(spec));
  return p == before;
}

TEST(FeedSends, LeavesAloneWhatItCannotProveSafe) {
  const CollSpec floats{Coll::kAllReduce, 4, 64, weftFloat32};
  // A receive into one of the reduce's operands: posted before the later pieces, it could land
  // while they read it.
  EXPECT_TRUE(Unchanged(
      [](Builder& b) {
        b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(256)}, 256);
        b.Send(1, RecvAt(64), 64);
        b.Recv(1, ScratchAt(320), 64);  // inside the reduce's second operand
        b.Send(2, RecvAt(128), 64);
      },
      floats));
  // A send that reads part of the result and bytes beside it.
  EXPECT_TRUE(Unchanged(
      [](Builder& b) {
        b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(256)}, 128);
        b.Send(1, RecvAt(64), 128);
        b.Send(2, RecvAt(0), 32);
      },
      floats));
  // Pieces cut inside an element.
  EXPECT_TRUE(Unchanged(
      [](Builder& b) {
        b.Reduce(RecvAt(0), {SendAt(0), SendAt(0)}, 32);
        b.Send(1, RecvAt(4), 8);
        b.Send(1, RecvAt(16), 8);
      },
      CollSpec{Coll::kAllReduce, 2, 4, weftFloat64}));
  // The check itself: the same shape with whole pieces is rewritten.
  EXPECT_FALSE(Unchanged(
      [](Builder& b) {
        b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(256)}, 256);
        b.Send(1, RecvAt(64), 64);
        b.Send(2, RecvAt(128), 64);
      },
      floats));
}

// A signal after the reduce (telling node peers this rank is done reading their buffers) moves
// after the last piece, never before one: a signal may only come later.
TEST(FeedSends, SignalsMoveAfterTheLastPiece) {
  Builder b(CollSpec{Coll::kAllReduce, 4, 64, weftFloat32}, 0);
  b.Reduce(RecvAt(0), {SendAt(0), PeerSendAt(1, 0)}, 256);
  b.Signal(0);
  for (int q = 1; q < 4; ++q) b.Send(q, RecvAt(q * 64), 64);
  b.WaitAll();
  ir::Program p = b.Take();
  passes::FeedSends(&p, 4);
  size_t signal = 0, last_reduce = 0, first_send = p.code.size();
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (p.code[i].op == Opcode::kSignal) signal = i;
    if (p.code[i].op == Opcode::kReduce) last_reduce = i;
    if (p.code[i].op == Opcode::kSend) first_send = std::min(first_send, i);
  }
  EXPECT_GT(signal, last_reduce) << ir::PrintProgram(p);
  EXPECT_LT(first_send, last_reduce) << "sends start before the reduce ends";
}

// More fed sends than kMaxFeedPieces: the reduce is cut into that many pieces at most.
TEST(FeedSends, ManySendsShareAFewPieces) {
  Builder b(CollSpec{Coll::kAllReduce, 32, 256, weftFloat32}, 0);
  b.NeedScratch(1024);
  b.Reduce(RecvAt(0), {SendAt(0), ScratchAt(0)}, 1024);
  for (int q = 1; q < 32; ++q) b.Send(q, RecvAt(q * 32), 32);
  b.WaitAll();
  ir::Program p = b.Take();
  passes::FeedSends(&p, 4);
  int reduces = 0;
  for (const ir::Instr& in : p.code) reduces += in.op == Opcode::kReduce;
  EXPECT_LE(reduces, passes::kMaxFeedPieces + 1);  // the groups, and the kept piece
  EXPECT_GE(reduces, passes::kMaxFeedPieces);
  EXPECT_EQ(Coverage(p, 1024), std::vector<int>(1024, 1));
}

// waitolder V completes all but the V messages started last: the verifier lets the program
// touch what the completed ones used, and not what the kept ones use.
TEST(Verifier, WaitOlderLeavesTheNewestMessagesInFlight) {
  auto program = [](uint64_t read_at) {
    Builder b(CollSpec{Coll::kAllReduce, 2, 4, weftFloat64}, 0);
    b.NeedScratch(64);
    b.Recv(1, ScratchAt(0), 32);
    b.Recv(1, ScratchAt(32), 32);
    ir::Program p = b.Take();
    ir::Instr older;
    older.op = Opcode::kWaitOlder;
    older.value = 1;
    p.code.push_back(older);
    ir::Instr reduce;
    reduce.op = Opcode::kReduce;
    reduce.dst = RecvAt(0);
    reduce.srcs = {SendAt(0), ScratchAt(read_at)};
    reduce.bytes = 32;
    p.code.push_back(reduce);
    ir::Instr all;
    all.op = Opcode::kWaitAll;
    p.code.push_back(all);
    p.step.clear();
    return p;
  };
  std::string why;
  EXPECT_TRUE(ir::VerifyProgram(program(0), &why)) << why;
  EXPECT_FALSE(ir::VerifyProgram(program(32), &why));
  EXPECT_NE(why.find("while a receive into it is in flight"), std::string::npos) << why;
  // Its text round-trips.
  ir::Program back;
  ASSERT_TRUE(ir::ParseProgram(ir::PrintProgram(program(0)), &back, &why)) << why;
  EXPECT_EQ(ir::PrintProgram(back), ir::PrintProgram(program(0)));
}

}  // namespace
}  // namespace weft::sched
