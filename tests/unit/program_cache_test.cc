#include "comm/program_cache.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

CollArgs Args(const void* send, size_t count) {
  CollArgs a;
  a.kind = CollKind::kAllReduce;
  a.send = send;
  a.recv = nullptr;
  a.count = count;
  return a;
}

TEST(ProgramCache, FindsOnlyExactCallsAndEvictsLeastRecentlyUsed) {
  ProgramCache cache(2);
  int a, b, c;
  std::unique_ptr<NativeProgram> dropped;
  NativeProgram* pa = cache.Keep(Args(&a, 1), std::make_unique<NativeProgram>(), &dropped);
  cache.Keep(Args(&b, 1), std::make_unique<NativeProgram>(), &dropped);
  EXPECT_EQ(cache.Find(Args(&a, 1)), pa);
  EXPECT_EQ(cache.Find(Args(&a, 2)), nullptr) << "count is part of the key";
  cache.Keep(Args(&c, 1), std::make_unique<NativeProgram>(), &dropped);  // evicts b, not a
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find(Args(&b, 1)), nullptr);
  EXPECT_EQ(cache.Find(Args(&a, 1)), pa);
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
