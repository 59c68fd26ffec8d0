// Back-to-back small collectives with no synchronisation between them, every result checked:
// the latency path lets a rank run up to kBanks - 1 executions ahead of its slowest peer
// (transport/shm/bank_placer.h), and skips entry waits it can prove, so a wrong bank or a
// skipped wait shows here as a value from another call. Mixes bcast and reduce from rotating
// roots (a root waits for nobody and runs ahead), allreduce and allgather (every rank sees every
// stamp), and one large call now and then (the general slot ends a run of banks); and bursts of
// bcasts from one root while the other ranks dawdle, so the root runs as far ahead as the banks
// allow and a missing wait lets it overwrite a bank before it was read.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "mp_check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
  mpt::Report report(MPI_COMM_WORLD);
  weftComm_t comm = nullptr;
  weftResult_t r = weftCommInitMPI(&comm, MPI_COMM_WORLD);
  report.Case(r == weftSuccess, "weftCommInitMPI", weftGetLastError(nullptr));
  if (r != weftSuccess) return report.Finish("latency_stress");
  constexpr size_t kN = 5, kLarge = 1 << 14;  // 40 bytes: banked; 128 KiB: the general slot
  std::vector<double> in(kN), out(kN * size), big_in(kLarge), big_out(kLarge);
  long long wrong = 0, failed = 0;
  // Rank p's contribution to call i: distinct per (i, p, element), exact in double.
  auto value = [](int i, int p, size_t j) { return static_cast<double>(i * 1000 + p * 10 + j); };
  for (int i = 0; i < iters && failed == 0; ++i) {
    for (size_t j = 0; j < kN; ++j) in[j] = value(i, rank, j);
    const int root = i % size;
    switch (i % 5) {
      case 0:  // bcast: the root's values
        if (rank == root) out.assign(in.begin(), in.end());
        r = weftBroadcast(out.data(), out.data(), kN, weftFloat64, root, comm, nullptr);
        for (size_t j = 0; j < kN; ++j) wrong += out[j] != value(i, root, j);
        break;
      case 1:  // reduce: the sum at the root only
        r = weftReduce(in.data(), out.data(), kN, weftFloat64, weftSum, root, comm, nullptr);
        for (size_t j = 0; rank == root && j < kN; ++j) {
          double want = 0;
          for (int p = 0; p < size; ++p) want += value(i, p, j);
          wrong += out[j] != want;
        }
        break;
      case 2:  // allreduce
      case 4: {
        r = weftAllReduce(in.data(), out.data(), kN, weftFloat64, weftMax, comm, nullptr);
        for (size_t j = 0; j < kN; ++j) wrong += out[j] != value(i, size - 1, j);
        break;
      }
      case 3:  // allgather
        r = weftAllGather(in.data(), out.data(), kN, weftFloat64, comm, nullptr);
        for (int p = 0; p < size; ++p) {
          for (size_t j = 0; j < kN; ++j) wrong += out[p * kN + j] != value(i, p, j);
        }
        break;
    }
    failed += r != weftSuccess;
    if (i % 499 == 0) {  // a burst: the root runs ahead while the others sleep before reading
      for (int k = 0; k < 24 && failed == 0; ++k) {
        const int burst_root = (i / 499) % size;
        if (rank != burst_root && k < 12) usleep(200);
        if (rank == burst_root) {
          for (size_t j = 0; j < kN; ++j) out[j] = value(i + k, burst_root, j);
        }
        r = weftBroadcast(out.data(), out.data(), kN, weftFloat64, burst_root, comm, nullptr);
        failed += r != weftSuccess;
        for (size_t j = 0; j < kN; ++j) wrong += out[j] != value(i + k, burst_root, j);
      }
    }
    if (i % 997 == 0) {  // a large call between runs of banked ones
      for (size_t j = 0; j < kLarge; ++j) big_in[j] = value(i, rank, j % 7);
      r = weftAllReduce(big_in.data(), big_out.data(), kLarge, weftFloat64, weftMax, comm, nullptr);
      failed += r != weftSuccess;
      for (size_t j = 0; j < kLarge; ++j) wrong += big_out[j] != value(i, size - 1, j % 7);
    }
  }
  report.Case(failed == 0, "every call succeeded", weftGetLastError(comm));
  report.Case(wrong == 0, "every result right",
              std::to_string(wrong) + " wrong elements in " + std::to_string(iters) + " calls");
  weftCommDestroy(comm);
  const int code = report.Finish("latency_stress");
  MPI_Finalize();
  return code;
}
