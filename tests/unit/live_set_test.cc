// The handle set's lock-free answer for the last handle found, and the spin lock beside it.
#include "core/live_set.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "core/spin_wait.h"

namespace weft {
namespace {

TEST(LiveSet, RemovedHandleIsNotLiveEvenRightAfterALookup) {
  LiveSet<int> set;
  int a = 0, b = 0;
  set.Add(&a);
  set.Add(&b);
  EXPECT_TRUE(set.Contains(&a));
  EXPECT_TRUE(set.Contains(&a)) << "second lookup: the remembered answer";
  set.Remove(&a);
  EXPECT_FALSE(set.Contains(&a)) << "the remembered handle must be forgotten when removed";
  EXPECT_TRUE(set.Contains(&b));
  set.Remove(&b);
  EXPECT_FALSE(set.Contains(&b));
  EXPECT_FALSE(set.Contains(nullptr));
  int never = 0;
  EXPECT_FALSE(set.Contains(&never));
}

TEST(LiveSet, ReAddedAddressIsLiveAgain) {
  LiveSet<int> set;
  int a = 0;
  set.Add(&a);
  EXPECT_TRUE(set.Contains(&a));
  set.Remove(&a);
  EXPECT_FALSE(set.Contains(&a));
  set.Add(&a);  // a new object at a freed address
  EXPECT_TRUE(set.Contains(&a));
}

TEST(LiveSet, ThreadsSeeRemovalOfAnotherThreadsHandle) {
  LiveSet<int> set;
  std::vector<int> objs(8);
  for (int& o : objs) set.Add(&o);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) EXPECT_TRUE(set.Contains(&objs[(t + i) % 4]));
    });
  }
  for (auto& t : ts) t.join();
  for (int i = 4; i < 8; ++i) {
    EXPECT_TRUE(set.Contains(&objs[i]));
    set.Remove(&objs[i]);
    EXPECT_FALSE(set.Contains(&objs[i]));
  }
}

TEST(SpinLock, ExcludesConcurrentWriters) {
  SpinLock lock;
  long counter = 0;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&] {
      for (int i = 0; i < 50000; ++i) {
        std::lock_guard<SpinLock> lk(lock);
        counter = counter + 1;  // a lost update shows up as a short count
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(counter, 4 * 50000);
}

}  // namespace
}  // namespace weft
