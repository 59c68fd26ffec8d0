// Every collective x every type x every op x in-place/out-of-place x counts {0, 1, odd,
// more than a page} x every root, checked against mp_check.h's reference. Buffers carry guard
// zones that must come back untouched, and reduction results must be bitwise equal on all
// ranks. Options: --quick (fewer counts), --seed N, --memory host|device|mixed|shared (device:
// every buffer is device memory of the active backend, guard zones included, and calls go on a
// stream; mixed: one side of each call on the device, the other on the host, alternating by
// call and by rank, so ranks of one call differ too; default stream; shared: every buffer is
// carved from one weftMemAlloc arena, with counts past the zero-copy threshold, and a plan
// must report the zerocopy schedule), --counts a,b,... (instead of the default counts). Where
// WEFT_RECIPE forces a cma node level, a plan must report it.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mp_check.h"

namespace {

using mpt::Report;

constexpr size_t kGuard = 64;  // bytes of sentinel on each side of every buffer
constexpr unsigned char kSentinel = 0xA5;

enum class Memory { kHost, kDevice, kMixed, kShared };
Memory g_memory = Memory::kHost;
int g_buffers = 0;  // buffers made so far (mixed mode alternates on it, and on the rank)
int g_rank = 0;
bool g_device_ok = true;

// --memory shared: buffers are carved from this weftMemAlloc arena, last made first freed.
constexpr size_t kArenaBytes = 64u << 20;
unsigned char* g_arena = nullptr;
size_t g_arena_used = 0;

// A buffer of `bytes` with guard zones; data() points past the front guard. In device modes
// it has a device mirror (guards included): Up() before a call, Down() after, and At() maps a
// host pointer into the buffer to the address the call is given.
class Guarded {
 public:
  explicit Guarded(size_t bytes)
      : own_(g_arena ? 0 : bytes + 2 * kGuard, kSentinel), bytes_(bytes) {
    mem_ = own_.data();
    if (g_arena != nullptr) {
      taken_ = (bytes + 2 * kGuard + 63) / 64 * 64;
      if (g_arena_used + taken_ > kArenaBytes) std::abort();  // the test's own sizing is wrong
      mem_ = g_arena + g_arena_used;
      g_arena_used += taken_;
      std::memset(mem_, kSentinel, bytes + 2 * kGuard);
    }
    const int i = g_buffers++;
    if (g_memory == Memory::kDevice ||
        (g_memory == Memory::kMixed && (i + i / 2 + g_rank) % 2 == 1)) {
      g_device_ok &= weftDeviceMalloc(&dev_, bytes_ + 2 * kGuard) == weftSuccess;
    }
  }
  ~Guarded() {
    weftDeviceFree(dev_);
    g_arena_used -= taken_;
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  unsigned char* data() { return mem_ + kGuard; }
  void* At(void* host) {
    if (dev_ == nullptr || host == nullptr) return host;
    return static_cast<unsigned char*>(dev_) + (static_cast<unsigned char*>(host) - mem_);
  }
  void Up() {
    if (dev_) g_device_ok &= weftDeviceMemcpy(dev_, mem_, bytes_ + 2 * kGuard) == weftSuccess;
  }
  void Down() {
    if (dev_) g_device_ok &= weftDeviceMemcpy(mem_, dev_, bytes_ + 2 * kGuard) == weftSuccess;
  }
  bool GuardsIntact() const {
    for (size_t i = 0; i < kGuard; ++i) {
      if (mem_[i] != kSentinel || mem_[kGuard + bytes_ + i] != kSentinel) return false;
    }
    return true;
  }

 private:
  std::vector<unsigned char> own_;
  unsigned char* mem_ = nullptr;
  size_t bytes_, taken_ = 0;
  void* dev_ = nullptr;
};

// Both buffers of a call mirrored up on creation; Down() after the call.
struct Mirror {
  Guarded &a, &b;
  Mirror(Guarded& x, Guarded& y) : a(x), b(y) {
    a.Up();
    b.Up();
  }
  void Down() {
    a.Down();
    b.Down();
  }
};

struct Ctx {
  weftComm_t comm;
  MPI_Comm mpi;
  int rank, size;
  uint64_t seed;
  Report* report;
  weftStream_t stream = nullptr;
};

std::string Name(const char* coll, weftDataType_t t, int op, bool in_place, size_t n,
                 int root = -1) {
  std::string s = std::string(coll) + " type=" + mpt::TName(t);
  if (op >= 0) s += std::string(" op=") + mpt::OName(static_cast<weftRedOp_t>(op));
  s += std::string(" ") + (in_place ? "in-place" : "out-of-place") + " count=" + std::to_string(n);
  if (root >= 0) s += " root=" + std::to_string(root);
  return s;
}

std::string Status(weftResult_t r, weftComm_t c) {
  return std::string(weftGetErrorString(r)) + ": " + weftGetLastError(c);
}

void AllReduce(Ctx& x, weftDataType_t t, weftRedOp_t op, bool in_place, size_t n) {
  const size_t es = mpt::TypeBytes(t), bytes = n * es;
  Guarded send(bytes), recv(bytes);
  mpt::Fill(t, op, x.rank, x.seed, send.data(), n);
  void* out = in_place ? send.data() : recv.data();
  Mirror m(send, recv);
  weftResult_t r = weftAllReduce(send.At(send.data()), in_place ? send.At(out) : recv.At(out), n, t,
                                 op, x.comm, x.stream);
  m.Down();
  std::string first, name = Name("allreduce", t, op, in_place, n);
  if (r != weftSuccess) return x.report->Case(false, name, Status(r, x.comm));
  size_t wrong = mpt::CountWrong(t, op, x.size, x.seed, out, n, 0, &first);
  bool same = mpt::SameOnAllRanks(x.mpi, out, bytes);
  x.report->Case(
      wrong == 0 && same && send.GuardsIntact() && recv.GuardsIntact(), name,
      wrong ? first : (!same ? "results differ between ranks" : "guard zone overwritten"));
}

void Reduce(Ctx& x, weftDataType_t t, weftRedOp_t op, bool in_place, size_t n, int root) {
  const size_t es = mpt::TypeBytes(t), bytes = n * es;
  Guarded send(bytes), recv(bytes);
  mpt::Fill(t, op, x.rank, x.seed, send.data(), n);
  const bool is_root = x.rank == root;
  // Non-roots pass NULL: recvbuff is only used at root.
  void* out = is_root ? (in_place ? send.data() : recv.data()) : nullptr;
  Mirror m(send, recv);
  weftResult_t r = weftReduce(send.At(send.data()), in_place ? send.At(out) : recv.At(out), n, t,
                              op, root, x.comm, x.stream);
  m.Down();
  std::string first, name = Name("reduce", t, op, in_place, n, root);
  if (r != weftSuccess) return x.report->Case(false, name, Status(r, x.comm));
  size_t wrong = is_root ? mpt::CountWrong(t, op, x.size, x.seed, out, n, 0, &first) : 0;
  x.report->Case(wrong == 0 && send.GuardsIntact() && recv.GuardsIntact(), name,
                 wrong ? first : "guard zone overwritten");
}

void ReduceScatter(Ctx& x, weftDataType_t t, weftRedOp_t op, bool in_place, size_t n) {
  const size_t es = mpt::TypeBytes(t), block = n * es;
  Guarded send(block * x.size), recv(block);
  mpt::Fill(t, op, x.rank, x.seed, send.data(), n * x.size);
  void* out = in_place ? send.data() + x.rank * block : recv.data();
  Mirror m(send, recv);
  weftResult_t r = weftReduceScatter(send.At(send.data()), in_place ? send.At(out) : recv.At(out),
                                     n, t, op, x.comm, x.stream);
  m.Down();
  std::string first, name = Name("reduce_scatter", t, op, in_place, n);
  if (r != weftSuccess) return x.report->Case(false, name, Status(r, x.comm));
  size_t wrong = mpt::CountWrong(t, op, x.size, x.seed, out, n, x.rank * n, &first);
  x.report->Case(wrong == 0 && send.GuardsIntact() && recv.GuardsIntact(), name,
                 wrong ? first : "guard zone overwritten");
}

// Expected bytes of `rank`'s input block for data movement (the Sum inputs).
std::vector<unsigned char> Block(weftDataType_t t, int rank, uint64_t seed, size_t n) {
  std::vector<unsigned char> b(n * mpt::TypeBytes(t) + 1);
  mpt::Fill(t, weftSum, rank, seed, b.data(), n);
  b.pop_back();
  return b;
}

void AllGather(Ctx& x, weftDataType_t t, bool in_place, size_t n) {
  const size_t block = n * mpt::TypeBytes(t);
  Guarded send(block), recv(block * x.size);
  auto mine = Block(t, x.rank, x.seed, n);
  unsigned char* src = in_place ? recv.data() + x.rank * block : send.data();
  if (block) std::memcpy(src, mine.data(), block);
  Mirror m(send, recv);
  weftResult_t r = weftAllGather(in_place ? recv.At(src) : send.At(src), recv.At(recv.data()), n, t,
                                 x.comm, x.stream);
  m.Down();
  std::string name = Name("allgather", t, -1, in_place, n);
  if (r != weftSuccess) return x.report->Case(false, name, Status(r, x.comm));
  bool ok = true;
  for (int p = 0; p < x.size && block; ++p) {
    ok &= std::memcmp(recv.data() + p * block, Block(t, p, x.seed, n).data(), block) == 0;
  }
  x.report->Case(ok && send.GuardsIntact() && recv.GuardsIntact(), name,
                 ok ? "guard zone overwritten" : "wrong block");
}

void Broadcast(Ctx& x, weftDataType_t t, bool in_place, size_t n, int root) {
  const size_t bytes = n * mpt::TypeBytes(t);
  Guarded send(bytes), recv(bytes);
  auto want = Block(t, root, x.seed, n);
  if (x.rank == root && bytes)
    std::memcpy(in_place ? recv.data() : send.data(), want.data(), bytes);
  // Non-roots pass NULL as sendbuff: it is only read at root.
  void* sb = x.rank == root ? (in_place ? recv.data() : send.data()) : nullptr;
  Mirror m(send, recv);
  weftResult_t r = weftBroadcast(in_place ? recv.At(sb) : send.At(sb), recv.At(recv.data()), n, t,
                                 root, x.comm, x.stream);
  m.Down();
  std::string name = Name("broadcast", t, -1, in_place, n, root);
  if (r != weftSuccess) return x.report->Case(false, name, Status(r, x.comm));
  bool ok = bytes == 0 || std::memcmp(recv.data(), want.data(), bytes) == 0;
  x.report->Case(ok && send.GuardsIntact() && recv.GuardsIntact(), name,
                 ok ? "guard zone overwritten" : "wrong data");
}

void AllToAll(Ctx& x, weftDataType_t t, bool in_place, size_t n) {
  const size_t block = n * mpt::TypeBytes(t);
  Guarded send(block * x.size), recv(block * x.size);
  // Block p of rank r's input: Fill of "rank" r * 1000 + p.
  unsigned char* src = in_place ? recv.data() : send.data();
  for (int p = 0; p < x.size && block; ++p) {
    std::memcpy(src + p * block, Block(t, x.rank * 1000 + p, x.seed, n).data(), block);
  }
  Mirror m(send, recv);
  weftResult_t r = weftAllToAll(in_place ? recv.At(src) : send.At(src), recv.At(recv.data()), n, t,
                                x.comm, x.stream);
  m.Down();
  std::string name = Name("alltoall", t, -1, in_place, n);
  if (r != weftSuccess) return x.report->Case(false, name, Status(r, x.comm));
  bool ok = true;
  for (int p = 0; p < x.size && block; ++p) {
    ok &= std::memcmp(recv.data() + p * block, Block(t, p * 1000 + x.rank, x.seed, n).data(),
                      block) == 0;
  }
  x.report->Case(ok && send.GuardsIntact() && recv.GuardsIntact(), name,
                 ok ? "guard zone overwritten" : "wrong block");
}

// Each rank sends to rank+1 and receives from rank-1 (even ranks send first).
void SendRecv(Ctx& x, weftDataType_t t, size_t n) {
  if (x.size < 2) return;
  const size_t bytes = n * mpt::TypeBytes(t);
  const int to = (x.rank + 1) % x.size, from = (x.rank + x.size - 1) % x.size;
  auto mine = Block(t, x.rank, x.seed, n);
  Guarded send(bytes), recv(bytes);
  if (bytes) std::memcpy(send.data(), mine.data(), bytes);
  Mirror m(send, recv);
  weftResult_t r1, r2;
  if (x.rank % 2 == 0) {
    r1 = weftSend(send.At(send.data()), n, t, to, x.comm, x.stream);
    r2 = weftRecv(recv.At(recv.data()), n, t, from, x.comm, x.stream);
  } else {
    r2 = weftRecv(recv.At(recv.data()), n, t, from, x.comm, x.stream);
    r1 = weftSend(send.At(send.data()), n, t, to, x.comm, x.stream);
  }
  m.Down();
  std::string name = Name("send/recv", t, -1, false, n);
  if (r1 != weftSuccess || r2 != weftSuccess)
    return x.report->Case(false, name, Status(r1 ? r1 : r2, x.comm));
  bool ok = bytes == 0 || std::memcmp(recv.data(), Block(t, from, x.seed, n).data(), bytes) == 0;
  x.report->Case(ok && recv.GuardsIntact(), name, ok ? "guard zone overwritten" : "wrong data");
}

// With every buffer in the arena, a large allreduce plan takes the zerocopy schedule; bad
// weftMemAlloc / weftMemFree calls fail cleanly on every rank.
// A plan of a 70,001-element allreduce of doubles (past the zero-copy threshold), run once:
// what it describes and whether every element came back right.
struct LargePlanRun {
  weftResult_t r = weftSuccess;
  std::string text;  // weftPlanDescribe
  bool right = false;
  std::string first;  // the first wrong element, where one is
  // The case's detail: the error, the wrong element or the plan.
  std::string Detail(Ctx& x) const {
    return r != weftSuccess ? Status(r, x.comm) : !right ? first : text;
  }
};

LargePlanRun RunLargeAllReducePlan(Ctx& x) {
  const size_t n = 70001;
  Guarded send(n * 8), recv(n * 8);
  mpt::Fill(weftFloat64, weftSum, x.rank, x.seed, send.data(), n);
  LargePlanRun run;
  weftPlan_t plan = nullptr;
  run.r = weftAllReduceInit(send.data(), recv.data(), n, weftFloat64, weftSum, x.comm, &plan);
  char text[512] = {0};
  size_t needed = 0;
  if (run.r == weftSuccess) run.r = weftPlanDescribe(plan, text, sizeof text, &needed);
  if (run.r == weftSuccess) run.r = weftPlanStart(plan, nullptr);
  if (run.r == weftSuccess) run.r = weftPlanWait(plan);
  weftPlanFree(plan);
  run.text = text;
  run.right = run.r == weftSuccess && mpt::CountWrong(weftFloat64, weftSum, x.size, x.seed,
                                                      recv.data(), n, 0, &run.first) == 0;
  return run;
}

void ZeroCopyChecks(Ctx& x) {
  const LargePlanRun run = RunLargeAllReducePlan(x);
  // One rank has no peers to share with: zerocopy needs a node segment, which needs two.
  // Across (virtual) nodes the model may prefer a flat recipe (at 2 x 2 it does, by 1%): the
  // composition with a zerocopy node level is checked where WEFT_RECIPE forces it.
  const char* nodes = std::getenv("WEFT_VIRTUAL_NODES");
  const char* forced = std::getenv("WEFT_RECIPE");
  const bool across = nodes != nullptr && std::atoi(nodes) > 1;
  const bool expect = !across || (forced != nullptr && std::strstr(forced, "zerocopy") != nullptr);
  const bool zero_copy = x.size == 1 || !expect || run.text.find("zerocopy") != std::string::npos;
  x.report->Case(run.right && zero_copy, "allreduce plan on weftMemAlloc buffers", run.Detail(x));
  void* p = nullptr;
  weftResult_t r = weftMemAlloc(&p, 4096 + 64 * x.rank, x.comm);
  x.report->Case((x.size == 1 || r == weftInvalidArgument) && (x.size == 1 || p == nullptr),
                 "weftMemAlloc with sizes that differ between ranks is rejected",
                 weftGetErrorString(r));
  if (x.size == 1) weftMemFree(p);
  Guarded inside(64);  // carved from the arena: not a pointer weftMemAlloc returned
  r = weftMemFree(inside.data());
  x.report->Case(r == weftInvalidArgument, "weftMemFree of memory weftMemAlloc did not return",
                 weftGetErrorString(r));
  x.report->Case(weftMemFree(nullptr) == weftSuccess, "weftMemFree(NULL) is a no-op");
}

// Where WEFT_RECIPE forces a cma node level across (virtual) nodes, a large allreduce plan on
// the user's own buffers takes it: each node's ranks read each other's buffers by single copy.
void SingleCopyLevelCheck(Ctx& x) {
  const LargePlanRun run = RunLargeAllReducePlan(x);
  const bool cma = run.text.find("cma/") != std::string::npos;
  x.report->Case(run.right && cma, "allreduce plan with a cma node level", run.Detail(x));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bool quick = false;
  uint64_t seed = 1;
  std::vector<size_t> forced_counts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") quick = true;
    if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    if (a == "--counts" && i + 1 < argc) {
      for (char* p = argv[++i]; *p != '\0'; p += *p == ',') {
        forced_counts.push_back(std::strtoull(p, &p, 10));
      }
    }
    if (a == "--memory" && i + 1 < argc) {
      std::string m = argv[++i];
      g_memory = m == "device"   ? Memory::kDevice
                 : m == "mixed"  ? Memory::kMixed
                 : m == "shared" ? Memory::kShared
                                 : Memory::kHost;
    }
  }
  Report report(MPI_COMM_WORLD);
  Ctx x{nullptr, MPI_COMM_WORLD, 0, 0, seed, &report};
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.size);
  g_rank = x.rank;
  weftResult_t r = weftCommInitMPI(&x.comm, MPI_COMM_WORLD);
  report.Case(r == weftSuccess, "weftCommInitMPI", weftGetLastError(nullptr));
  if (r != weftSuccess) return report.Finish("coll_matrix");
  if (g_memory == Memory::kDevice) {
    r = weftStreamCreate(&x.stream);
    report.Case(r == weftSuccess, "weftStreamCreate", weftGetLastError(nullptr));
  }

