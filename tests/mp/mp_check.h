// Shared helpers of the multi-rank tests: the validation reference (check/reference.h) and
// reporting that agrees across ranks (a test fails everywhere if it fails anywhere).
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check/reference.h"
#include "weft/weft.h"

namespace mpt {

using namespace weft::check;  // Fill, Reference, CountWrong, TName, ...

/// Collects case results; every rank's failures count for all.
class Report {
 public:
  explicit Report(MPI_Comm c) : comm_(c) { MPI_Comm_rank(c, &rank_); }
  /// Records one case on this rank (ok=false prints the reason with the rank).
  void Case(bool ok, const std::string& name, const std::string& why = "") {
    ++cases_;
    if (!ok) {
      ++failed_;
      if (failed_ <= 20)
        std::fprintf(stderr, "[rank %d] FAIL %s: %s\n", rank_, name.c_str(), why.c_str());
    }
  }
  /// Prints the totals on rank 0; returns the process exit code (0 when nothing failed).
  int Finish(const char* suite) {
    long long mine[2] = {cases_, failed_}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, comm_);
    long long max_cases = 0;
    MPI_Allreduce(&cases_, &max_cases, 1, MPI_LONG_LONG, MPI_MAX, comm_);
    int failing_ranks = 0, me = failed_ > 0;
    MPI_Allreduce(&me, &failing_ranks, 1, MPI_INT, MPI_SUM, comm_);
    if (rank_ == 0) {
      std::printf("%s: %lld cases per rank; %lld passed, %lld failed (over all ranks)\n", suite,
                  max_cases, all[0] - all[1], all[1]);
    }
    return failing_ranks == 0 && max_cases > 0 ? 0 : 1;
  }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  long long cases_ = 0, failed_ = 0;
};

/// What a suite's checks take: weft's communicator over MPI_COMM_WORLD, this rank, the rank
/// count and the report.
struct Ctx {
  weftComm_t comm = nullptr;
  int rank = 0, size = 0;
  Report* report = nullptr;
};

/// A suite's main: MPI_Init, weft's communicator over MPI_COMM_WORLD, body(ctx), the
/// communicator destroyed (a case of its own), the totals on rank 0, MPI_Finalize. Returns the
/// process exit code. body may read argc/argv as MPI_Init left them.
template <typename Body>
int RunSuite(int* argc, char*** argv, const char* suite, Body&& body) {
  MPI_Init(argc, argv);
  int rc = 1;
  {
    Report report(MPI_COMM_WORLD);
    Ctx x;
    x.report = &report;
    MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.size);
    if (weftCommInitMPI(&x.comm, MPI_COMM_WORLD) != weftSuccess) {
      report.Case(false, "weftCommInitMPI", weftGetLastError(nullptr));
    } else {
      body(x);
      report.Case(weftCommDestroy(x.comm) == weftSuccess, "destroy", weftGetLastError(nullptr));
    }
    rc = report.Finish(suite);
  }
  MPI_Finalize();
  return rc;
}

/// Bytes equal on every rank of comm (FNV-1a hash compared with MIN/MAX).
inline bool SameOnAllRanks(MPI_Comm comm, const void* p, size_t bytes) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i)
    h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  uint64_t lo = h, hi = h;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  return lo == hi;
}

}  // namespace mpt
