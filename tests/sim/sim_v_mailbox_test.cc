// The one-node v-collectives (sched/algos/v_mailbox.h) in the simulator, at 1 to 257 ranks:
// alltoallv, allgatherv, gatherv and scatterv, count patterns (uniform, random with zeros,
// skewed, blocks around the mailbox size, all empty, one huge block among small ones), blocks
// in rank order or reversed with gaps, in place (alltoallv, allgatherv; the rooted forms' in
// place runs under mpiexec, mp.vcolls), mailboxes of 0 (every block a message), one cache line
// and the default. Every rank must receive exactly its blocks, leave its gaps and send buffer
// alone and never deadlock; the program built from the rank's own arrays must equal the one
// built from the full matrix, and exactly the blocks larger than the mailbox travel as messages.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sched/algos/v_mailbox.h"
#include "sim/sim.h"
#include "vblocks_matrix.h"

namespace weft::simtest {
namespace {

using sched::VColl;

constexpr uint64_t kBankBytes = 8192;  // as the transport's latency banks

const char* VCollName(VColl c) {
  switch (c) {
    case VColl::kAllToAllV:
      return "alltoallv";
    case VColl::kAllGatherV:
      return "allgatherv";
    case VColl::kGatherV:
      return "gatherv";
    case VColl::kScatterV:
      return "scatterv";
  }
  return "?";
}

struct Case {
  VColl coll;
  int nranks;
  Pattern pattern;
  uint64_t mailbox;
  bool in_place, reversed;
};

std::string CaseName(const Case& c) {
  return std::string(VCollName(c.coll)) + "/P" + std::to_string(c.nranks) + "/" +
         PatternName(c.pattern) + "/mailbox" + std::to_string(c.mailbox) +
         (c.in_place ? "/in_place" : "") + (c.reversed ? "/reversed" : "");
}

// The alltoallv matrix of the pattern, narrowed to what the collective sends: a rank's one
// block to everyone (allgatherv, from offset 0, or in place from its own displacement), to the
// root (gatherv), or the root's blocks (scatterv).
Matrix MakeCollMatrix(const Case& c, int root, std::mt19937& rng) {
  const int P = c.nranks;
  Matrix m = MakeMatrix(P, c.pattern, c.mailbox, c.in_place, c.reversed, rng);
  if (c.coll == VColl::kAllToAllV) return m;
  for (int s = 0; s < P; ++s) {
    for (int d = 0; d < P; ++d) {
      uint64_t b = 0;
      if (c.coll == VColl::kAllGatherV) b = m.bytes[s][s == 0 ? P - 1 : 0];  // the huge one too
      if (c.coll == VColl::kGatherV && d == root) b = m.bytes[s][d];
      if (c.coll == VColl::kScatterV && s == root) b = m.bytes[s][d];
      m.bytes[s][d] = b;
    }
  }
  for (int r = 0; r < P; ++r) {
    std::vector<uint64_t> out(P), in(P);
    for (int x = 0; x < P; ++x) {
      out[x] = m.bytes[r][x];
      in[x] = m.bytes[x][r];
    }
    m.so[r] = Layout(out, c.reversed);
    m.ro[r] = Layout(in, c.reversed);
    if (c.coll == VColl::kAllGatherV) m.so[r].assign(P, c.in_place ? m.ro[r][r] : 0);
    if (c.coll == VColl::kGatherV) m.so[r].assign(P, 0);
    if (c.coll == VColl::kScatterV) m.ro[r].assign(P, 0);
  }
  return m;
}

// Runs one case; "" when every rank got what it should. *messages: the data messages sent;
// *large: the blocks between ranks larger than the mailbox.
std::string RunCase(const Case& c, uint64_t* messages, uint64_t* large) {
  const int P = c.nranks, root = P / 2;
  std::mt19937 rng(static_cast<unsigned>(P * 131 + static_cast<int>(c.pattern)));
  const Matrix m = MakeCollMatrix(c, root, rng);
  std::vector<ir::Program> progs(P);
  std::vector<std::vector<unsigned char>> inputs(P), want(P);
  *large = 0;
  for (int r = 0; r < P; ++r) {
    std::vector<uint64_t> sb(P), rb(P);
    for (int x = 0; x < P; ++x) {
      sb[x] = m.bytes[r][x];
      rb[x] = m.bytes[x][r];
      if (x != r && m.bytes[r][x] > 0 && (c.mailbox == 0 || m.bytes[r][x] > c.mailbox)) ++*large;
    }
    const sched::OwnVBlocks own(r, sb, m.so[r], rb, m.ro[r]);
    sched::VMailboxShape shape;
    shape.coll = c.coll;
    shape.nranks = P;
    shape.rank = r;
    // A gathering rank's send buffer is its one block (in every entry of an allgatherv's row).
    const bool gathers = c.coll == VColl::kAllGatherV || c.coll == VColl::kGatherV;
    shape.send_bytes = gathers ? sb[root] : m.SendExtent(r);
    shape.recv_bytes = m.RecvExtent(r);
    shape.in_place = c.in_place;
    shape.mailbox_bytes = c.mailbox;
    shape.bank_bytes = kBankBytes;
    progs[r] = sched::VMailbox(shape, own);
    if (!(progs[r] == sched::VMailbox(shape, m))) {
      return "rank " + std::to_string(r) + ": the program from its own arrays differs";
    }
    RandomInput(c.in_place, shape.send_bytes, shape.recv_bytes, rng, &inputs[r], &want[r]);
  }
  PlaceBlocks(m, inputs, &want);
  sched::CollSpec spec;
  spec.coll = sched::Coll::kAllToAll;
  spec.nranks = P;
  spec.dtype = weftUint8;
  spec.in_place = c.in_place;
  sim::SimOptions opt;
  opt.inputs = &inputs;
  opt.expected = &want;
  const sim::SimResult res = sim::Simulate(spec, progs, opt);
  if (!res.pass) return res.why;
  *messages = res.messages;
  return "";
}

TEST(VMailbox, EveryCollPatternLayoutAndMailbox) {
  int cases = 0;
  for (VColl coll : {VColl::kAllToAllV, VColl::kAllGatherV, VColl::kGatherV, VColl::kScatterV}) {
    const bool can_in_place = coll == VColl::kAllToAllV || coll == VColl::kAllGatherV;
    for (int P : {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64}) {
      for (Pattern pat : {Pattern::kUniform, Pattern::kRandom, Pattern::kSkewed,
                          Pattern::kAroundDirect, Pattern::kEmpty, Pattern::kOneHuge}) {
        for (uint64_t box :
             {uint64_t{0}, uint64_t{64}, sched::DefaultMailboxBytes(coll, P, kBankBytes)}) {
          if (pat == Pattern::kAroundDirect && box == 0) continue;
          for (int variant = 0; variant < 4; ++variant) {
            const bool in_place = variant % 2 == 1;
            if (in_place && !can_in_place) continue;
            const Case c{coll, P, pat, box, in_place, variant >= 2};
            uint64_t messages = 0, large = 0;
            EXPECT_EQ(RunCase(c, &messages, &large), "") << CaseName(c);
            EXPECT_EQ(messages, large) << CaseName(c);
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 2000);
}

// Past 64 ranks (where oneshot stops): a prime count, the default mailbox out of the banks for
// alltoallv (slot mailboxes), every block small or around a line.
TEST(VMailbox, PrimeRankCountPast64) {
  for (VColl coll : {VColl::kAllToAllV, VColl::kAllGatherV, VColl::kGatherV, VColl::kScatterV}) {
    for (Pattern pat : {Pattern::kRandom, Pattern::kAroundDirect, Pattern::kOneHuge}) {
      for (uint64_t box : {uint64_t{64}, sched::DefaultMailboxBytes(coll, 257, kBankBytes)}) {
        const Case c{coll, 257, pat, box, coll == VColl::kAllToAllV, false};
        uint64_t messages = 0, large = 0;
        EXPECT_EQ(RunCase(c, &messages, &large), "") << CaseName(c);
        EXPECT_EQ(messages, large) << CaseName(c);
      }
    }
  }
}

// The default keeps the program banked while a line per mailbox fits, and depends on the
// collective and the rank count alone.
TEST(VMailbox, DefaultMailbox) {
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllToAllV, 2, kBankBytes), 8128u);
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllToAllV, 3, kBankBytes), 4032u);
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllToAllV, 128, kBankBytes), 64u);
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllToAllV, 129, kBankBytes), 8192u);
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllToAllV, 1000, kBankBytes), 4096u);
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllGatherV, 1000, kBankBytes), 8128u);
  EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kScatterV, 2, kBankBytes), 8128u);
  for (int P = 1; P < 300; ++P) {
    EXPECT_EQ(sched::DefaultMailboxBytes(VColl::kAllToAllV, P, kBankBytes) % 64, 0u) << P;
  }
}

}  // namespace
}  // namespace weft::simtest
