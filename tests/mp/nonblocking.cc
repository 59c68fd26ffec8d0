// Nonblocking collectives (weftIAllReduce ...) and their requests: every collective with its
// result checked, many in flight at once of one shape and of mixed shapes, completed in an
// order that differs from rank to rank (waits in reverse on some ranks, test loops or Waitall
// on others), mixed with blocking collectives, freed before completion, and misuse.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "mp_check.h"
#include "weft/weft.hpp"

namespace {

using mpt::Ctx;

// A reduction in flight and what its result must be.
struct Pending {
  weftRequest_t req = nullptr;
  std::string label;
  weftDataType_t type = weftInt32;
  weftRedOp_t op = weftSum;
  uint64_t seed = 0;
  size_t n = 0, first_index = 0;
  bool check = true;  // this rank receives a result (false: a reduce's non-root)
  std::vector<unsigned char> send, recv;
};

// Completes every request in an order that depends on the rank: rank 0 waits in reverse start
// order, rank 1 polls with weftRequestTest until all are done, rank 2 uses Waitall, others wait
// in a shuffled order. A weft that advanced only the request waited for would deadlock here.
bool CompleteAll(Ctx& x, std::vector<weftRequest_t*>& reqs, uint64_t seed) {
  bool ok = true;
  const int how = x.rank % 4;
  if (how == 0) {
    for (auto it = reqs.rbegin(); it != reqs.rend(); ++it)
      ok &= weftRequestWait(*it) == weftSuccess;
  } else if (how == 1) {
    for (size_t left = reqs.size(); left > 0;) {
      left = 0;
      for (weftRequest_t* r : reqs) {
        int done = 0;
        ok &= weftRequestTest(r, &done) == weftSuccess;
        left += done ? 0 : 1;
      }
    }
  } else if (how == 2) {
    std::vector<weftRequest_t> all;
    for (weftRequest_t* r : reqs) all.push_back(*r);
    ok &= weftRequestWaitall(static_cast<int>(all.size()), all.data()) == weftSuccess;
    for (size_t i = 0; i < reqs.size(); ++i) {
      ok &= all[i] == nullptr;
      *reqs[i] = nullptr;
    }
  } else {
    std::vector<weftRequest_t*> order = reqs;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + x.rank));
    for (weftRequest_t* r : order) ok &= weftRequestWait(r) == weftSuccess;
  }
  for (weftRequest_t* r : reqs) ok &= *r == nullptr;
  return ok;
}

// Every reduction kind x type x op, all started before any completes, checked after.
void CheckReductions(Ctx& x) {
  std::vector<Pending> p;
  const size_t counts[] = {0, 1, 17, 4099};
  uint64_t seed = 7;
  int k = 0;
  for (weftDataType_t t :
       {weftInt8, weftUint32, weftInt64, weftFloat16, weftBfloat16, weftFloat32, weftFloat64}) {
    for (int oi = 0; oi < weftNumOps; ++oi) {
      for (int kind = 0; kind < 4; ++kind) {  // allreduce, in-place allreduce, reduce, rs
        Pending q;
        q.type = t;
        q.op = static_cast<weftRedOp_t>(oi);
        q.seed = ++seed;
        q.n = counts[k++ % 4];
        const size_t es = mpt::TypeBytes(t);
        const size_t in = kind == 3 ? q.n * x.size : q.n;
        q.send.resize(in * es + 1);
        q.recv.resize(q.n * es + 1);
        mpt::Fill(t, q.op, x.rank, q.seed, q.send.data(), in);
        weftResult_t r;
        const int root = x.size - 1;
        if (kind == 0) {
          q.label = "iallreduce";
          r = weftIAllReduce(q.send.data(), q.recv.data(), q.n, t, q.op, x.comm, &q.req);
        } else if (kind == 1) {
          q.label = "iallreduce in place";
          q.recv = q.send;
          r = weftIAllReduce(q.recv.data(), q.recv.data(), q.n, t, q.op, x.comm, &q.req);
        } else if (kind == 2) {
          q.label = "ireduce";
          q.check = x.rank == root;
          r = weftIReduce(q.send.data(), q.recv.data(), q.n, t, q.op, root, x.comm, &q.req);
        } else {
          q.label = "ireduce_scatter";
          q.first_index = x.rank * q.n;
          r = weftIReduceScatter(q.send.data(), q.recv.data(), q.n, t, q.op, x.comm, &q.req);
        }
        q.label +=
            std::string(" ") + mpt::TName(t) + " " + mpt::OName(q.op) + " n=" + std::to_string(q.n);
        x.report->Case(r == weftSuccess && q.req != nullptr, q.label + " started",
                       weftGetLastError(x.comm));
        p.push_back(std::move(q));
      }
    }
  }
  std::vector<weftRequest_t*> reqs;
  for (Pending& q : p) reqs.push_back(&q.req);
  x.report->Case(CompleteAll(x, reqs, 1), "reductions: all completed", weftGetLastError(x.comm));
  for (Pending& q : p) {
    if (!q.check) continue;
    std::string first;
    size_t wrong =
        mpt::CountWrong(q.type, q.op, x.size, q.seed, q.recv.data(), q.n, q.first_index, &first);
    x.report->Case(wrong == 0, q.label, first);
  }
}

