// Bad input returns its code and a clear text, never crashes or hangs, and leaves the
// communicator usable. With --check-args (and WEFT_CHECK_ARGS=1), ranks that disagree on the
// root or count all get weftInvalidUsage instead of hanging.
#include <cstdint>
#include <string>
#include <vector>

#include "mp_check.h"

namespace {

using mpt::Ctx;

// Expects code `want` from r, and that the last error text mentions `needle`.
void Expect(Ctx& x, weftResult_t r, weftResult_t want, const std::string& name, const char* needle,
            weftComm_t text_comm) {
  std::string text = weftGetLastError(text_comm);
  bool ok = r == want && !text.empty() && text.find(needle) != std::string::npos;
  x.report->Case(ok, name, "got " + std::string(weftGetErrorString(r)) + ", text '" + text + "'");
}

// After every error the communicator must still work.
void ExpectUsable(Ctx& x, const std::string& after) {
  double v = 1.0;
  weftResult_t r = weftAllReduce(&v, &v, 1, weftDouble, weftSum, x.comm, nullptr);
  x.report->Case(r == weftSuccess && v == x.size, "usable after " + after,
                 weftGetLastError(x.comm));
}

void ArgumentErrors(Ctx& x) {
  std::vector<double> a(64 * x.size, 1.0), b(64 * x.size);
  double* s = a.data();
  double* rb = b.data();
  weftComm_t c = x.comm;
  Expect(x, weftAllReduce(s, rb, 8, weftDouble, weftSum, nullptr, nullptr), weftInvalidArgument,
         "NULL comm", "comm is NULL", nullptr);
  Expect(x, weftAllReduce(nullptr, rb, 8, weftDouble, weftSum, c, nullptr), weftInvalidArgument,
         "NULL sendbuff", "sendbuff is NULL", c);
  Expect(x, weftAllReduce(s, nullptr, 8, weftDouble, weftSum, c, nullptr), weftInvalidArgument,
         "NULL recvbuff", "recvbuff is NULL", c);
  Expect(x, weftAllGather(nullptr, rb, 8, weftDouble, c, nullptr), weftInvalidArgument,
         "allgather NULL sendbuff", "sendbuff", c);
  Expect(x, weftReduceScatter(s, nullptr, 8, weftDouble, weftSum, c, nullptr), weftInvalidArgument,
         "reduce_scatter NULL recvbuff", "recvbuff", c);
  Expect(x, weftAllToAll(nullptr, rb, 8, weftDouble, c, nullptr), weftInvalidArgument,
         "alltoall NULL sendbuff", "sendbuff", c);
  Expect(x, weftAllReduce(s, rb, 8, static_cast<weftDataType_t>(42), weftSum, c, nullptr),
         weftInvalidArgument, "unknown datatype", "unknown datatype 42", c);
  Expect(x, weftBroadcast(s, rb, 8, static_cast<weftDataType_t>(-1), 0, c, nullptr),
         weftInvalidArgument, "negative datatype", "unknown datatype", c);
  Expect(x, weftAllReduce(s, rb, 8, weftDouble, static_cast<weftRedOp_t>(9), c, nullptr),
         weftInvalidArgument, "unknown op", "unknown reduction op 9", c);
  Expect(x, weftReduce(s, rb, 8, weftDouble, weftSum, x.size, c, nullptr), weftInvalidArgument,
         "root == size", "root", c);
  Expect(x, weftBroadcast(s, rb, 8, weftDouble, -1, c, nullptr), weftInvalidArgument, "root -1",
         "root -1", c);
  Expect(x, weftSend(s, 8, weftDouble, x.size + 3, c, nullptr), weftInvalidArgument, "bad peer",
         "peer", c);
  Expect(x, weftRecv(rb, 8, weftDouble, x.rank, c, nullptr), weftInvalidUsage, "recv from self",
         "deadlock", c);
  Expect(x, weftAllReduce(s, s + 1, 8, weftDouble, weftSum, c, nullptr), weftInvalidArgument,
         "allreduce partial overlap", "overlap", c);
  Expect(x, weftAllToAll(s, s + 3, 8, weftDouble, c, nullptr), weftInvalidArgument,
         "alltoall partial overlap", "overlap", c);
  // AllGather's in-place form is sendbuff == recvbuff + rank*count; any other overlap is wrong.
  Expect(x, weftAllGather(rb + x.rank * 8 + 1, rb, 8, weftDouble, c, nullptr), weftInvalidArgument,
         "allgather overlap not in place", "overlap", c);
  Expect(x, weftReduceScatter(s, s + x.rank * 8 + 2, 8, weftDouble, weftSum, c, nullptr),
         weftInvalidArgument, "reduce_scatter overlap not in place", "overlap", c);
  Expect(x, weftAllReduce(s, rb, SIZE_MAX / 4, weftDouble, weftSum, c, nullptr),
         weftInvalidArgument, "count overflows", "overflows", c);
  if (x.size >= 2) {  // count * 8 fits, count * 8 * nranks does not
    Expect(x, weftAllGather(s, rb, SIZE_MAX / 16 + 1, weftDouble, c, nullptr), weftInvalidArgument,
           "allgather total overflows", "overflows", c);
  }
  // Counts whose bytes fit a size_t but no address space: every rank rejects them, including
  // the ranks whose own buffer of the call is empty (before, reduce's non-roots, bcast's
  // receivers and send/recv accepted them and waited for ever).
  for (size_t huge : {SIZE_MAX / 8, SIZE_MAX / 16, (size_t{1} << 48) + 1}) {
    const std::string n = " count " + std::to_string(huge);
    Expect(x, weftReduce(s, rb, huge, weftInt8, weftSum, 0, c, nullptr), weftInvalidArgument,
           "reduce" + n, "overflows", c);
    Expect(x, weftBroadcast(s, s, huge, weftInt8, 0, c, nullptr), weftInvalidArgument, "bcast" + n,
           "overflows", c);
    if (x.size >= 2) {
      const int peer = (x.rank + 1) % x.size;
      Expect(x, weftSend(s, huge, weftInt8, peer, c, nullptr), weftInvalidArgument, "send" + n,
             "overflows", c);
      Expect(x, weftRecv(rb, huge, weftInt8, peer, c, nullptr), weftInvalidArgument, "recv" + n,
             "overflows", c);
    }
  }
  int dummy_stream = 0;
  Expect(x, weftAllReduce(s, rb, 8, weftDouble, weftSum, c, &dummy_stream), weftNotSupported,
         "stream without device support", "stream", c);
  Expect(x, weftCommCount(c, nullptr), weftInvalidArgument, "CommCount NULL", "count is NULL", c);
  Expect(x, weftCommUserRank(nullptr, nullptr), weftInvalidArgument, "CommUserRank NULL comm",
         "comm is NULL", nullptr);
  Expect(x, weftPlanDescribe(nullptr, nullptr, 0, nullptr), weftInvalidArgument,
         "Describe NULL plan", "plan is NULL", nullptr);
  ExpectUsable(x, "argument errors");
  // Count 0 with NULL buffers is valid.
  x.report->Case(weftAllReduce(nullptr, nullptr, 0, weftDouble, weftSum, c, nullptr) == weftSuccess,
                 "count 0 with NULL buffers");
}

void CommErrors(Ctx& x) {
  weftComm_t other = nullptr;
  Expect(x, weftCommInitMPI(&other, MPI_COMM_NULL), weftInvalidArgument, "init on MPI_COMM_NULL",
         "MPI_COMM_NULL", nullptr);
  Expect(x, weftCommInitMPI(nullptr, MPI_COMM_WORLD), weftInvalidArgument, "init NULL out",
         "comm is NULL", nullptr);
  x.report->Case(weftCommInitMPI(&other, MPI_COMM_WORLD) == weftSuccess, "second comm",
                 weftGetLastError(nullptr));
  x.report->Case(weftCommDestroy(other) == weftSuccess, "destroy second comm");
  double v = 1.0;
  Expect(x, weftAllReduce(&v, &v, 1, weftDouble, weftSum, other, nullptr), weftInvalidUsage,
         "use destroyed comm", "destroyed", other);
  Expect(x, weftCommDestroy(other), weftInvalidUsage, "destroy twice", "destroyed", nullptr);
  if (x.size >= 2) {  // an inter-communicator between the two halves of the world
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, x.rank % 2, x.rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, x.rank % 2 == 0 ? 1 : 0, 77, &inter);
    Expect(x, weftCommInitMPI(&other, inter), weftInvalidArgument, "inter-communicator",
           "inter-communicators", nullptr);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
  ExpectUsable(x, "communicator errors");
}

void InfoCalls(Ctx& x) {
  int version = 0;
  x.report->Case(weftGetVersion(&version) == weftSuccess && version == WEFT_VERSION_CODE,
                 "version");
  Expect(x, weftGetVersion(nullptr), weftInvalidArgument, "version NULL", "version is NULL",
         nullptr);
  bool texts = true;
  for (int r = 0; r < weftNumResults; ++r)
    texts &= std::string(weftGetErrorString(static_cast<weftResult_t>(r))).size() > 3;
  texts &= std::string(weftGetErrorString(static_cast<weftResult_t>(99))).find("unknown") !=
           std::string::npos;
  x.report->Case(texts, "error strings");
}

double Seconds() { return MPI_Wtime(); }

// Errors only the root can see (its buffers of a reduce or bcast): the other ranks must not
// wait for it for ever. With WEFT_CHECK_ARGS=1 every rank learns of the error in the argument
// agreement and the communicator stays usable; without it the root breaks the communicator
// and tells its node peers, whose waits end with weftRemoteError at once. Each case runs on a
// communicator of its own, aborted after.
void RootOnlyErrors(Ctx& x, bool check_args) {
  if (x.size < 2) return;
  std::vector<double> a(64, 1.0), b(64);
  auto fresh = [&](const char* what) {
    weftComm_t c = nullptr;
    x.report->Case(weftCommInitMPI(&c, MPI_COMM_WORLD) == weftSuccess,
                   std::string("root-only: comm for ") + what);
    return c;
  };
  auto after = [&](weftComm_t c, const std::string& what) {
    // Every rank now fails (or, with the check, still works): nobody waits for ever.
    double v = 1.0;
    weftResult_t r = weftAllReduce(&v, &v, 1, weftDouble, weftSum, c, nullptr);
    x.report->Case(check_args ? r == weftSuccess : r != weftSuccess,
                   what + ": the next call " + (check_args ? "works" : "fails"),
                   weftGetLastError(c));
    weftCommAbort(c);
  };
  {  // bcast: the root's sendbuff is NULL
    weftComm_t c = fresh("bcast");
    const int root = 0;
    const double t0 = Seconds();
    weftResult_t r = weftBroadcast(x.rank == root ? nullptr : a.data(), b.data(), 64, weftDouble,
                                   root, c, nullptr);
    const double took = Seconds() - t0;
    if (x.rank == root) {
      Expect(x, r, weftInvalidArgument, "root-only: bcast NULL sendbuff at the root",
             "sendbuff is NULL", c);
    } else {
      x.report->Case(r == weftRemoteError && took < 5.0,
                     "root-only: bcast receivers learn of the root's error",
                     std::string(weftGetErrorString(r)) + " after " + std::to_string(took) +
                         " s: " + weftGetLastError(c));
    }
    after(c, "root-only bcast");
  }
  {  // reduce: the root's recvbuff overlaps its sendbuff by one byte
    weftComm_t c = fresh("reduce");
    const int root = x.size - 1;
    char* base = reinterpret_cast<char*>(a.data());
    const double* recv =
        x.rank == root ? reinterpret_cast<const double*>(base + 8 * 16 - 1) : b.data();
    weftResult_t r =
        weftReduce(a.data(), const_cast<double*>(recv), 16, weftDouble, weftSum, root, c, nullptr);
    if (x.rank == root) {
      Expect(x, r, weftInvalidArgument, "root-only: reduce buffers overlapping by one byte",
             "overlap", c);
    } else {
      // A non-root may finish without the root (it only sends); if not, it learns the error.
      x.report->Case(r == weftSuccess || r == weftRemoteError, "root-only: reduce non-roots return",
                     weftGetLastError(c));
    }
    after(c, "root-only reduce");
  }
  if (!check_args) {  // a bcast plan whose root was made with a NULL buffer
    weftComm_t c = fresh("plan");
    weftPlan_t plan = nullptr;
    weftResult_t r =
        weftBroadcastInit(x.rank == 0 ? nullptr : a.data(), b.data(), 64, weftDouble, 0, c, &plan);
    if (x.rank == 0) {
      Expect(x, r, weftInvalidArgument, "root-only: bcast plan with a NULL root buffer",
             "sendbuff is NULL", c);
    } else {
      const double t0 = Seconds();
      if (r == weftSuccess) r = weftPlanStart(plan, nullptr);
      if (r == weftSuccess) r = weftPlanWait(plan);
      const double took = Seconds() - t0;
      x.report->Case(r == weftRemoteError && took < 5.0,
                     "root-only: the other ranks' plan starts end",
                     std::string(weftGetErrorString(r)) + " after " + std::to_string(took) + " s");
      weftPlanFree(plan);
    }
    weftCommAbort(c);
  }
}

// Needs WEFT_CHECK_ARGS=1: ranks disagree, and every rank is told so.
void DisagreementErrors(Ctx& x) {
  if (x.size < 2) return;
  std::vector<double> a(16, 1.0), b(16);
  weftResult_t r =
      weftBroadcast(a.data(), b.data(), 16, weftDouble, x.rank == 0 ? 0 : 1, x.comm, nullptr);
  Expect(x, r, weftInvalidUsage, "mismatched roots", "disagree on the root", x.comm);
  r = weftAllReduce(a.data(), b.data(), x.rank == 0 ? 16 : 8, weftDouble, weftSum, x.comm, nullptr);
  Expect(x, r, weftInvalidUsage, "mismatched counts", "disagree on the count", x.comm);
  r = weftAllReduce(a.data(), b.data(), 8, weftDouble, x.rank == 0 ? weftMax : weftSum, x.comm,
                    nullptr);
  Expect(x, r, weftInvalidUsage, "mismatched ops", "disagree on the op", x.comm);
  ExpectUsable(x, "disagreements");
}

}  // namespace

int main(int argc, char** argv) {
  return mpt::RunSuite(&argc, &argv, "bad_input", [&](Ctx& x) {
    bool check_args = argc > 1 && std::string(argv[1]) == "--check-args";
    if (check_args) {
      DisagreementErrors(x);
    } else {
      ArgumentErrors(x);
      CommErrors(x);
      InfoCalls(x);
    }
    RootOnlyErrors(x, check_args);
  });
}
