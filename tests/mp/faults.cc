// One rank fails (WEFT_FAULT injects it; see src/core/fault.h) and every rank must come out
// with an error, never hang:
//   --device-setup  WEFT_FAULT=device_setup:1: rank 1's device backend fails while the
//                   communicator is made. Every rank's weftCommInitMPI fails (rank 1 with its
//                   own error, the others with weftRemoteError) within seconds.
//   --after-send    WEFT_FAULT=exec_after_send:1, WEFT_SHM=0, a forced point-to-point recipe:
//                   rank 1 fails right after posting its first message of an allreduce. Rank 1
//                   returns its error, the others weftTimeout (or weftRemoteError) within
//                   WEFT_TIMEOUT_S plus two seconds (their MPI waits poll against it), and on
//                   every rank the communicator is broken: the next call fails at once and
//                   weftCommGetAsyncError names the failure.
//   --staging       WEFT_DEVICE=emulated, WEFT_FAULT=staging_copy:1, small staging chunks: rank 1's
//                   copy of a device buffer's second chunk fails. Rank 1 returns its error; the
//                   others, waiting in that chunk's collective, return weftRemoteError within
//                   seconds (before, they waited for ever).
//   --churn N       N communicators made and destroyed in turn: resident memory after them
//                   within 16 MiB of what it was after the first 100 (printed), nothing left
//                   in /dev/shm. For scripts/fault-matrix.sh (10,000) and ctest (a few hundred).
//   --abort-thread  a second thread calls weftCommAbort while the main thread waits on the same
//                   communicator in a call rank 1 never joins (a blocking allreduce, a
//                   request's wait, a plan's wait; WEFT_TIMEOUT_S stays 600): the waiting call
//                   returns weftInvalidUsage naming the abort within two seconds, the abort
//                   returns success, and the communicator is freed once the call has left
//                   (before, abort freed the call's objects under it).
//   --shm-grow      WEFT_FAULT=shm_grow:0 (the node of world rank 0), WEFT_RECIPE=shmpipe@1M
//                   (or a NODE/NET recipe across virtual nodes): the node segment cannot grow
//                   for a large call. That call runs on a program built again without the
//                   segment and is right, as are the same call again and a plan made before
//                   (before, the call failed on every rank of one node and the plan at each
//                   start; on two nodes, the ranks of the node that grew waited until the
//                   timeout).
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mp_check.h"