// Broadcast (roots 0 and last, in place and not), allgather, alltoall and barrier, in flight
// together, odd counts and 0.
void CheckMovement(Ctx& x) {
  const size_t n = 333;
  const int P = x.size;
  auto value = [](int rank, size_t i, int tag) { return rank * 1000003 + tag * 10007 + int(i); };
  std::vector<int32_t> b0(n), b1(n), b1src(n), gsend(n), grecv(n * P), asend(n * P), arecv(n * P),
      empty(1);
  for (size_t i = 0; i < n; ++i) {
    b0[i] = x.rank == 0 ? value(0, i, 1) : -1;
    b1src[i] = value(x.rank, i, 2);
    gsend[i] = value(x.rank, i, 3);
  }
  for (size_t i = 0; i < n * P; ++i) asend[i] = value(x.rank, i, 4);
  std::vector<weftRequest_t> r(6, nullptr);
  bool started =
      weftIBroadcast(b0.data(), b0.data(), n, weftInt32, 0, x.comm, &r[0]) == weftSuccess &&
      weftIBroadcast(b1src.data(), b1.data(), n, weftInt32, P - 1, x.comm, &r[1]) == weftSuccess &&
      weftIAllGather(gsend.data(), grecv.data(), n, weftInt32, x.comm, &r[2]) == weftSuccess &&
      weftIAllToAll(asend.data(), arecv.data(), n, weftInt32, x.comm, &r[3]) == weftSuccess &&
      weftIBarrier(x.comm, &r[4]) == weftSuccess &&
      weftIAllGather(empty.data(), empty.data(), 0, weftInt32, x.comm, &r[5]) == weftSuccess;
  x.report->Case(started, "movement: started", weftGetLastError(x.comm));
  std::vector<weftRequest_t*> reqs;
  for (auto& q : r) reqs.push_back(&q);
  x.report->Case(CompleteAll(x, reqs, 2), "movement: completed", weftGetLastError(x.comm));
  bool bc0 = true, bc1 = true, ag = true, a2a = true;
  for (size_t i = 0; i < n; ++i) {
    bc0 &= b0[i] == value(0, i, 1);
    bc1 &= b1[i] == value(P - 1, i, 2);
  }
  for (int q = 0; q < P; ++q) {
    for (size_t i = 0; i < n; ++i) {
      ag &= grecv[q * n + i] == value(q, i, 3);
      a2a &= arecv[q * n + i] == value(q, x.rank * n + i, 4);
    }
  }
  x.report->Case(bc0, "ibroadcast root 0 in place");
  x.report->Case(bc1, "ibroadcast root last");
  x.report->Case(ag, "iallgather");
  x.report->Case(a2a, "ialltoall");
}

