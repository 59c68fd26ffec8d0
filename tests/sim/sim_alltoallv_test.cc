// The node-aware alltoallv (sched/algos/node_alltoallv.h) in the simulator: both stages, the
// count exchange and then the data program each rank builds from what the exchange told it,
// over every placement (block, round-robin, uneven, one rank per node, scrambled), count
// patterns (uniform, random with zeros, skewed, blocks around the direct threshold, all empty),
// blocks in rank order or reversed with gaps, in place, and waitall grouping. Every rank must
// receive exactly its blocks, leave its gaps and send buffer alone, and never deadlock; the
// programs built from the rank's partial view must equal those built from the full matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sched/algos/node_alltoallv.h"
#include "sched/algos/node_partners.h"
#include "sim/sim.h"
#include "sim_families.h"
#include "vblocks_matrix.h"

namespace weft::simtest {
namespace {

using sched::NodeAllToAllVShape;

struct Case {
  std::shared_ptr<const Topology> nodes;
  Pattern pattern;
  uint64_t direct;
  int rounds;
  bool in_place, reversed;
};

std::string CaseName(const Case& c) {
  return c.nodes->ShapeText() + "/" + PatternName(c.pattern) + "/direct" +
         std::to_string(c.direct) + "/w" + std::to_string(c.rounds) +
         (c.in_place ? "/in_place" : "") + (c.reversed ? "/reversed" : "");
}

sched::CollSpec BytesSpec(const Topology& t, bool in_place) {
  sched::CollSpec spec;
  spec.coll = sched::Coll::kAllToAll;
  spec.nranks = t.nranks;
  spec.dtype = weftUint8;
  spec.in_place = in_place;
  return spec;
}

std::vector<unsigned char> AsBytes(const std::vector<uint64_t>& v) {
  std::vector<unsigned char> out(v.size() * 8);
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Runs both stages; "" when every rank got what it should.
std::string RunCase(const Case& c, uint64_t* data_messages) {
  const Topology& t = *c.nodes;
  const int P = t.nranks;
  std::mt19937 rng(static_cast<unsigned>(P * 131 + static_cast<int>(c.pattern)));
  const Matrix m = MakeMatrix(P, c.pattern, c.direct, c.in_place, c.reversed, rng);

  // Stage 1: the count exchange.
  std::vector<ir::Program> counts(P);
  std::vector<std::vector<unsigned char>> tables(P), want_tables(P);
  for (int r = 0; r < P; ++r) {
    counts[r] = sched::NodeAllToAllVCounts(t, r);
    tables[r] = AsBytes(sched::VCountsTable(t, r, m.bytes[r]));
    if (tables[r].size() != counts[r].send_bytes)
      return "rank " + std::to_string(r) + ": table size";
    // What node peer s tells r: s's sizes for the destinations r forwards to, peers in order.
    std::vector<uint64_t> want;
    const int n = t.node_of_rank[r], i = t.LocalRank(r);
    for (int s = 0; s < static_cast<int>(t.ranks_of_node[n].size()); ++s) {
      if (s == i) continue;
      for (int d : sched::ServedBy(t, n, i)) want.push_back(m.bytes[t.ranks_of_node[n][s]][d]);
    }
    want_tables[r] = AsBytes(want);
  }
  sim::SimOptions opt;
  opt.inputs = &tables;
  opt.expected = &want_tables;
  sim::SimResult res = sim::Simulate(BytesSpec(t, false), counts, opt);
  if (!res.pass) return "count exchange: " + res.why;

  // Stage 2: each rank's program from its own view, which must equal the full matrix's.
  std::vector<ir::Program> data(P);
  std::vector<std::vector<unsigned char>> inputs(P), want(P);
  for (int r = 0; r < P; ++r) {
    std::vector<uint64_t> sb(P), rb(P), peer(want_tables[r].size() / 8);
    for (int x = 0; x < P; ++x) {
      sb[x] = m.bytes[r][x];
      rb[x] = m.bytes[x][r];
    }
    if (!peer.empty()) std::memcpy(peer.data(), want_tables[r].data(), want_tables[r].size());
    const sched::RankVBlocks view(t, r, sb, m.so[r], rb, m.ro[r], peer);
    NodeAllToAllVShape shape;
    shape.nodes = &t;
    shape.rank = r;
    shape.send_bytes = m.SendExtent(r);
    shape.recv_bytes = m.RecvExtent(r);
    shape.in_place = c.in_place;
    shape.direct_bytes = c.direct;
    shape.rounds_per_wait = c.rounds;
    data[r] = sched::NodeAllToAllV(shape, view);
    if (!(data[r] == sched::NodeAllToAllV(shape, m))) {
      return "rank " + std::to_string(r) + ": the program from its own view differs";
    }
    RandomInput(c.in_place, shape.send_bytes, shape.recv_bytes, rng, &inputs[r], &want[r]);
  }
  PlaceBlocks(m, inputs, &want);
  sim::SimOptions data_opt;
  data_opt.inputs = &inputs;
  data_opt.expected = &want;
  res = sim::Simulate(BytesSpec(t, c.in_place), data, data_opt);
  if (!res.pass) return "data: " + res.why;
  *data_messages = res.messages;
  return "";
}

TEST(NodeAllToAllV, EveryPlacementPatternAndLayout) {
  std::vector<std::shared_ptr<const Topology>> places;
  for (const char* s : {"2x1", "2x2", "2x3", "3x2", "2x2:rr", "2x3:rr", "4x3:rr", "3+1", "1+3",
                        "1+2+3", "5+1+2", "4x4", "8x2:rr", "7x3", "16x1"}) {
    places.push_back(Shape(s));
  }
  places.push_back(Scrambled(11, 1));
  places.push_back(Scrambled(23, 2));
  int cases = 0;
  for (const auto& nodes : places) {
    for (Pattern pat : {Pattern::kUniform, Pattern::kRandom, Pattern::kSkewed,
                        Pattern::kAroundDirect, Pattern::kEmpty}) {
      for (uint64_t direct : {uint64_t{0}, uint64_t{64}, uint64_t{8192}}) {
        if (pat == Pattern::kAroundDirect && direct == 0) continue;
        for (int variant = 0; variant < 4; ++variant) {
          const Case c{nodes, pat, direct, variant % 2 == 0 ? 1 : 4, variant == 3, variant >= 2};
          uint64_t messages = 0;
          EXPECT_EQ(RunCase(c, &messages), "") << CaseName(c);
          ++cases;
        }
      }
    }
  }
  EXPECT_GT(cases, 900);
}

// With small equal blocks on equal nodes a rank sends 2(L-1) messages inside its node and one
// per other node (pairwise: P-1); with every block direct it is pairwise.
TEST(NodeAllToAllV, MessagesPerRank) {
  for (const char* s : {"4x4", "4x4:rr", "8x2"}) {
    const auto nodes = Shape(s);
    const int P = nodes->nranks, N = nodes->num_nodes();
    const int L = static_cast<int>(nodes->ranks_of_node[0].size());
    uint64_t messages = 0;
    ASSERT_EQ(RunCase({nodes, Pattern::kUniform, 8192, 4, false, false}, &messages), "") << s;
    EXPECT_EQ(messages, static_cast<uint64_t>(P) * (2 * (L - 1) + (N - 1))) << s;
    ASSERT_EQ(RunCase({nodes, Pattern::kUniform, 1, 4, false, false}, &messages), "") << s;
    EXPECT_EQ(messages, static_cast<uint64_t>(P) * (P - 1)) << s;
  }
}

}  // namespace
}  // namespace weft::simtest
