#include "topo/topology.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

TEST(Topology, TextRoundTrips) {
  Topology t = Topology::FromNodeOfRank({5, 5, 9, 9, 5, 2});
  EXPECT_EQ(t.num_nodes(), 3);
  EXPECT_EQ(t.ranks_of_node[0], (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(t.LocalRank(4), 2);
  Topology back;
  std::string why;
  ASSERT_TRUE(Topology::FromText(t.ToText(), &back, &why)) << why;
  EXPECT_EQ(back, t);
  EXPECT_EQ(back.ToText(), t.ToText());
}

TEST(Topology, RejectsBrokenText) {
  Topology t;
  std::string why;
  EXPECT_FALSE(Topology::FromText("nonsense", &t, &why));
  EXPECT_FALSE(Topology::FromText("weft-topology 1\nranks 3\nnode 0: 0 1\n", &t, &why));
  EXPECT_NE(why.find("rank 2"), std::string::npos);
  EXPECT_FALSE(Topology::FromText("weft-topology 1\nranks 2\nnode 0: 0 0 1\n", &t, &why));
  EXPECT_FALSE(Topology::FromText("weft-topology 1\nranks 2\nnode 0: 0 7\n", &t, &why));
}

TEST(Topology, SplitsIntoVirtualNodes) {
  Topology one = Topology::FromNodeOfRank({0, 0, 0, 0, 0});
  Topology two = one.SplitVirtual(2);
  EXPECT_EQ(two.num_nodes(), 2);
  EXPECT_EQ(two.ranks_of_node[0], (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(two.ranks_of_node[1], (std::vector<int>{3, 4}));
  EXPECT_EQ(one.SplitVirtual(9).num_nodes(), 5);  // never more parts than ranks
  EXPECT_EQ(one.SplitVirtual(0).num_nodes(), 1);
  Topology rr = one.SplitVirtual(2, /*round_robin=*/true);
  EXPECT_EQ(rr.ranks_of_node[0], (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(rr.ranks_of_node[1], (std::vector<int>{1, 3}));
  EXPECT_FALSE(rr.BlockPlaced());
  EXPECT_TRUE(two.BlockPlaced());
}

TEST(Topology, ShapesRoundTrip) {
  for (const char* shape : {"2x4", "2x4:rr", "3+1", "1+3+2", "1x5", "64x64", "5x1"}) {
    Topology t;
    std::string why;
    ASSERT_TRUE(Topology::FromShape(shape, &t, &why)) << shape << ": " << why;
    Topology back;
    ASSERT_TRUE(Topology::FromShape(t.ShapeText(), &back, &why)) << t.ShapeText();
    EXPECT_EQ(back, t) << shape;
  }
  Topology t;
  std::string why;
  ASSERT_TRUE(Topology::FromShape("2x3:rr", &t, &why));
  EXPECT_EQ(t.node_of_rank, (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(t.MaxNodeSize(), 3);
  EXPECT_EQ(Topology::FromNodeOfRank({0, 1, 1, 0}).ShapeText(), "custom");
  for (const char* bad : {"", "x", "0x4", "2x0", "2x", "3+0", "3+:rr", "2x4:r", "99999999x2",
                          "2048x1024", "a+b", "1++1"}) {
    EXPECT_FALSE(Topology::FromShape(bad, &t, &why)) << bad;
  }
}

}  // namespace
}  // namespace weft
