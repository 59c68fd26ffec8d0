// Argument validation against a communicator shell (no MPI traffic is needed to validate).
#include "call/coll_args.h"

#include <gtest/gtest.h>

#include <vector>

namespace weft {
namespace {

class CollArgsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    comm_.rank = 1;
    comm_.size = 4;
  }
  Status Check(CollKind k, const void* s, void* r, size_t n, int root = 0,
               weftDataType_t t = weftFloat32, weftRedOp_t op = weftSum) {
    args_ = CollArgs{k, s, r, n, t, op, root, false};
    return ValidateArgs(comm_, &args_);
  }
  Comm comm_;
  CollArgs args_;
  std::vector<float> buf_ = std::vector<float>(1024);
};

TEST_F(CollArgsTest, InPlaceFormsAreRecognised) {
  float* b = buf_.data();
  ASSERT_EQ(Check(CollKind::kAllReduce, b, b, 10), weftSuccess);
  EXPECT_TRUE(args_.in_place);
  ASSERT_EQ(Check(CollKind::kAllGather, b + 1 * 10, b, 10), weftSuccess);  // rank 1
  EXPECT_TRUE(args_.in_place);
  ASSERT_EQ(Check(CollKind::kReduceScatter, b, b + 1 * 10, 10), weftSuccess);
  EXPECT_TRUE(args_.in_place);
  ASSERT_EQ(Check(CollKind::kAllReduce, b, b + 10, 10), weftSuccess);  // adjacent, no overlap
  EXPECT_FALSE(args_.in_place);
}

TEST_F(CollArgsTest, PartialOverlapIsRejectedWithItsReason) {
  float* b = buf_.data();
  EXPECT_EQ(Check(CollKind::kAllReduce, b, b + 9, 10), weftInvalidArgument);
  EXPECT_NE(comm_.LastError().find("overlap"), std::string::npos);
  EXPECT_EQ(Check(CollKind::kAllGather, b + 5, b, 10), weftInvalidArgument);
  EXPECT_EQ(Check(CollKind::kReduceScatter, b, b + 20, 10),
            weftInvalidArgument);  // rank 1's block is at 10
}

TEST_F(CollArgsTest, RootOnlyBuffers) {
  float* b = buf_.data();
  // Reduce: recvbuff matters at root only; Broadcast: sendbuff at root only.
  EXPECT_EQ(Check(CollKind::kReduce, b, nullptr, 10, /*root=*/0), weftSuccess);
  EXPECT_EQ(Check(CollKind::kReduce, b, nullptr, 10, /*root=*/1), weftInvalidArgument);
  EXPECT_EQ(Check(CollKind::kBroadcast, nullptr, b, 10, 0), weftSuccess);
  EXPECT_EQ(Check(CollKind::kBroadcast, nullptr, b, 10, 1), weftInvalidArgument);
}

TEST_F(CollArgsTest, BadTypesOpsRootsAndSizes) {
  float* b = buf_.data();
  EXPECT_EQ(Check(CollKind::kAllReduce, b, b, 1, 0, static_cast<weftDataType_t>(10)),
            weftInvalidArgument);
  EXPECT_EQ(Check(CollKind::kAllReduce, b, b, 1, 0, weftFloat32, static_cast<weftRedOp_t>(5)),
            weftInvalidArgument);
  EXPECT_EQ(Check(CollKind::kAllGather, b + 1, b, 1, 0, weftFloat32, static_cast<weftRedOp_t>(5)),
            weftSuccess)
      << "ops are ignored where a collective has none";
  EXPECT_EQ(Check(CollKind::kBroadcast, b, b, 1, 4), weftInvalidArgument);
  EXPECT_EQ(Check(CollKind::kSend, b, nullptr, 1, 1), weftInvalidUsage);  // to self
  EXPECT_EQ(Check(CollKind::kAllToAll, b, b + 512, SIZE_MAX / 8), weftInvalidArgument);
  EXPECT_EQ(Check(CollKind::kAllReduce, nullptr, nullptr, 0), weftSuccess);
}

}  // namespace
}  // namespace weft