namespace {

double Seconds() { return MPI_Wtime(); }

void DeviceSetup(mpt::Report& report, int rank) {
  weftComm_t comm = nullptr;
  const double t0 = Seconds();
  weftResult_t r = weftCommInitMPI(&comm, MPI_COMM_WORLD);
  const double took = Seconds() - t0;
  const std::string why = std::string(weftGetErrorString(r)) + ": " + weftGetLastError(nullptr);
  if (rank == 1) {
    report.Case(r == weftSystemError && why.find("injected") != std::string::npos,
                "the failing rank reports its own error", why);
  } else {
    report.Case(r == weftRemoteError && comm == nullptr, "the others learn of it", why);
  }
  report.Case(took < 10.0, "nobody waits", std::to_string(took) + " s");
}

void AfterSend(mpt::Report& report, int rank, double timeout_s) {
  weftComm_t comm = nullptr;
  if (weftCommInitMPI(&comm, MPI_COMM_WORLD) != weftSuccess) {
    report.Case(false, "init", weftGetLastError(nullptr));
    return;
  }
  const size_t n = 1 << 17;  // 1 MiB of doubles: several messages each way
  std::vector<double> a(n, 1.0), b(n);
  const double t0 = Seconds();
  weftResult_t r = weftAllReduce(a.data(), b.data(), n, weftDouble, weftSum, comm, nullptr);
  const double took = Seconds() - t0;
  const std::string why = std::string(weftGetErrorString(r)) + " after " + std::to_string(took) +
                          " s: " + weftGetLastError(comm);
  if (rank == 1) {
    report.Case(r == weftSystemError && why.find("injected") != std::string::npos,
                "the failing rank reports its own error", why);
  } else {
    report.Case((r == weftTimeout || r == weftRemoteError) && took < timeout_s + 2.0,
                "the others give up by the deadline", why);
  }
  const double t1 = Seconds();
  r = weftAllReduce(a.data(), b.data(), 8, weftDouble, weftSum, comm, nullptr);
  report.Case(r == weftRemoteError && Seconds() - t1 < 1.0,
              "the communicator is broken: the next call fails at once", weftGetLastError(comm));
  weftResult_t async = weftSuccess;
  report.Case(weftCommGetAsyncError(comm, &async) == weftSuccess && async != weftSuccess,
              "weftCommGetAsyncError reports it", weftGetErrorString(async));
  report.Case(weftCommAbort(comm) == weftSuccess, "abort");
}

void ShmGrow(mpt::Report& report, int size) {
  weftComm_t comm = nullptr;
  if (weftCommInitMPI(&comm, MPI_COMM_WORLD) != weftSuccess) {
    report.Case(false, "init", weftGetLastError(nullptr));
    return;
  }
  const size_t n = 1 << 20;  // 8 MiB of doubles: slots of 1 MiB windows, past the first segment
  std::vector<double> a(n, 1.0), b(n, 0.0), c(n, 0.0);
  // A small call first: across nodes it makes the first segment (lazily), which the large
  // call must then grow.
  double one = 1.0;
  weftResult_t r0 = weftAllReduce(&one, &one, 1, weftDouble, weftSum, comm, nullptr);
  report.Case(r0 == weftSuccess && one == size, "a small call first", weftGetLastError(comm));
  // Made before the failure, for the segment: its starts find it gone.
  weftPlan_t plan = nullptr;
  weftResult_t r = weftAllReduceInit(a.data(), c.data(), n, weftDouble, weftSum, comm, &plan);
  report.Case(r == weftSuccess, "a plan for the large call", weftGetLastError(comm));
  for (int round = 0; round < 3; ++round) {
    b.assign(n, 0.0);
    r = weftAllReduce(a.data(), b.data(), n, weftDouble, weftSum, comm, nullptr);
    report.Case(
        r == weftSuccess && b[0] == size && b[n / 2 + 1] == size && b[n - 1] == size,
        "the call that needs a larger segment is right (round " + std::to_string(round) + ")",
        std::string(weftGetErrorString(r)) + ": " + weftGetLastError(comm));
  }
  for (int round = 0; round < 2 && plan != nullptr; ++round) {
    c.assign(n, 0.0);
    r = weftPlanStart(plan, nullptr);
    if (r == weftSuccess) r = weftPlanWait(plan);
    report.Case(r == weftSuccess && c[0] == size && c[n - 1] == size,
                "the plan made before is right (start " + std::to_string(round) + ")",
                std::string(weftGetErrorString(r)) + ": " + weftGetLastError(comm));
  }
  if (plan != nullptr) weftPlanFree(plan);
  double v = 1.0;
  r = weftAllReduce(&v, &v, 1, weftDouble, weftSum, comm, nullptr);
  report.Case(r == weftSuccess && v == size, "small calls still work", weftGetLastError(comm));
  report.Case(weftCommDestroy(comm) == weftSuccess, "destroy");
}

void Staging(mpt::Report& report, int rank) {
  weftComm_t comm = nullptr;
  if (weftCommInitMPI(&comm, MPI_COMM_WORLD) != weftSuccess) {
    report.Case(false, "init", weftGetLastError(nullptr));
    return;
  }
  const size_t n = 4096;  // 32 KiB of doubles: 8 chunks of 4 KiB
  void *a = nullptr, *b = nullptr;
  if (weftDeviceMalloc(&a, n * sizeof(double)) != weftSuccess ||
      weftDeviceMalloc(&b, n * sizeof(double)) != weftSuccess) {
    report.Case(false, "weftDeviceMalloc (WEFT_DEVICE=emulated?)", weftGetLastError(nullptr));
    return;
  }
  const double t0 = Seconds();
  weftResult_t r = weftAllReduce(a, b, n, weftDouble, weftSum, comm, nullptr);
  const double took = Seconds() - t0;
  const std::string why = std::string(weftGetErrorString(r)) + " after " + std::to_string(took) +
                          " s: " + weftGetLastError(comm);
  if (rank == 1) {
    report.Case(r == weftUnhandledDeviceError && why.find("injected") != std::string::npos,
                "the failing rank reports its staging error", why);
  } else {
    report.Case(r == weftRemoteError && took < 5.0, "the others learn of it within seconds", why);
  }
  weftDeviceFree(a);
  weftDeviceFree(b);
  report.Case(weftCommAbort(comm) == weftSuccess, "abort");
}

long ResidentKiB() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// This process's weft segments in /dev/shm (named weft-PID-SERIAL by the node's rank 0; other
// tests running beside this one make their own).
int WeftSegments() {
  const std::string mine = "weft-" + std::to_string(getpid()) + "-";
  int n = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d)) n += std::strncmp(e->d_name, mine.c_str(), mine.size()) == 0;
    closedir(d);
  }
  return n;
}

