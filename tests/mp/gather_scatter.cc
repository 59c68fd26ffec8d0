// weftGather / weftScatter and their nonblocking forms: roots 0 and last, counts 0, 1, 17 and
// 4099, two element sizes, in place at the root, guard bytes past every buffer, bad roots.
#include <cstring>
#include <string>
#include <vector>

#include "mp_check.h"

namespace {

using mpt::Ctx;

template <typename T>
T Value(int rank, size_t i) {
  return static_cast<T>(rank * 100003 + static_cast<int>(i % 4001));
}

constexpr unsigned char kGuard = 0xa5;

// Completes a call made blocking or as a request.
template <typename Call>
weftResult_t Run(bool nonblocking, Call call) {
  if (!nonblocking) return call(static_cast<weftRequest_t*>(nullptr));
  weftRequest_t req = nullptr;
  weftResult_t r = call(&req);
  return r == weftSuccess ? weftRequestWait(&req) : r;
}

template <typename T>
void CheckGather(Ctx& x, weftDataType_t t, size_t n, int root, bool in_place, bool nb) {
  const size_t P = static_cast<size_t>(x.size);
  std::vector<T> all(n * P + 4, T{}), mine(n + 4, T{});
  std::memset(all.data() + n * P, kGuard, 4 * sizeof(T));
  for (size_t i = 0; i < n; ++i) mine[i] = Value<T>(x.rank, i);
  const bool root_in_place = in_place && x.rank == root;
  if (root_in_place) {
    for (size_t i = 0; i < n; ++i) all[root * n + i] = Value<T>(root, i);
  }
  const T* send = root_in_place ? all.data() + root * n : mine.data();
  weftResult_t r = Run(nb, [&](weftRequest_t* req) {
    return req ? weftIGather(send, all.data(), n, t, root, x.comm, req)
               : weftGather(send, all.data(), n, t, root, x.comm, nullptr);
  });
  bool ok = r == weftSuccess;
  if (x.rank == root) {
    for (size_t p = 0; p < P; ++p)
      for (size_t i = 0; i < n; ++i) ok &= all[p * n + i] == Value<T>(static_cast<int>(p), i);
    const auto* guard = reinterpret_cast<const unsigned char*>(all.data() + n * P);
    for (size_t i = 0; i < 4 * sizeof(T); ++i) ok &= guard[i] == kGuard;
  }
  x.report->Case(ok,
                 std::string(nb ? "igather " : "gather ") + mpt::TName(t) +
                     " n=" + std::to_string(n) + " root=" + std::to_string(root) +
                     (in_place ? " in place" : ""),
                 weftGetLastError(x.comm));
}

template <typename T>
void CheckScatter(Ctx& x, weftDataType_t t, size_t n, int root, bool in_place, bool nb) {
  const size_t P = static_cast<size_t>(x.size);
  std::vector<T> all(n * P + 4, T{}), mine(n + 4, T{});
  std::memset(mine.data() + n, kGuard, 4 * sizeof(T));
  if (x.rank == root) {
    for (size_t p = 0; p < P; ++p)
      for (size_t i = 0; i < n; ++i) all[p * n + i] = Value<T>(static_cast<int>(p), i);
  }
  const bool root_in_place = in_place && x.rank == root;
  T* recv = root_in_place ? all.data() + root * n : mine.data();
  weftResult_t r = Run(nb, [&](weftRequest_t* req) {
    return req ? weftIScatter(all.data(), recv, n, t, root, x.comm, req)
               : weftScatter(all.data(), recv, n, t, root, x.comm, nullptr);
  });
  bool ok = r == weftSuccess;
  for (size_t i = 0; i < n; ++i) ok &= recv[i] == Value<T>(x.rank, i);
  if (!root_in_place) {
    const auto* guard = reinterpret_cast<const unsigned char*>(mine.data() + n);
    for (size_t i = 0; i < 4 * sizeof(T); ++i) ok &= guard[i] == kGuard;
  }
  x.report->Case(ok,
                 std::string(nb ? "iscatter " : "scatter ") + mpt::TName(t) +
                     " n=" + std::to_string(n) + " root=" + std::to_string(root) +
                     (in_place ? " in place" : ""),
                 weftGetLastError(x.comm));
}

}  // namespace

int main(int argc, char** argv) {
  return mpt::RunSuite(&argc, &argv, "gather_scatter", [&](Ctx& x) {
    for (int root : {0, x.size - 1}) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{17}, size_t{4099}}) {
        for (bool in_place : {false, true}) {
          for (bool nb : {false, true}) {
            CheckGather<int32_t>(x, weftInt32, n, root, in_place, nb);
            CheckGather<double>(x, weftDouble, n, root, in_place, nb);
            CheckScatter<int32_t>(x, weftInt32, n, root, in_place, nb);
            CheckScatter<double>(x, weftDouble, n, root, in_place, nb);
          }
        }
      }
    }
    // A root outside the communicator fails on every rank alike, and nothing hangs.
    int v = 0, w[8];
    weftResult_t r = weftGather(&v, w, 1, weftInt32, x.size, x.comm, nullptr);
    x.report->Case(r == weftInvalidArgument, "gather: bad root", weftGetErrorString(r));
    r = weftScatter(w, &v, 1, weftInt32, -1, x.comm, nullptr);
    x.report->Case(r == weftInvalidArgument, "scatter: bad root", weftGetErrorString(r));
  });
}
