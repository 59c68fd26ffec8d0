// Groups (weftGroupStart/End): a ring exchange and an all-pairs exchange of blocking
// weftSend/weftRecv, which deadlock without a group, at several sizes (with small native
// pieces, WEFT_NATIVE_CHUNK_BYTES, a message is many MPI calls); collectives in a group; nested
// groups; misuse.
#include <string>
#include <vector>

#include "mp_check.h"

namespace {

using mpt::Ctx;

int32_t Value(int from, int to, size_t i) { return from * 1000003 + to * 1009 + int32_t(i % 997); }

// Every rank sends to its right neighbour and receives from its left, sends posted first: with
// blocking calls outside a group every rank would wait in its send.
void CheckRing(Ctx& x, size_t n) {
  const int right = (x.rank + 1) % x.size, left = (x.rank + x.size - 1) % x.size;
  std::vector<int32_t> out(n), in(n, -1);
  for (size_t i = 0; i < n; ++i) out[i] = Value(x.rank, right, i);
  bool ok = weftGroupStart() == weftSuccess;
  ok &= weftSend(out.data(), n, weftInt32, right, x.comm, nullptr) == weftSuccess;
  ok &= weftRecv(in.data(), n, weftInt32, left, x.comm, nullptr) == weftSuccess;
  ok &= weftGroupEnd() == weftSuccess;
  bool right_data = true;
  for (size_t i = 0; i < n; ++i) right_data &= in[i] == Value(left, x.rank, i);
  const std::string name = "ring n=" + std::to_string(n);
  x.report->Case(ok, name + " calls", weftGetLastError(x.comm));
  x.report->Case(right_data, name + " data");
}

// Every rank sends to and receives from every other rank in one group (NCCL's all-to-all
// pattern), sends first.
void CheckAllPairs(Ctx& x, size_t n) {
  std::vector<std::vector<int32_t>> out(x.size), in(x.size);
  bool ok = weftGroupStart() == weftSuccess;
  for (int p = 0; p < x.size; ++p) {
    if (p == x.rank) continue;
    out[p].resize(n);
    for (size_t i = 0; i < n; ++i) out[p][i] = Value(x.rank, p, i);
    ok &= weftSend(out[p].data(), n, weftInt32, p, x.comm, nullptr) == weftSuccess;
  }
  for (int p = 0; p < x.size; ++p) {
    if (p == x.rank) continue;
    in[p].assign(n, -1);
    ok &= weftRecv(in[p].data(), n, weftInt32, p, x.comm, nullptr) == weftSuccess;
  }
  ok &= weftGroupEnd() == weftSuccess;
  bool data = true;
  for (int p = 0; p < x.size; ++p) {
    for (size_t i = 0; p != x.rank && i < n; ++i) data &= in[p][i] == Value(p, x.rank, i);
  }
  const std::string name = "all pairs n=" + std::to_string(n);
  x.report->Case(ok, name + " calls", weftGetLastError(x.comm));
  x.report->Case(data, name + " data");
}

// Collectives and point-to-point in one nested group.
void CheckMixedNested(Ctx& x) {
  const size_t n = 777;
  std::vector<double> a(n, x.rank + 1.0), sum(n), b(n, x.rank == 0 ? 5.0 : 0.0);
  std::vector<int32_t> out(n, x.rank), in(n, -1);
  const int right = (x.rank + 1) % x.size, left = (x.rank + x.size - 1) % x.size;
  bool ok = weftGroupStart() == weftSuccess;
  ok &= weftAllReduce(a.data(), sum.data(), n, weftDouble, weftSum, x.comm, nullptr) == weftSuccess;
  ok &= weftGroupStart() == weftSuccess;
  ok &= weftSend(out.data(), n, weftInt32, right, x.comm, nullptr) == weftSuccess;
  ok &= weftGroupEnd() == weftSuccess;  // nested: nothing runs yet
  ok &= weftRecv(in.data(), n, weftInt32, left, x.comm, nullptr) == weftSuccess;
  ok &= weftBroadcast(b.data(), b.data(), n, weftDouble, 0, x.comm, nullptr) == weftSuccess;
  ok &= weftGroupEnd() == weftSuccess;
  const double want = x.size * (x.size + 1) / 2.0;
  bool data = true;
  for (size_t i = 0; i < n; ++i) data &= sum[i] == want && b[i] == 5.0 && in[i] == left;
  x.report->Case(ok, "mixed nested group calls", weftGetLastError(x.comm));
  x.report->Case(data, "mixed nested group data");
}

void CheckMisuse(Ctx& x) {
  weftResult_t r = weftGroupEnd();
  x.report->Case(r == weftInvalidUsage, "misuse: End without Start", weftGetErrorString(r));
  // A bad call inside a group fails at once and is not queued; the group's other calls run.
  std::vector<int32_t> v(8, x.rank), w(8, -1);
  bool ok = weftGroupStart() == weftSuccess;
  r = weftSend(v.data(), 8, weftInt32, x.size + 3, x.comm, nullptr);
  ok &= r == weftInvalidArgument;
  ok &= weftAllReduce(v.data(), w.data(), 8, weftInt32, weftSum, x.comm, nullptr) == weftSuccess;
  ok &= weftGroupEnd() == weftSuccess;
  x.report->Case(ok && w[3] == x.size * (x.size - 1) / 2, "misuse: bad peer in a group",
                 weftGetLastError(x.comm));
  // An empty group.
  x.report->Case(weftGroupStart() == weftSuccess && weftGroupEnd() == weftSuccess, "empty group");
}

}  // namespace

int main(int argc, char** argv) {
  return mpt::RunSuite(&argc, &argv, "groups", [&](Ctx& x) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{4099}, size_t{1} << 18}) {
      CheckRing(x, n);
      CheckAllPairs(x, n);
    }
    CheckMixedNested(x);
    CheckMisuse(x);
  });
}