  // 0, 1, odd, and more than a 4 KiB page even for int8.
  std::vector<size_t> counts =
      quick ? std::vector<size_t>{0, 7, 4099} : std::vector<size_t>{0, 1, 17, 4099};
  if (g_memory == Memory::kShared) {
    void* arena = nullptr;
    r = weftMemAlloc(&arena, kArenaBytes, x.comm);
    report.Case(r == weftSuccess, "weftMemAlloc", Status(r, x.comm));
    if (r != weftSuccess) return report.Finish("coll_matrix");
    g_arena = static_cast<unsigned char*>(arena);
    ZeroCopyChecks(x);
    // Odd and past weft's zero-copy threshold (64 KiB per rank) for every type.
    counts = {0, 7, 70001};
  }
  const char* forced = std::getenv("WEFT_RECIPE");
  if (forced != nullptr && std::strstr(forced, "cma/") != nullptr) SingleCopyLevelCheck(x);
  if (!forced_counts.empty()) counts = forced_counts;
  for (int ti = 0; ti < weftNumTypes; ++ti) {
    auto t = static_cast<weftDataType_t>(ti);
    for (size_t n : counts) {
      for (bool ip : {false, true}) {
        for (int oi = 0; oi < weftNumOps; ++oi) {
          auto op = static_cast<weftRedOp_t>(oi);
          AllReduce(x, t, op, ip, n);
          ReduceScatter(x, t, op, ip, n);
          for (int root = 0; root < x.size; ++root) Reduce(x, t, op, ip, n, root);
        }
        AllGather(x, t, ip, n);
        AllToAll(x, t, ip, n);
        for (int root = 0; root < x.size; ++root) Broadcast(x, t, ip, n, root);
      }
      SendRecv(x, t, n);
    }
  }
  r = weftBarrier(x.comm, x.stream);
  report.Case(r == weftSuccess, "barrier", Status(r, x.comm));
  report.Case(g_device_ok, "device allocations and copies", weftGetLastError(nullptr));
  if (x.stream != nullptr) {
    r = weftStreamDestroy(x.stream);
    report.Case(r == weftSuccess, "weftStreamDestroy", weftGetLastError(nullptr));
  }
  r = weftCommDestroy(x.comm);
  report.Case(r == weftSuccess, "weftCommDestroy", weftGetLastError(nullptr));
  if (g_arena != nullptr) {
    g_arena[0] = 1;  // still this rank's memory after the communicator is gone
    r = weftMemFree(g_arena);
    report.Case(r == weftSuccess, "weftMemFree", weftGetLastError(nullptr));
  }
  int rc = report.Finish("coll_matrix");
  MPI_Finalize();
  return rc;
}
