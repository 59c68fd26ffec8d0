// Built only with the NCCL path (WEFT_WITH_NCCL): the library it opens at run time loads and
// has every entry point the path calls. The collectives themselves need a GPU
// (scripts/device-check.sh runs the device matrix with WEFT_NCCL=1 where one is).
#include <gtest/gtest.h>
#include <nccl.h>

#include "device/nccl/nccl_coll.h"

namespace weft::device {
namespace {

TEST(NcclPath, LibraryLoadsWithEveryEntryPoint) {
  const int v = NcclRuntimeVersion();
  ASSERT_GT(v, 0) << "libnccl.so.2 did not load, or lacks an entry point (see the INFO log)";
  EXPECT_EQ(v / 10000, NCCL_MAJOR) << "the library's major version differs from nccl.h's";
}

}  // namespace
}  // namespace weft::device
