// The one-node reduce_scatterv (sched/algos/v_reduce_scatter.cc) in the simulator, at 1 to 257
// ranks: block patterns (uniform, random with zeros, skewed, around the mailbox size, all empty,
// one huge block among small ones), mailboxes of 0 (every block a message), one cache line and
// the default, in place and not, every dtype family. The op 2x2-matrix product does not
// commute: a rank that reduced its pieces out of rank order would get another product. Every
// rank must receive exactly the rank-order reduction of its block, leave its input alone and
// never deadlock; exactly the blocks larger than the mailbox travel as messages.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "exec/kway_reduce.h"
#include "sched/algos/v_mailbox.h"
#include "sched/ir/program.h"
#include "sim/reference.h"
#include "sim/sim.h"

namespace weft::simtest {
namespace {

using sched::VColl;

constexpr uint64_t kBankBytes = 8192;  // as the transport's latency banks

enum class Blocks { kUniform, kRandom, kSkewed, kAroundMailbox, kEmpty, kOneHuge };

const char* BlocksName(Blocks b) {
  static const char* k[] = {"uniform", "random", "skewed", "around_mailbox", "empty", "one_huge"};
  return k[static_cast<int>(b)];
}

struct Case {
  int nranks;
  Blocks blocks;
  uint64_t mailbox;
  bool in_place;
  weftDataType_t dtype;
  weftRedOp_t op;
};

std::string CaseName(const Case& c) {
  return "P" + std::to_string(c.nranks) + "/" + BlocksName(c.blocks) + "/mailbox" +
         std::to_string(c.mailbox) + (c.in_place ? "/in_place" : "") + "/dtype" +
         std::to_string(static_cast<int>(c.dtype)) + "/op" + std::to_string(static_cast<int>(c.op));
}

// Block q's bytes (whole elements of es bytes), the same array every rank passes.
std::vector<uint64_t> MakeBlocks(const Case& c, uint64_t es, std::mt19937& rng) {
  std::vector<uint64_t> elems(c.nranks, 0);
  for (int q = 0; q < c.nranks; ++q) {
    switch (c.blocks) {
      case Blocks::kUniform:
        elems[q] = 3;
        break;
      case Blocks::kRandom:
        elems[q] = rng() % 3 == 0 ? 0 : rng() % 40;
        break;
      case Blocks::kSkewed:
        elems[q] = q % 4 == 0 ? 300 + rng() % 50 : rng() % 5;
        break;
      case Blocks::kAroundMailbox:
        elems[q] = c.mailbox / es - 1 + rng() % 3;
        break;
      case Blocks::kEmpty:
        break;
      case Blocks::kOneHuge:  // the last rank's block: 256 Ki elements and 3
        elems[q] = q == c.nranks - 1 ? (1u << 18) + 3 : rng() % 3 == 0 ? 0 : rng() % 40;
        break;
    }
  }
  for (auto& e : elems) e *= es;
  return elems;
}

// Runs one case; "" when every rank got what it should. *messages: the data messages sent;
// *large: the blocks between ranks larger than the mailbox.
std::string RunCase(const Case& c, uint64_t* messages, uint64_t* large) {
  const int P = c.nranks;
  std::mt19937 rng(static_cast<unsigned>(P * 131 + static_cast<int>(c.blocks)));
  sched::CollSpec spec;
  spec.coll = sched::Coll::kReduceScatter;
  spec.nranks = P;
  spec.dtype = c.dtype;
  spec.op = c.op;
  spec.in_place = c.in_place;
  const uint64_t es = sched::ElemBytes(spec);
  const std::vector<uint64_t> blocks = MakeBlocks(c, es, rng);
  std::vector<uint64_t> at(P + 1, 0);
  for (int q = 0; q < P; ++q) at[q + 1] = at[q] + blocks[q];
  std::vector<ir::Program> progs(P);
  std::vector<std::vector<unsigned char>> inputs(P), want(P);
  *large = 0;
  for (int r = 0; r < P; ++r) {
    sched::VMailboxShape shape;
    shape.coll = VColl::kReduceScatterV;
    shape.nranks = P;
    shape.rank = r;
    shape.send_bytes = at[P];
    shape.recv_bytes = blocks[r];
    shape.in_place = c.in_place;
    shape.mailbox_bytes = c.mailbox;
    shape.bank_bytes = kBankBytes;
    shape.dtype = c.dtype;
    shape.op = c.op;
    progs[r] = sched::VMailboxReduceScatter(shape, blocks);
    inputs[r].resize(at[P]);
    sim::FillInput(spec, r, 7, inputs[r].data(), at[P]);
    for (int d = 0; d < P; ++d) {
      if (d != r && blocks[d] > 0 && (c.mailbox == 0 || blocks[d] > c.mailbox)) ++*large;
    }
  }
  for (int q = 0; q < P; ++q) {
    std::vector<const void*> pieces;
    for (int s = 0; s < P; ++s) pieces.push_back(inputs[s].data() + at[q]);
    want[q].resize(blocks[q]);
    if (blocks[q] > 0) {
      KWayReduce(want[q].data(), pieces.data(), P, blocks[q] / es, c.dtype, c.op);
    }
  }
  std::vector<uint64_t> recv_at(at.begin(), at.end() - 1);
  sim::SimOptions opt;
  opt.inputs = &inputs;
  opt.expected = &want;
  opt.in_place_recv_at = &recv_at;
  const sim::SimResult res = sim::Simulate(spec, progs, opt);
  if (!res.pass) return res.why;
  *messages = res.messages;
  return "";
}

void RunAndCheck(const Case& c) {
  uint64_t messages = 0, large = 0;
  EXPECT_EQ(RunCase(c, &messages, &large), "") << CaseName(c);
  EXPECT_EQ(messages, large) << CaseName(c);
}

std::vector<uint64_t> Mailboxes(int P) {
  return {0, 64, sched::DefaultMailboxBytes(VColl::kReduceScatterV, P, kBankBytes)};
}

// Every pattern, mailbox and rank count with the order-sensitive op and with fp32 sums.
TEST(VReduceScatter, EveryPatternMailboxAndRankCount) {
  int cases = 0;
  for (auto [dtype, op] :
       {std::pair{weftUint64, ir::kOpMatMul2x2}, std::pair{weftFloat32, weftSum}}) {
    for (int P : {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 64}) {
      for (Blocks pat : {Blocks::kUniform, Blocks::kRandom, Blocks::kSkewed, Blocks::kAroundMailbox,
                         Blocks::kEmpty, Blocks::kOneHuge}) {
        if (pat == Blocks::kOneHuge && P > 16) continue;  // P MiB of input per rank
        for (uint64_t box : Mailboxes(P)) {
          if (pat == Blocks::kAroundMailbox && box == 0) continue;
          for (bool in_place : {false, true}) {
            RunAndCheck({P, pat, box, in_place, dtype, op});
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_GT(cases, 500);
}

// Every dtype family with each op, at a prime and a power of two (an average runs on the native
// path: programs have no division).
TEST(VReduceScatter, EveryDtypeAndOp) {
  for (weftDataType_t t : {weftInt8, weftUint8, weftInt32, weftUint32, weftInt64, weftUint64,
                           weftFloat16, weftBfloat16, weftFloat32, weftFloat64}) {
    for (weftRedOp_t op : {weftSum, weftProd, weftMax, weftMin}) {
      for (int P : {3, 8}) {
        for (uint64_t box : Mailboxes(P)) RunAndCheck({P, Blocks::kRandom, box, P == 3, t, op});
      }
    }
  }
}

// Past 64 ranks: a prime count, slot mailboxes (the default out of the banks) and one line.
TEST(VReduceScatter, PrimeRankCountPast64) {
  for (Blocks pat : {Blocks::kRandom, Blocks::kAroundMailbox}) {
    for (uint64_t box : {uint64_t{64}, Mailboxes(257)[2]}) {
      RunAndCheck({257, pat, box, pat == Blocks::kRandom, weftUint64, ir::kOpMatMul2x2});
    }
  }
}

}  // namespace
}  // namespace weft::simtest
