#include "comm/program_cache.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

CollArgs Args(const void* send, size_t count, bool in_place = false) {
  CollArgs a;
  a.kind = CollKind::kAllReduce;
  a.send = send;
  a.recv = nullptr;
  a.count = count;
  a.in_place = in_place;
  return a;
}

TEST(ProgramCache, KeysOnTheShapeNotTheBuffers) {
  ProgramCache cache(4);
  int a, b;
  std::unique_ptr<NativeProgram> dropped;
  NativeProgram* p = cache.Keep(Args(&a, 5), std::make_unique<NativeProgram>(), &dropped);
  EXPECT_EQ(cache.Find(Args(&b, 5)), p) << "buffers are bound at run time";
  EXPECT_EQ(cache.Find(Args(&a, 6)), nullptr) << "count is part of the key";
  EXPECT_EQ(cache.Find(Args(&a, 5, true)), nullptr) << "in-place is part of the key";
  CollArgs other = Args(&a, 5);
  other.op = weftMax;
  EXPECT_EQ(cache.Find(other), nullptr) << "op is part of the key";
}

TEST(ProgramCache, EvictsLeastRecentlyUsed) {
  ProgramCache cache(2);
  int a;
  std::unique_ptr<NativeProgram> dropped;
  NativeProgram* p1 = cache.Keep(Args(&a, 1), std::make_unique<NativeProgram>(), &dropped);
  cache.Keep(Args(&a, 2), std::make_unique<NativeProgram>(), &dropped);
  EXPECT_EQ(cache.Find(Args(&a, 1)), p1);                                // 1 is now most recent
  cache.Keep(Args(&a, 3), std::make_unique<NativeProgram>(), &dropped);  // evicts 2
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find(Args(&a, 2)), nullptr);
  EXPECT_EQ(cache.Find(Args(&a, 1)), p1);
}

TEST(ProgramCache, DoesNotKeepLargeScratchOrWhenDisabled) {
  int a;
  std::unique_ptr<NativeProgram> dropped;
  ProgramCache cache(4);
  auto big = std::make_unique<NativeProgram>();
  big->Scratch(ProgramCache::kMaxScratchBytes + 1);
  NativeProgram* run = cache.Keep(Args(&a, 1), std::move(big), &dropped);
  EXPECT_EQ(run, dropped.get());
  EXPECT_EQ(cache.size(), 0u);
  ProgramCache off(0);
  off.Keep(Args(&a, 1), std::make_unique<NativeProgram>(), &dropped);
  EXPECT_EQ(off.size(), 0u);
}

}  // namespace
}  // namespace weft