void Churn(mpt::Report& report, int rank, long cycles) {
  long after_warmup = 0;
  bool ok = true;
  const double t0 = Seconds();
  for (long i = 0; i < cycles && ok; ++i) {
    weftComm_t c = nullptr;
    ok = weftCommInitMPI(&c, MPI_COMM_WORLD) == weftSuccess;
    double v = 1.0;  // one call each, so that every communicator sets up its segment fully
    ok = ok && weftAllReduce(&v, &v, 1, weftDouble, weftSum, c, nullptr) == weftSuccess;
    ok = ok && weftCommDestroy(c) == weftSuccess;
    if (i == 99) after_warmup = ResidentKiB();
  }
  const long end = ResidentKiB();
  const double took = Seconds() - t0;
  if (rank == 0) {
    std::printf(
        "churn: %ld cycles in %.1f s; resident %ld KiB after 100, %ld KiB after all "
        "(%+ld KiB); weft segments in /dev/shm: %d\n",
        cycles, took, after_warmup, end, end - after_warmup, WeftSegments());
    std::fflush(stdout);
  }
  report.Case(ok, "every cycle made, used and destroyed a communicator", weftGetLastError(nullptr));
  report.Case(cycles < 100 || end - after_warmup < 16 * 1024, "memory stays flat",
              std::to_string(end - after_warmup) + " KiB more");
  MPI_Barrier(MPI_COMM_WORLD);
  report.Case(WeftSegments() == 0, "nothing left in /dev/shm");
}

}  // namespace

// Rank 0 waits in form (0 blocking, 1 request, 2 plan) on a call rank 1 never joins; a thread
// of rank 0 aborts the communicator meanwhile.
void AbortThread(mpt::Report& report, int rank) {
  const char* forms[3] = {"a blocking allreduce", "a request's wait", "a plan's wait"};
  for (int form = 0; form < 3; ++form) {
    weftComm_t comm = nullptr;
    if (weftCommInitMPI(&comm, MPI_COMM_WORLD) != weftSuccess) {
      report.Case(false, "init", weftGetLastError(nullptr));
      return;
    }
    const size_t n = 1024;
    std::vector<double> a(n, 1.0), b(n);
    weftPlan_t plan = nullptr;  // plan creation is collective: both ranks make it
    if (form == 2 &&
        weftAllReduceInit(a.data(), b.data(), n, weftDouble, weftSum, comm, &plan) != weftSuccess) {
      report.Case(false, "plan", weftGetLastError(comm));
      return;
    }
    if (rank == 0) {
      weftResult_t aborted = weftInternalError;
      std::thread aborter([&] {
        usleep(300 * 1000);  // the main thread is waiting by then
        aborted = weftCommAbort(comm);
      });
      const double t0 = Seconds();
      weftResult_t r = weftSuccess;
      if (form == 0) r = weftAllReduce(a.data(), b.data(), n, weftDouble, weftSum, comm, nullptr);
      if (form == 1) {
        weftRequest_t q = nullptr;
        r = weftIAllReduce(a.data(), b.data(), n, weftDouble, weftSum, comm, &q);
        if (r == weftSuccess) r = weftRequestWait(&q);
      }
      if (form == 2) {
        r = weftPlanStart(plan, nullptr);
        if (r == weftSuccess) r = weftPlanWait(plan);
      }
      const double took = Seconds() - t0;
      const std::string why = weftGetLastError(nullptr);
      aborter.join();
      report.Case(r == weftInvalidUsage && why.find("aborted") != std::string::npos,
                  std::string(forms[form]) + " ends with the abort", why);
      report.Case(took < 2.0, std::string(forms[form]) + " ends at once",
                  std::to_string(took) + " s");
      report.Case(aborted == weftSuccess, std::string(forms[form]) + ": the abort succeeds");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) weftCommAbort(comm);  // never joined the call
    if (plan != nullptr) {
      report.Case(weftPlanFree(plan) == weftSuccess, "the detached plan frees",
                  weftGetLastError(nullptr));
    }
  }
}

int main(int argc, char** argv) {
  // A second thread calls weft in --abort-thread (and may free the communicator's MPI objects).
  int provided = 0;
  if (argc > 1 && std::strcmp(argv[1], "--abort-thread") == 0) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  mpt::Report report(MPI_COMM_WORLD);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* t = std::getenv("WEFT_TIMEOUT_S");
  if (size < 2) {
    report.Case(false, "needs at least 2 ranks");
  } else if (mode == "--device-setup") {
    DeviceSetup(report, rank);
  } else if (mode == "--staging") {
    Staging(report, rank);
  } else if (mode == "--churn") {
    Churn(report, rank, argc > 2 ? std::atol(argv[2]) : 300);
  } else if (mode == "--abort-thread") {
    AbortThread(report, rank);
  } else if (mode == "--shm-grow") {
    ShmGrow(report, size);
  } else if (mode == "--after-send") {
    AfterSend(report, rank, t ? std::atof(t) : 600);
  } else {
    report.Case(false, "unknown mode '" + mode + "'");
  }
  const int rc = report.Finish(("faults " + mode).c_str());
  MPI_Finalize();
  return rc;
}
