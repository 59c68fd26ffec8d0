// The v-collectives and the prefix reductions, blocking and nonblocking: weftAllGatherV,
// weftAllToAllV, weftGatherV, weftScatterV (uneven counts with zeros, blocks placed in reverse
// rank order with guarded gaps, element sizes 1 to 8, in place, roots 0 and last, the root's
// arrays given at the root only; alltoallv blocks on both sides of the node-aware schedule's
// direct threshold), weftReduceScatterV, weftScan and weftExScan (every dtype and
// op against the reference), several in flight completed in reverse order, a group, and bad
// arrays. With --check-args (run under WEFT_CHECK_ARGS=1): counts that disagree across ranks
// fail on every rank, and the communicator stays usable.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mp_check.h"

namespace {

using Bytes = std::vector<unsigned char>;
constexpr unsigned char kGuard = 0xa5;
constexpr size_t kGap = 3;  // elements left untouched after every block

using mpt::Ctx;

// Blocks with these counts, laid out last rank first, each followed by a gap.
struct Layout {
  std::vector<size_t> counts, displs;
  size_t total = 0;  // elements spanned, gaps included
};

Layout MakeLayout(int P, const std::function<size_t(int)>& count) {
  Layout l;
  l.counts.resize(P);
  l.displs.resize(P);
  for (int r = P - 1; r >= 0; --r) {
    l.counts[r] = count(r);
    l.displs[r] = l.total;
    l.total += l.counts[r] + kGap;
  }
  return l;
}

unsigned char Byte(int src, int dst, size_t k) {
  return static_cast<unsigned char>(src * 31 + dst * 7 + k * 13 + 1);
}

// The block src sends to dst, es-byte elements.
void FillBlock(unsigned char* p, int src, int dst, size_t elems, size_t es) {
  for (size_t k = 0; k < elems * es; ++k) p[k] = Byte(src, dst, k);
}

// Every block of l in buf holds what block(r) names; every gap still holds kGuard.
bool CheckBlocks(const Bytes& buf, const Layout& l, size_t es,
                 const std::function<std::pair<int, int>(int)>& src_dst) {
  Bytes want(buf.size(), kGuard);
  for (size_t r = 0; r < l.counts.size(); ++r) {
    auto [s, d] = src_dst(static_cast<int>(r));
    FillBlock(want.data() + l.displs[r] * es, s, d, l.counts[r], es);
  }
  return want == buf;
}

// Completes a call made blocking (req == nullptr) or as a request.
weftResult_t Run(bool nb, const std::function<weftResult_t(weftRequest_t*)>& call) {
  if (!nb) return call(nullptr);
  weftRequest_t req = nullptr;
  weftResult_t r = call(&req);
  return r == weftSuccess ? weftRequestWait(&req) : r;
}

std::string Name(const char* what, weftDataType_t t, int pattern, bool in_place, bool nb,
                 int root = -1) {
  return std::string(nb ? "i" : "") + what + " " + mpt::TName(t) + " pattern " +
         std::to_string(pattern) + (root >= 0 ? " root " + std::to_string(root) : "") +
         (in_place ? " in place" : "");
}

// Count of rank r's block: zeros among small odd counts, large counts, all zero.
size_t Count(int pattern, int r) {
  switch (pattern) {
    case 0:
      return r % 3 == 1 ? 0 : 2 * r + 1;
    case 1:
      return 1000 + 37 * r;
    default:
      return 0;
  }
}

// Count from rank i to rank j; patterns 1 to 3 are symmetric (in place needs that). Pattern 3
// mixes blocks of 8800 bytes and more in 8-byte types (sent directly by the node-aware
// alltoallv across nodes) with small ones (forwarded through a node peer).
size_t PairCount(int pattern, int i, int j) {
  switch (pattern) {
    case 0:
      return ((i + 2 * j) % 4) * 3;
    case 1:
      return ((i + j) % 3) * 5 + 1;
    case 2:
      return 700 + (i + j) * 11;
    default:
      return (i + j) % 2 ? 1100 + i + j : (i * j) % 5;
  }
}

void CheckAllGatherV(Ctx& x, weftDataType_t t, int pattern, bool in_place, bool nb) {
  const size_t es = mpt::TypeBytes(t);
  const Layout l = MakeLayout(x.size, [&](int r) { return Count(pattern, r); });
  const size_t n = l.counts[x.rank];
  Bytes recv(l.total * es, kGuard), mine(n * es + 1);
  FillBlock(mine.data(), x.rank, 0, n, es);
  const unsigned char* send = mine.data();
  if (in_place) {
    std::memcpy(recv.data() + l.displs[x.rank] * es, mine.data(), n * es);
    send = recv.data() + l.displs[x.rank] * es;
  }
  weftResult_t r = Run(nb, [&](weftRequest_t* q) {
    return q ? weftIAllGatherV(send, n, recv.data(), l.counts.data(), l.displs.data(), t, x.comm, q)
             : weftAllGatherV(send, n, recv.data(), l.counts.data(), l.displs.data(), t, x.comm,
                              nullptr);
  });
  const bool ok =
      r == weftSuccess && CheckBlocks(recv, l, es, [](int s) { return std::make_pair(s, 0); });
  x.report->Case(ok, Name("allgatherv", t, pattern, in_place, nb), weftGetLastError(x.comm));
}

void CheckAllToAllV(Ctx& x, weftDataType_t t, int pattern, bool in_place, bool nb) {
  const size_t es = mpt::TypeBytes(t);
  const int me = x.rank;
  const Layout sl = MakeLayout(x.size, [&](int j) { return PairCount(pattern, me, j); });
  const Layout rl = MakeLayout(x.size, [&](int j) { return PairCount(pattern, j, me); });
  Bytes send(sl.total * es + 1, 0), recv(rl.total * es, kGuard);
  unsigned char* out = in_place ? recv.data() : send.data();
  for (int j = 0; j < x.size; ++j) FillBlock(out + sl.displs[j] * es, me, j, sl.counts[j], es);
  weftResult_t r = Run(nb, [&](weftRequest_t* q) {
    return q ? weftIAllToAllV(out, sl.counts.data(), sl.displs.data(), recv.data(),
                              rl.counts.data(), rl.displs.data(), t, x.comm, q)
             : weftAllToAllV(out, sl.counts.data(), sl.displs.data(), recv.data(), rl.counts.data(),
                             rl.displs.data(), t, x.comm, nullptr);
  });
  const bool ok =
      r == weftSuccess && CheckBlocks(recv, rl, es, [me](int s) { return std::make_pair(s, me); });
  x.report->Case(ok, Name("alltoallv", t, pattern, in_place, nb), weftGetLastError(x.comm));
}

void CheckGatherV(Ctx& x, weftDataType_t t, int pattern, int root, bool in_place, bool nb) {
  const size_t es = mpt::TypeBytes(t);
  const bool at_root = x.rank == root;
  const Layout l = MakeLayout(x.size, [&](int r) { return Count(pattern, r); });
  const size_t n = l.counts[x.rank];
  Bytes recv(l.total * es, kGuard), mine(n * es + 1);
  FillBlock(mine.data(), x.rank, root, n, es);
  const unsigned char* send = mine.data();
  if (in_place && at_root) {
    std::memcpy(recv.data() + l.displs[root] * es, mine.data(), n * es);
    send = recv.data() + l.displs[root] * es;
  }
  // The arrays are the root's alone: the others pass NULL.
  const size_t* counts = at_root ? l.counts.data() : nullptr;
  const size_t* displs = at_root ? l.displs.data() : nullptr;
  weftResult_t r = Run(nb, [&](weftRequest_t* q) {
    return q ? weftIGatherV(send, n, recv.data(), counts, displs, t, root, x.comm, q)
             : weftGatherV(send, n, recv.data(), counts, displs, t, root, x.comm, nullptr);
  });
  bool ok = r == weftSuccess;
  if (at_root) ok &= CheckBlocks(recv, l, es, [root](int s) { return std::make_pair(s, root); });
  x.report->Case(ok, Name("gatherv", t, pattern, in_place, nb, root), weftGetLastError(x.comm));
}

void CheckScatterV(Ctx& x, weftDataType_t t, int pattern, int root, bool in_place, bool nb) {
  const size_t es = mpt::TypeBytes(t);
  const bool at_root = x.rank == root;
  const Layout l = MakeLayout(x.size, [&](int r) { return Count(pattern, r); });
  const size_t n = l.counts[x.rank];
  Bytes send(l.total * es, kGuard), mine(n * es + 4, kGuard);
  if (at_root) {
    for (int r = 0; r < x.size; ++r)
      FillBlock(send.data() + l.displs[r] * es, root, r, l.counts[r], es);
  }
  unsigned char* recv = in_place && at_root ? send.data() + l.displs[root] * es : mine.data();
  const size_t* counts = at_root ? l.counts.data() : nullptr;
  const size_t* displs = at_root ? l.displs.data() : nullptr;
  weftResult_t r = Run(nb, [&](weftRequest_t* q) {
    return q ? weftIScatterV(send.data(), counts, displs, recv, n, t, root, x.comm, q)
             : weftScatterV(send.data(), counts, displs, recv, n, t, root, x.comm, nullptr);
  });
  Bytes want(n * es);
  FillBlock(want.data(), root, x.rank, n, es);
  bool ok = r == weftSuccess && (n == 0 || std::memcmp(recv, want.data(), n * es) == 0);
  if (recv == mine.data()) ok &= mine[n * es] == kGuard;  // nothing past the block
  x.report->Case(ok, Name("scatterv", t, pattern, in_place, nb, root), weftGetLastError(x.comm));
}

void CheckReduceScatterV(Ctx& x, weftDataType_t t, weftRedOp_t op, int pattern, bool in_place,
                         bool nb) {
  const size_t es = mpt::TypeBytes(t);
  std::vector<size_t> counts(x.size);
  size_t total = 0, before = 0;
  for (int r = 0; r < x.size; ++r) {
    counts[r] = Count(pattern, r);
    if (r < x.rank) before += counts[r];
    total += counts[r];
  }
  const uint64_t seed = 11 + pattern;
  Bytes send(total * es + 1), mine(counts[x.rank] * es + 1);
  mpt::Fill(t, op, x.rank, seed, send.data(), total);
  unsigned char* recv = in_place ? send.data() + before * es : mine.data();
  weftResult_t r = Run(nb, [&](weftRequest_t* q) {
    return q ? weftIReduceScatterV(send.data(), recv, counts.data(), t, op, x.comm, q)
             : weftReduceScatterV(send.data(), recv, counts.data(), t, op, x.comm, nullptr);
  });
  std::string first;
  const bool ok = r == weftSuccess &&
                  mpt::CountWrong(t, op, x.size, seed, recv, counts[x.rank], before, &first) == 0;
  x.report->Case(ok, Name("reduce_scatter_v", t, pattern, in_place, nb) + " " + mpt::OName(op),
                 r == weftSuccess ? first : weftGetLastError(x.comm));
}

void CheckScan(Ctx& x, bool exclusive, weftDataType_t t, weftRedOp_t op, size_t n, bool in_place,
               bool nb) {
  const size_t es = mpt::TypeBytes(t);
  const uint64_t seed = 5 + n;
  Bytes send(n * es + 1), recv(n * es + 1, kGuard);
  mpt::Fill(t, op, x.rank, seed, send.data(), n);
  if (in_place) recv = send;
  const Bytes before = recv;
  weftResult_t r = Run(nb, [&](weftRequest_t* q) {
    const void* s = in_place ? recv.data() : send.data();
    if (exclusive) {
      return q ? weftIExScan(s, recv.data(), n, t, op, x.comm, q)
               : weftExScan(s, recv.data(), n, t, op, x.comm, nullptr);
    }
    return q ? weftIScan(s, recv.data(), n, t, op, x.comm, q)
             : weftScan(s, recv.data(), n, t, op, x.comm, nullptr);
  });
  std::string first;
  bool ok = r == weftSuccess;
  if (exclusive && x.rank == 0) {
    ok &= recv == before;  // rank 0's recvbuff is left untouched
  } else {
    const int prefix = exclusive ? x.rank : x.rank + 1;
    ok &= mpt::CountWrong(t, op, prefix, seed, recv.data(), n, 0, &first) == 0;
  }
  ok &= recv[n * es] == before[n * es];
  x.report->Case(ok,
                 std::string(nb ? "i" : "") + (exclusive ? "exscan " : "scan ") + mpt::TName(t) +
                     " " + mpt::OName(op) + " n=" + std::to_string(n) +
                     (in_place ? " in place" : ""),
                 r == weftSuccess ? first : weftGetLastError(x.comm));
}

// Scans on weftMemAlloc memory, which every node peer maps, past the zero-copy threshold: the
// zero-copy generator declines them (in place, a rank's result would overwrite an input its
// higher peers read), so they run the scan schedules there too, in and out of place.
void CheckScanOnSharedMemory(Ctx& x) {
  const size_t n = 20000, bytes = n * 4;
  void* send = nullptr;
  void* recv = nullptr;
  const bool made = weftMemAlloc(&send, bytes, x.comm) == weftSuccess &&
                    weftMemAlloc(&recv, bytes, x.comm) == weftSuccess;
  for (bool exclusive : {false, true}) {
    for (bool in_place : {false, true}) {
      bool ok = made;
      std::string first;
      if (made) {
        mpt::Fill(weftInt32, weftSum, x.rank, 77, send, n);
        std::memset(recv, 0x5a, bytes);
        if (in_place) std::memcpy(recv, send, bytes);
        const void* s = in_place ? recv : send;
        const weftResult_t r = exclusive
                                   ? weftExScan(s, recv, n, weftInt32, weftSum, x.comm, nullptr)
                                   : weftScan(s, recv, n, weftInt32, weftSum, x.comm, nullptr);
        const int prefix = exclusive ? x.rank : x.rank + 1;
        ok = r == weftSuccess && (prefix == 0 || mpt::CountWrong(weftInt32, weftSum, prefix, 77,
                                                                 recv, n, 0, &first) == 0);
      }
      x.report->Case(ok,
                     std::string(exclusive ? "exscan" : "scan") + " on weftMemAlloc memory" +
                         (in_place ? " in place" : ""),
                     made ? first : weftGetLastError(x.comm));
    }
  }
  weftMemFree(send);
  weftMemFree(recv);
}

// Several requests of different kinds in flight, completed last first.
void CheckManyInFlight(Ctx& x) {
  const int P = x.size, me = x.rank;
  const Layout l = MakeLayout(P, [](int r) { return Count(0, r) + 2; });
  const Layout sl = MakeLayout(P, [&](int j) { return PairCount(0, me, j); });
  const Layout rl = MakeLayout(P, [&](int j) { return PairCount(0, j, me); });
  Bytes mine(l.counts[me] * 4), gathered(l.total * 4, kGuard), send(sl.total * 4 + 1),
      recv(rl.total * 4, kGuard);
  FillBlock(mine.data(), me, 0, l.counts[me], 4);
  for (int j = 0; j < P; ++j) FillBlock(send.data() + sl.displs[j] * 4, me, j, sl.counts[j], 4);
  const size_t n = 33;
  Bytes in(n * 8), scanned(n * 8);
  mpt::Fill(weftInt64, weftSum, me, 3, in.data(), n);
  weftRequest_t req[3] = {nullptr, nullptr, nullptr};
  weftResult_t r = weftIAllGatherV(mine.data(), l.counts[me], gathered.data(), l.counts.data(),
                                   l.displs.data(), weftInt32, x.comm, &req[0]);
  if (r == weftSuccess) {
    r = weftIAllToAllV(send.data(), sl.counts.data(), sl.displs.data(), recv.data(),
                       rl.counts.data(), rl.displs.data(), weftFloat32, x.comm, &req[1]);
  }
  if (r == weftSuccess) {
    r = weftIScan(in.data(), scanned.data(), n, weftInt64, weftSum, x.comm, &req[2]);
  }
  for (int i = 2; i >= 0 && r == weftSuccess; --i) r = weftRequestWait(&req[i]);
  std::string first;
  const bool ok = r == weftSuccess &&
                  CheckBlocks(gathered, l, 4, [](int s) { return std::make_pair(s, 0); }) &&
                  CheckBlocks(recv, rl, 4, [me](int s) { return std::make_pair(s, me); }) &&
                  mpt::CountWrong(weftInt64, weftSum, me + 1, 3, scanned.data(), n, 0, &first) == 0;
  x.report->Case(ok, "three v/scan requests in flight, waited last first",
                 r == weftSuccess ? first : weftGetLastError(x.comm));
}

// A loop of alltoallv calls on the same count arrays, which the caller rewrites in place
// between rounds (pattern 0, then 2, then 0 again, in the same vectors): each round's blocks
// must follow that round's counts, whatever program the earlier rounds built and cached.
void CheckRepeatedCounts(Ctx& x) {
  const int P = x.size, me = x.rank;
  std::vector<size_t> sc(P), sd(P), rc(P), rd(P);
  bool ok = true;
  std::string what;
  for (int pattern : {0, 0, 2, 2, 0}) {
    const Layout sl = MakeLayout(P, [&](int j) { return PairCount(pattern, me, j); });
    const Layout rl = MakeLayout(P, [&](int j) { return PairCount(pattern, j, me); });
    std::copy(sl.counts.begin(), sl.counts.end(), sc.begin());
    std::copy(sl.displs.begin(), sl.displs.end(), sd.begin());
    std::copy(rl.counts.begin(), rl.counts.end(), rc.begin());
    std::copy(rl.displs.begin(), rl.displs.end(), rd.begin());
    Bytes send(sl.total * 8 + 1, 0), recv(rl.total * 8, kGuard);
    for (int j = 0; j < P; ++j) FillBlock(send.data() + sd[j] * 8, me, j, sc[j], 8);
    const weftResult_t r = weftAllToAllV(send.data(), sc.data(), sd.data(), recv.data(), rc.data(),
                                         rd.data(), weftFloat64, x.comm, nullptr);
    if (r != weftSuccess ||
        !CheckBlocks(recv, rl, 8, [me](int s) { return std::make_pair(s, me); })) {
      ok = false;
      what = "pattern " + std::to_string(pattern) + ": " + weftGetLastError(x.comm);
      break;
    }
  }
  x.report->Case(ok, "alltoallv on count arrays rewritten between calls", what);
}

// A group of an AllToAllV and a GatherV started together at weftGroupEnd.
void CheckGroup(Ctx& x) {
  const int P = x.size, me = x.rank, root = P - 1;
  const Layout sl = MakeLayout(P, [&](int j) { return PairCount(1, me, j); });
  const Layout rl = MakeLayout(P, [&](int j) { return PairCount(1, j, me); });
  const Layout gl = MakeLayout(P, [](int r) { return Count(0, r); });
  Bytes send(sl.total * 2 + 1), recv(rl.total * 2, kGuard), mine(gl.counts[me] * 2 + 1),
      gathered(gl.total * 2, kGuard);
  for (int j = 0; j < P; ++j) FillBlock(send.data() + sl.displs[j] * 2, me, j, sl.counts[j], 2);
  FillBlock(mine.data(), me, root, gl.counts[me], 2);
  weftResult_t r = weftGroupStart();
  if (r == weftSuccess) {
    r = weftAllToAllV(send.data(), sl.counts.data(), sl.displs.data(), recv.data(),
                      rl.counts.data(), rl.displs.data(), weftFloat16, x.comm, nullptr);
  }
  if (r == weftSuccess) {
    r = weftGatherV(mine.data(), gl.counts[me], gathered.data(), gl.counts.data(), gl.displs.data(),
                    weftBfloat16, root, x.comm, nullptr);
  }
  const weftResult_t end = weftGroupEnd();
  bool ok = r == weftSuccess && end == weftSuccess &&
            CheckBlocks(recv, rl, 2, [me](int s) { return std::make_pair(s, me); });
  if (me == root) {
    ok &= CheckBlocks(gathered, gl, 2, [root](int s) { return std::make_pair(s, root); });
  }
  x.report->Case(ok, "group: alltoallv and gatherv", weftGetLastError(x.comm));
}

// Arguments every rank gets wrong alike: each fails at once, nothing hangs.
void CheckBadArrays(Ctx& x) {
  const int P = x.size;
  std::vector<size_t> counts(P, 1), displs(P), zero(P, 0);
  for (int r = 0; r < P; ++r) displs[r] = r;
  std::vector<int32_t> buf(P + 1), mine(1);
  weftResult_t r = weftAllGatherV(mine.data(), 1, buf.data(), nullptr, displs.data(), weftInt32,
                                  x.comm, nullptr);
  x.report->Case(r == weftInvalidArgument, "allgatherv: NULL recvcounts", weftGetErrorString(r));
  r = weftAllGatherV(mine.data(), 2, buf.data(), counts.data(), displs.data(), weftInt32, x.comm,
                     nullptr);
  x.report->Case(r == weftInvalidArgument, "allgatherv: sendcount differs from recvcounts[rank]",
                 weftGetErrorString(r));
  if (P > 1) {
    r = weftAllGatherV(mine.data(), 1, buf.data(), counts.data(), zero.data(), weftInt32, x.comm,
                       nullptr);
    x.report->Case(r == weftInvalidArgument, "allgatherv: overlapping blocks",
                   weftGetErrorString(r));
  }
  std::vector<size_t> huge(P, 0);
  huge[0] = size_t{1} << 31;
  r = weftAllToAllV(buf.data(), huge.data(), zero.data(), buf.data() + 1, huge.data(), zero.data(),
                    weftInt8, x.comm, nullptr);
  x.report->Case(r == weftInvalidArgument, "alltoallv: a count past 2^31-1", weftGetErrorString(r));
  r = weftReduceScatterV(buf.data(), mine.data(), counts.data(), weftInt32,
                         static_cast<weftRedOp_t>(99), x.comm, nullptr);
  x.report->Case(r == weftInvalidArgument, "reduce_scatter_v: bad op", weftGetErrorString(r));
  r = weftScan(buf.data(), buf.data() + 1, 1, static_cast<weftDataType_t>(42), weftSum, x.comm,
               nullptr);
  x.report->Case(r == weftInvalidArgument, "scan: bad datatype", weftGetErrorString(r));
}

// WEFT_CHECK_ARGS=1: rank 0's recvcounts[P-1] disagrees with what rank P-1 sends.
void CheckDisagreeingCounts(Ctx& x) {
  const int P = x.size;
  std::vector<size_t> counts(P, 2), displs(P);
  for (int r = 0; r < P; ++r) displs[r] = 3 * r;
  if (x.rank == 0 && P > 1) counts[P - 1] = 3;
  std::vector<int32_t> buf(3 * P + 1), mine(2, x.rank);
  weftResult_t r = weftAllGatherV(mine.data(), 2, buf.data(), counts.data(), displs.data(),
                                  weftInt32, x.comm, nullptr);
  x.report->Case(P == 1 ? r == weftSuccess : r != weftSuccess,
                 "check-args: allgatherv counts that disagree fail on every rank",
                 weftGetErrorString(r));
  counts[P - 1] = 2;
  r = weftAllGatherV(mine.data(), 2, buf.data(), counts.data(), displs.data(), weftInt32, x.comm,
                     nullptr);
  x.report->Case(r == weftSuccess, "check-args: the next allgatherv succeeds",
                 weftGetLastError(x.comm));
}

}  // namespace

