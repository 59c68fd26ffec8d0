#include "coll/program_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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

// An empty native program as the cache holds it.
std::unique_ptr<Executable> Native() {
  return std::make_unique<Executable>(std::make_unique<NativeProgram>());
}

TEST(ProgramCache, KeysOnTheShapeNotTheBuffers) {
  ProgramCache cache(4);
  int a, b;
  ProgramRef p = cache.Keep(Args(&a, 5), Native());
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
  ProgramRef p1 = cache.Keep(Args(&a, 1), Native());
  cache.Keep(Args(&a, 2), Native());
  EXPECT_EQ(cache.Find(Args(&a, 1)), p1);  // 1 is now most recent
  cache.Keep(Args(&a, 3), Native());       // evicts 2
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Find(Args(&a, 2)), nullptr);
  EXPECT_EQ(cache.Find(Args(&a, 1)), p1);
}

TEST(ProgramCache, DoesNotKeepLargeScratchOrWhenDisabled) {
  int a;
  ProgramCache cache(4);
  auto native = std::make_unique<NativeProgram>();
  native->Scratch(ProgramCache::kMaxScratchBytes + 1);
  auto big = std::make_unique<Executable>(std::move(native));
  Executable* raw = big.get();
  ProgramRef run = cache.Keep(Args(&a, 1), std::move(big));
  EXPECT_EQ(run.get(), raw) << "a program not kept is still returned to run";
  EXPECT_EQ(cache.size(), 0u);
  ProgramCache off(0);
  off.Keep(Args(&a, 1), Native());
  EXPECT_EQ(off.size(), 0u);
}

// Threads that miss on one shape each keep a program: each must get one it can run (before,
// the second insert destroyed its own program and returned it dangling), and the shape holds
// them as instances, the first of which blocking calls find.
TEST(ProgramCache, ThreadsMissingOnOneShapeEachGetALiveProgram) {
  int a;
  for (int round = 0; round < 50; ++round) {
    ProgramCache cache(4);
    constexpr int kThreads = 4;
    std::vector<ProgramRef> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        got[t] = cache.Find(Args(&a, 7));
        if (got[t] == nullptr) got[t] = cache.Keep(Args(&a, 7), Native());
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(cache.size(), 1u);
    ProgramRef first = cache.Find(Args(&a, 7));
    ASSERT_NE(first, nullptr);
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_NE(got[t], nullptr) << "thread " << t;
      EXPECT_EQ(got[t]->scratch_bytes(), 0u) << "a live program";
    }
  }
}

// A program whose one step "issues" without a request: Start leaves it active until tested.
std::unique_ptr<Executable> StartableProgram() {
  auto p = std::make_unique<NativeProgram>();
  NativeStep step;
  step.call = [](const Bind&, MPI_Request* req) {
    if (req != nullptr) *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  };
  p->steps.push_back(step);
  return std::make_unique<Executable>(std::move(p));
}

// Nonblocking calls of one shape in flight together each run their own instance: FindIdle
// skips running ones, and a shape keeps at most kMaxInstances.
TEST(ProgramCache, FindIdleSkipsRunningInstances) {
  int a;
  weftComm comm;
  ProgramCache cache(4);
  std::vector<ProgramRef> running;
  for (size_t i = 0; i < ProgramCache::kMaxInstances + 2; ++i) {
    ASSERT_EQ(cache.FindIdle(Args(&a, 9)), nullptr) << "every kept instance is running";
    ProgramRef p = cache.Keep(Args(&a, 9), StartableProgram());
    ASSERT_EQ(p->Start(comm, Bind{}), weftSuccess);
    ASSERT_TRUE(p->active());
    running.push_back(p);
  }
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.Find(Args(&a, 9)), running[0]) << "blocking calls find the first instance";
  for (size_t i = ProgramCache::kMaxInstances; i < running.size(); ++i) {
    EXPECT_EQ(running[i].use_count(), 1) << "instances past the limit are not kept";
  }
  running[3]->Abandon();  // no longer active
  EXPECT_EQ(cache.FindIdle(Args(&a, 9)), running[3]);
}

// A program held by a running thread outlives its eviction and a Clear.
TEST(ProgramCache, EvictionDoesNotFreeAProgramInUse) {
  int a;
  ProgramCache cache(1);
  auto native = std::make_unique<NativeProgram>();
  native->Scratch(64);
  ProgramRef running = cache.Keep(Args(&a, 1), std::make_unique<Executable>(std::move(native)));
  cache.Keep(Args(&a, 2), Native());  // evicts shape 1
  EXPECT_EQ(cache.Find(Args(&a, 1)), nullptr);
  cache.Clear();
  EXPECT_EQ(running.use_count(), 1) << "the caller's reference is the last one";
  EXPECT_EQ(running->scratch_bytes(), 64u) << "still a live program";
}

}  // namespace
}  // namespace weft