// More in flight than the cache keeps instances of one shape (8) and than the transport has
// tag slots (64), all one shape, then a mix of sizes; completed in rank-dependent orders.
void CheckManyInFlight(Ctx& x, size_t n, int count, const char* what) {
  std::vector<std::vector<double>> in(count), out(count);
  std::vector<weftRequest_t> reqs(count, nullptr);
  bool started = true;
  for (int p = 0; p < count; ++p) {
    const size_t m = n == 0 ? 1 + (p * 37) % 5000 : n;  // n == 0: mixed shapes
    in[p].assign(m, 0.0);
    out[p].assign(m, -1.0);
    for (size_t i = 0; i < m; ++i) in[p][i] = p * 1000 + x.rank + static_cast<double>(i % 7);
    started &= weftIAllReduce(in[p].data(), out[p].data(), m, weftDouble, weftSum, x.comm,
                              &reqs[p]) == weftSuccess;
  }
  x.report->Case(started, std::string(what) + ": started", weftGetLastError(x.comm));
  std::vector<weftRequest_t*> ptrs;
  for (auto& r : reqs) ptrs.push_back(&r);
  x.report->Case(CompleteAll(x, ptrs, 3), std::string(what) + ": completed",
                 weftGetLastError(x.comm));
  bool right = true;
  const double ranks_sum = x.size * (x.size - 1) / 2.0;
  for (int p = 0; p < count; ++p) {
    for (size_t i = 0; i < out[p].size(); ++i) {
      right &= out[p][i] == x.size * (p * 1000 + static_cast<double>(i % 7)) + ranks_sum;
    }
  }
  x.report->Case(right, std::string(what) + ": every sum right");
}

// Blocking collectives between nonblocking ones: the blocking call completes the requests
// started before it (ranks then wait for them in different orders, already complete), and a
// request's program instance is not run by the blocking call of the same shape.
void CheckMixedWithBlocking(Ctx& x) {
  const size_t n = 1000;
  std::vector<float> a(n, 1.0f), b(n, 2.0f), ra(n), rb(n), c(n, 3.0f), rc(n);
  weftRequest_t r1 = nullptr, r2 = nullptr;
  bool ok =
      weftIAllReduce(a.data(), ra.data(), n, weftFloat, weftSum, x.comm, &r1) == weftSuccess &&
      weftIAllReduce(b.data(), rb.data(), n, weftFloat, weftSum, x.comm, &r2) == weftSuccess;
  ok &= weftAllReduce(c.data(), rc.data(), n, weftFloat, weftSum, x.comm, nullptr) == weftSuccess;
  if (x.rank % 2) std::swap(r1, r2);
  ok &= weftRequestWait(&r1) == weftSuccess && weftRequestWait(&r2) == weftSuccess;
  bool right = true;
  for (size_t i = 0; i < n; ++i) {
    right &= ra[i] == x.size && rb[i] == 2.0f * x.size && rc[i] == 3.0f * x.size;
  }
  x.report->Case(ok, "mixed with blocking: calls", weftGetLastError(x.comm));
  x.report->Case(right, "mixed with blocking: results");
}

// A request freed before it completes runs on; the next blocking collective completes it.
void CheckFreeBeforeDone(Ctx& x) {
  const size_t n = 2048;
  std::vector<int64_t> in(n, x.rank + 1), out(n, 0);
  weftRequest_t r = nullptr;
  bool ok = weftIAllReduce(in.data(), out.data(), n, weftInt64, weftSum, x.comm, &r) == weftSuccess;
  ok &= weftRequestFree(&r) == weftSuccess && r == nullptr;
  ok &= weftBarrier(x.comm, nullptr) == weftSuccess;
  const int64_t want = static_cast<int64_t>(x.size) * (x.size + 1) / 2;
  bool right = true;
  for (size_t i = 0; i < n; ++i) right &= out[i] == want;
  x.report->Case(ok, "free before done: calls", weftGetLastError(x.comm));
  x.report->Case(right, "free before done: completed by the next blocking collective");
}