int main(int argc, char** argv) {
  return mpt::RunSuite(&argc, &argv, "vcolls", [&](Ctx& x) {
    const bool check_args = argc > 1 && std::string(argv[1]) == "--check-args";
    if (check_args) {
      CheckDisagreeingCounts(x);
    } else {
      for (weftDataType_t t : {weftInt8, weftFloat16, weftInt32, weftFloat64}) {
        for (int pattern : {0, 1, 2, 3}) {
          for (bool in_place : {false, true}) {
            for (bool nb : {false, true}) {
              if (pattern == 3) {  // alltoallv only
                CheckAllToAllV(x, t, pattern, in_place, nb);
                continue;
              }
              CheckAllGatherV(x, t, pattern, in_place, nb);
              if (!in_place || pattern > 0) CheckAllToAllV(x, t, pattern, in_place, nb);
              for (int root : {0, x.size - 1}) {
                CheckGatherV(x, t, pattern, root, in_place, nb);
                CheckScatterV(x, t, pattern, root, in_place, nb);
              }
            }
          }
        }
      }
      for (int t = 0; t < weftNumTypes; ++t) {
        for (int op = 0; op < weftNumOps; ++op) {
          const auto type = static_cast<weftDataType_t>(t);
          const auto o = static_cast<weftRedOp_t>(op);
          CheckScan(x, false, type, o, 17, false, false);
          CheckScan(x, true, type, o, 17, false, false);
          CheckReduceScatterV(x, type, o, 0, false, false);
        }
      }
      for (bool in_place : {false, true}) {
        for (bool nb : {false, true}) {
          for (weftDataType_t t : {weftInt32, weftFloat16, weftFloat64}) {
            for (size_t n : {size_t{0}, size_t{1}, size_t{1031}}) {
              CheckScan(x, false, t, weftSum, n, in_place, nb);
              CheckScan(x, true, t, weftAvg, n, in_place, nb);
            }
            for (int pattern : {0, 1, 2}) CheckReduceScatterV(x, t, weftAvg, pattern, in_place, nb);
          }
        }
      }
      CheckScanOnSharedMemory(x);
      CheckManyInFlight(x);
      CheckRepeatedCounts(x);
      CheckGroup(x);
      CheckBadArrays(x);
    }
  });
}
