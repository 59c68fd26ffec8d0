// The device layer's pure pieces: device lists and binding choices, launcher hints, the
// staging pool's reuse and cap, and the emulated backend's copies, bounds and streams.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "device/backend.h"
#include "device/binding.h"
#include "device/emulated/emulated_stream.h"
#include "device/staging_pool.h"

namespace weft::device {
namespace {

TEST(DeviceBinding, ListParsesAndRejectsUnknownIds) {
  std::vector<int> list;
  ASSERT_EQ(ParseDeviceList("", 3, &list), weftSuccess);
  EXPECT_EQ(list, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(ParseDeviceList("2,0", 3, &list), weftSuccess);
  EXPECT_EQ(list, (std::vector<int>{2, 0}));
  EXPECT_EQ(ParseDeviceList("0,3", 3, &list), weftInvalidArgument);
  EXPECT_EQ(ParseDeviceList("0,,1", 3, &list), weftInvalidArgument);
  EXPECT_EQ(ParseDeviceList("x", 3, &list), weftInvalidArgument);
  EXPECT_EQ(ParseDeviceList("-1", 3, &list), weftInvalidArgument);
}

TEST(DeviceBinding, LocalRankModuloDevices) {
  Binding b;
  ASSERT_EQ(ChooseDevice(4, "", 1, 2, &b), weftSuccess);
  EXPECT_EQ(b.device, 1);
  ASSERT_EQ(ChooseDevice(2, "", 3, 4, &b), weftSuccess);  // oversubscribed: shared, with a WARN
  EXPECT_EQ(b.device, 1);
  EXPECT_NE(b.how.find("shared"), std::string::npos);
  ASSERT_EQ(ChooseDevice(4, "3,1", 0, 2, &b), weftSuccess);
  EXPECT_EQ(b.device, 3);
  EXPECT_EQ(ChooseDevice(2, "5", 0, 1, &b), weftInvalidArgument);
}

TEST(DeviceBinding, LauncherHintsInOrder) {
  std::vector<std::string> saved;
  for (const char* v : kLocalRankVars) {
    const char* s = getenv(v);
    saved.push_back(s ? s : "");
    unsetenv(v);
  }
  EXPECT_EQ(LocalRankHint(), -1);
  setenv("SLURM_LOCALID", "5", 1);
  const char* var = nullptr;
  EXPECT_EQ(LocalRankHint(&var), 5);
  EXPECT_STREQ(var, "SLURM_LOCALID");
  setenv("MPI_LOCALRANKID", "2", 1);  // MPICH's comes before Slurm's
  EXPECT_EQ(LocalRankHint(&var), 2);
  EXPECT_STREQ(var, "MPI_LOCALRANKID");
  setenv("MPI_LOCALRANKID", "junk", 1);  // not a number: skipped
  EXPECT_EQ(LocalRankHint(), 5);
  for (size_t i = 0; i < saved.size(); ++i) {
    if (saved[i].empty())
      unsetenv(kLocalRankVars[i]);
    else
      setenv(kLocalRankVars[i], saved[i].c_str(), 1);
  }
}

TEST(StagingPool, ReusesAndHonoursItsCap) {
  std::unique_ptr<Backend> host(MakeHostBackend());
  StagingPool pool(host.get(), 1 << 20);
  StagingBuffer a, b;
  ASSERT_EQ(pool.Acquire(100000, &a), weftSuccess);
  EXPECT_GE(a.size, 100000u);
  pool.Release(a);
  ASSERT_EQ(pool.Acquire(50000, &b), weftSuccess);  // the idle buffer fits: no new allocation
  EXPECT_EQ(b.data, a.data);
  EXPECT_EQ(pool.stats().allocations, 1u);
  pool.Release(b);
  StagingBuffer big;
  ASSERT_EQ(pool.Acquire(4 << 20, &big), weftSuccess);  // above the cap
  EXPECT_EQ(pool.stats().held_bytes, a.size + big.size);
  pool.Release(big);
  EXPECT_LE(pool.stats().idle_bytes, 1u << 20);
  EXPECT_LE(pool.stats().held_bytes, 1u << 20);
  EXPECT_EQ(pool.stats().frees, 1u);
}

TEST(EmulatedBackend, CopiesThroughBackingAndChecksBounds) {
  std::unique_ptr<Backend> emu(MakeEmulatedBackend());
  void* d = nullptr;
  ASSERT_EQ(emu->Alloc(1000, &d), weftSuccess);
  PtrInfo info;
  ASSERT_EQ(emu->Query(static_cast<char*>(d) + 10, &info), weftSuccess);
  EXPECT_EQ(info.kind, MemKind::kDevice);
  EXPECT_EQ(info.base, d);
  EXPECT_EQ(info.size, 1000u);
  std::vector<char> in(1000, 7), out(1000, 0);
  ASSERT_EQ(emu->Copy(d, in.data(), 1000), weftSuccess);
  ASSERT_EQ(emu->Copy(out.data(), d, 1000), weftSuccess);
  EXPECT_EQ(in, out);
  EXPECT_EQ(emu->Copy(out.data(), static_cast<char*>(d) + 500, 600), weftInvalidArgument);
  ASSERT_EQ(emu->Query(in.data(), &info), weftSuccess);
  EXPECT_EQ(info.kind, MemKind::kHost);
  EXPECT_EQ(emu->Free(static_cast<char*>(d) + 1), weftInvalidArgument);
  EXPECT_EQ(emu->Free(d), weftSuccess);
}

TEST(EmulatedBackend, StreamRunsInOrderAndEventsWait) {
  std::unique_ptr<Backend> emu(MakeEmulatedBackend());
  Stream s = nullptr;
  ASSERT_EQ(emu->StreamCreate(&s), weftSuccess);
  std::vector<int> a(1000, 1), b(1000, 0), c(1000, 0);
  static_cast<EmulatedStream*>(s)->Enqueue(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
  ASSERT_EQ(emu->CopyAsync(b.data(), a.data(), sizeof(int) * 1000, s), weftSuccess);
  ASSERT_EQ(emu->CopyAsync(c.data(), b.data(), sizeof(int) * 1000, s), weftSuccess);
  EXPECT_EQ(c[999], 0);  // still queued behind the sleep
  Event e = nullptr;
  ASSERT_EQ(emu->EventCreate(&e), weftSuccess);
  ASSERT_EQ(emu->EventRecord(e, s), weftSuccess);
  ASSERT_EQ(emu->EventSync(e), weftSuccess);
  EXPECT_EQ(c[999], 1);
  int not_a_stream = 0;
  EXPECT_EQ(emu->CheckStream(&not_a_stream), weftInvalidArgument);
  EXPECT_EQ(emu->EventDestroy(e), weftSuccess);
  EXPECT_EQ(emu->StreamDestroy(s), weftSuccess);
}

}  // namespace
}  // namespace weft::device
