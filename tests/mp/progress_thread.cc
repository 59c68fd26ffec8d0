// The progress thread (WEFT_PROGRESS_THREAD=1) advances nonblocking collectives while the
// caller makes no weft call: each rank posts a pipelined shared-memory collective (4 MiB: many
// slot rounds, far more than a post runs), sleeps, and finds the whole result in its buffer
// before it tests or waits. Without the thread the post stops at its first unmet wait and the
// buffer stays partly unwritten (the test then fails: run it with the thread off to see).
// Also: many in flight at once, freed requests, and a persistent plan, each checked after the
// sleep and again after the wait.
#include <unistd.h>

#include <cstdlib>

#include "mp_check.h"

namespace {

constexpr size_t kCount = size_t{1} << 19;  // doubles: 4 MiB

// Sum over ranks of Fill(rank, i): rank r contributes r + 1 + i % 7 at element i.
double Expected(int size, size_t i) {
  double e = 0;
  for (int r = 0; r < size; ++r) e += r + 1 + static_cast<double>(i % 7);
  return e;
}

void FillMine(std::vector<double>& v, int rank) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = rank + 1 + static_cast<double>(i % 7);
}

size_t Wrong(const std::vector<double>& v, int size) {
  size_t wrong = 0;
  for (size_t i = 0; i < v.size(); ++i) wrong += v[i] != Expected(size, i);
  return wrong;
}

// Sleeps until the buffer holds the result or 10 s pass (a loaded machine may take a while),
// making no weft call; the number of wrong elements at the end.
size_t SleepUntilDone(const std::vector<double>& v, int size) {
  size_t wrong = Wrong(v, size);
  for (int ms = 0; ms < 10000 && wrong > 0; ms += 20) {
    usleep(20000);
    wrong = Wrong(v, size);
  }
  return wrong;
}

void OneInFlight(const mpt::Ctx& x) {
  std::vector<double> send(kCount), recv(kCount, -1.0);
  FillMine(send, x.rank);
  weftRequest_t req = nullptr;
  const weftResult_t r =
      weftIAllReduce(send.data(), recv.data(), kCount, weftFloat64, weftSum, x.comm, &req);
  x.report->Case(r == weftSuccess, "post");
  const size_t before = SleepUntilDone(recv, x.size);
  x.report->Case(before == 0, "result before any test or wait",
                 std::to_string(before) + " elements not yet written");
  x.report->Case(weftRequestWait(&req) == weftSuccess && Wrong(recv, x.size) == 0, "wait");
}

void ManyInFlight(const mpt::Ctx& x) {
  constexpr int kCalls = 6;
  std::vector<std::vector<double>> send(kCalls, std::vector<double>(kCount / 8)),
      recv(kCalls, std::vector<double>(kCount / 8, -1.0));
  std::vector<weftRequest_t> reqs(kCalls, nullptr);
  for (int c = 0; c < kCalls; ++c) {
    FillMine(send[c], x.rank);
    const weftResult_t r = weftIAllReduce(send[c].data(), recv[c].data(), kCount / 8, weftFloat64,
                                          weftSum, x.comm, &reqs[c]);
    x.report->Case(r == weftSuccess, "post " + std::to_string(c));
  }
  // The later ones begin as the earlier ones free the node segment, in the progress thread too.
  weftRequestFree(&reqs[0]);  // freed while running: the progress goes on
  for (int c = 0; c < kCalls; ++c) {
    const size_t wrong = SleepUntilDone(recv[c], x.size);
    x.report->Case(wrong == 0, "call " + std::to_string(c) + " of many before any wait",
                   std::to_string(wrong) + " elements not yet written");
  }
  x.report->Case(weftRequestWaitall(kCalls - 1, reqs.data() + 1) == weftSuccess, "waitall");
  for (int c = 1; c < kCalls; ++c) {
    x.report->Case(Wrong(recv[c], x.size) == 0, "result " + std::to_string(c));
  }
}

void Plan(const mpt::Ctx& x) {
  std::vector<double> send(kCount), recv(kCount, -1.0);
  FillMine(send, x.rank);
  weftPlan_t plan = nullptr;
  x.report->Case(weftAllReduceInit(send.data(), recv.data(), kCount, weftFloat64, weftSum, x.comm,
                                   &plan) == weftSuccess,
                 "plan");
  for (int round = 0; round < 2; ++round) {
    std::fill(recv.begin(), recv.end(), -1.0);
    x.report->Case(weftPlanStart(plan, nullptr) == weftSuccess, "plan start");
    x.report->Case(SleepUntilDone(recv, x.size) == 0, "plan result before its wait");
    x.report->Case(weftPlanWait(plan) == weftSuccess && Wrong(recv, x.size) == 0, "plan wait");
  }
  weftPlanFree(plan);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpt::Report report(MPI_COMM_WORLD);
  mpt::Ctx x;
  x.report = &report;
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.size);
  if (weftCommInitMPI(&x.comm, MPI_COMM_WORLD) != weftSuccess) {
    std::fprintf(stderr, "weftCommInitMPI failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  OneInFlight(x);
  ManyInFlight(x);
  Plan(x);
  weftCommDestroy(x.comm);
  const int rc = report.Finish("progress_thread");
  MPI_Finalize();
  return rc;
}
