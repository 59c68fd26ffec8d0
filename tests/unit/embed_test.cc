// passes::Embed's scattered placement: a part's buffer laid out in blocks at places of the
// composed program's choosing. Element-wise instructions split at block boundaries; messages
// must stay inside one block.
#include "sched/passes/embed.h"

#include <gtest/gtest.h>

#include <string>

#include "sched/ir/program.h"
#include "sched/ir/text.h"

namespace weft::sched::passes {
namespace {

ir::Program Parse(const std::string& text) {
  ir::Program p;
  std::string why;
  EXPECT_TRUE(ir::ParseProgram(text, &p, &why)) << why;
  return p;
}

// Two 8-byte blocks of the part's receive buffer land in reverse order, 100 bytes apart.
EmbedMap Reversed() {
  EmbedMap map{{3, 5}, {ir::Space::kSend, 0, 0}, {ir::Space::kRecv, 0, 0}, 0};
  map.block = 8;
  map.recv_blocks = {{ir::Space::kRecv, 0, 108}, {ir::Space::kRecv, 0, 8}};
  return map;
}

TEST(Embed, SplitsCopiesAndReducesAtScatteredBlockBoundaries) {
  const ir::Program part = Parse(
      "program rank 0 nranks 2 dtype int32 send 16 recv 16 scratch 16 shm 0\n"
      "  copy recv+4, send+0, 8\n"
      "  reduce recv+0, recv+0, scratch+0, 16, sum\n"
      "end\n");
  ir::Program out =
      Parse("program rank 3 nranks 8 dtype int32 send 16 recv 128 scratch 0 shm 0\nend\n");
  ASSERT_TRUE(Scatterable(part, ir::Space::kRecv, 8));
  Embed(part, Reversed(), &out);
  EXPECT_EQ(ir::PrintProgram(out),
            "program rank 3 nranks 8 dtype int32 send 16 recv 128 scratch 16 shm 0\n"
            "  copy recv+112, send+0, 4\n"
            "  copy recv+8, send+4, 4\n"
            "  reduce recv+108, recv+108, scratch+0, 8, sum\n"
            "  reduce recv+8, recv+8, scratch+8, 8, sum\n"
            "end\n");
}

TEST(Embed, MessagesPlaceWithinOneBlockOnly) {
  const ir::Program within = Parse(
      "program rank 0 nranks 2 dtype int8 send 16 recv 16 scratch 0 shm 0\n"
      "  recv 1, recv+8, 8, 0\n"
      "  send 1, recv+0, 8, 0\n"
      "  waitall\n"
      "end\n");
  EXPECT_TRUE(Scatterable(within, ir::Space::kRecv, 8));
  ir::Program out =
      Parse("program rank 3 nranks 8 dtype int8 send 16 recv 128 scratch 0 shm 0\nend\n");
  Embed(within, Reversed(), &out);
  EXPECT_EQ(ir::PrintProgram(out),
            "program rank 3 nranks 8 dtype int8 send 16 recv 128 scratch 0 shm 0\n"
            "  recv 5, recv+8, 8, 0\n"
            "  send 5, recv+108, 8, 0\n"
            "  waitall\n"
            "end\n");
  const ir::Program across = Parse(
      "program rank 0 nranks 2 dtype int8 send 16 recv 16 scratch 0 shm 0\n"
      "  recv 1, recv+4, 8, 0\n"
      "  waitall\n"
      "end\n");
  EXPECT_FALSE(Scatterable(across, ir::Space::kRecv, 8));
  EXPECT_TRUE(Scatterable(across, ir::Space::kSend, 8));  // its send buffer is untouched
  EXPECT_FALSE(Scatterable(across, ir::Space::kRecv, 0));
}

}  // namespace
}  // namespace weft::sched::passes