void CheckMisuse(Ctx& x) {
  std::vector<double> a(16, 1.0), b(16);
  weftResult_t r = weftIAllReduce(a.data(), b.data(), 16, weftDouble, weftSum, x.comm, nullptr);
  x.report->Case(r == weftInvalidArgument, "misuse: NULL request pointer", weftGetErrorString(r));
  weftRequest_t req = reinterpret_cast<weftRequest_t>(&a);
  r = weftIAllReduce(a.data(), nullptr, 16, weftDouble, weftSum, x.comm, &req);
  x.report->Case(r == weftInvalidArgument && req == nullptr,
                 "misuse: NULL recvbuff fails and leaves no request", weftGetLastError(x.comm));
  r = weftIAllReduce(a.data(), b.data(), 16, weftDouble, weftSum, x.comm, &req);
  weftRequest_t copy = req;
  x.report->Case(r == weftSuccess && weftRequestWait(&req) == weftSuccess && req == nullptr,
                 "misuse: a wait sets the handle to NULL");
  r = weftRequestWait(&copy);
  x.report->Case(r == weftInvalidUsage, "misuse: a completed request's old handle",
                 weftGetErrorString(r));
  int done = 0;
  req = nullptr;
  x.report->Case(weftRequestTest(&req, &done) == weftSuccess && done == 1,
                 "misuse: a NULL request tests complete");
  x.report->Case(weftRequestWait(&req) == weftSuccess, "misuse: a NULL request waits at once");
  r = weftRequestTest(&req, nullptr);
  x.report->Case(r == weftInvalidArgument, "misuse: NULL done", weftGetErrorString(r));
  r = weftRequestWaitall(-1, nullptr);
  x.report->Case(r == weftInvalidArgument, "misuse: negative Waitall count", weftGetErrorString(r));
  // A communicator with a request not yet waited for refuses destruction and stays usable.
  r = weftIBarrier(x.comm, &req);
  x.report->Case(r == weftSuccess, "misuse: ibarrier");
  r = weftCommDestroy(x.comm);
  x.report->Case(r == weftInvalidUsage, "misuse: destroy with a live request",
                 weftGetLastError(x.comm));
  x.report->Case(weftRequestWait(&req) == weftSuccess, "misuse: the request still completes");
}

// weftCommAbort detaches a request that completed but was never waited for: the wait still
// reports it (success), and the abort never refuses.
void CheckAbort(Ctx& x) {
  weftComm_t c = nullptr;
  x.report->Case(weftCommInitMPI(&c, MPI_COMM_WORLD) == weftSuccess, "abort: second comm");
  std::vector<int32_t> a(64, 1), b(64);
  weftRequest_t r = nullptr;
  bool ok = weftIAllReduce(a.data(), b.data(), 64, weftInt32, weftSum, c, &r) == weftSuccess;
  ok &= weftBarrier(c, nullptr) == weftSuccess;  // completes r
  MPI_Barrier(MPI_COMM_WORLD);
  ok &= weftCommAbort(c) == weftSuccess;
  ok &= weftRequestWait(&r) == weftSuccess && b[5] == x.size;
  x.report->Case(ok, "abort: a completed request outlives its communicator",
                 weftGetLastError(nullptr));
}

// The C++ API: requests wait on destruction; spans give the type.
void CheckCpp(Ctx& x) {
  weft::Communicator comm(MPI_COMM_WORLD);
  std::vector<float> in(100, 1.5f), out(100);
  std::vector<int32_t> all(100 * x.size), mine(100, x.rank);
  {
    weft::Request r1 = comm.iallreduce(std::span<const float>(in), std::span<float>(out));
    weft::Request r2 = comm.iallgather(std::span<const int32_t>(mine), std::span<int32_t>(all));
    while (!r2.test()) {
    }
    r1.wait();
    x.report->Case(r1.done() && r2.done(), "c++: requests done");
  }
  bool right = out[99] == 1.5f * x.size;
  for (int q = 0; q < x.size; ++q) right &= all[q * 100 + 7] == q;
  x.report->Case(right, "c++: results");
  // A ring exchange in weft::group.
  std::vector<int32_t> to(10, x.rank), from(10, -1);
  weft::group([&] {
    comm.send(std::span<const int32_t>(to), (x.rank + 1) % x.size);
    comm.recv(std::span<int32_t>(from), (x.rank + x.size - 1) % x.size);
  });
  x.report->Case(from[9] == (x.rank + x.size - 1) % x.size, "c++: group ring");
  std::vector<int32_t> gathered(10 * x.size, -1), part(10, -1);
  comm.gather(std::span<const int32_t>(to), std::span<int32_t>(gathered), 0);
  comm.scatter(std::span<const int32_t>(gathered), std::span<int32_t>(part), 0);
  x.report->Case(part[4] == x.rank, "c++: gather then scatter");
}

}  // namespace

int main(int argc, char** argv) {
  return mpt::RunSuite(&argc, &argv, "nonblocking", [&](Ctx& x) {
    CheckReductions(x);
    CheckMovement(x);
    CheckManyInFlight(x, 4096, 100, "100 of one shape in flight");
    CheckManyInFlight(x, 0, 40, "40 of mixed shapes in flight");
    CheckMixedWithBlocking(x);
    CheckFreeBeforeDone(x);
    CheckMisuse(x);
    CheckAbort(x);
    CheckCpp(x);
  });
}
