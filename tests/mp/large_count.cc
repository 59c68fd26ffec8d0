// Counts above INT_MAX (MPI's int count limit): an int8 allreduce, a broadcast and an
// in-place allgather of 2^31 + 9 elements per rank, fully checked. Needs about 4 GiB per rank.
#include <climits>
#include <cstdint>
#include <memory>
#include <string>

#include "mp_check.h"

namespace {

constexpr size_t kCount = static_cast<size_t>(INT_MAX) + 10;

int8_t Input(int rank, size_t i) { return static_cast<int8_t>((i * 7 + rank * 13) & 0xff); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpt::Report report(MPI_COMM_WORLD);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  weftComm_t comm;
  if (weftCommInitMPI(&comm, MPI_COMM_WORLD) != weftSuccess) {
    report.Case(false, "init", weftGetLastError(nullptr));
    return report.Finish("large_count");
  }
  {
    std::unique_ptr<int8_t[]> buf(new int8_t[kCount]);
    for (size_t i = 0; i < kCount; ++i) buf[i] = Input(rank, i);
    weftResult_t r = weftAllReduce(buf.get(), buf.get(), kCount, weftInt8, weftSum, comm, nullptr);
    size_t wrong = 0;
    for (size_t i = 0; i < kCount && r == weftSuccess; ++i) {
      unsigned sum = 0;
      for (int p = 0; p < size; ++p) sum += static_cast<uint8_t>(Input(p, i));
      wrong += buf[i] != static_cast<int8_t>(sum & 0xff);
    }
    report.Case(r == weftSuccess && wrong == 0, "allreduce int8 count 2^31+9",
                r ? weftGetLastError(comm) : std::to_string(wrong) + " wrong");

    if (rank != 0)
      std::memset(buf.get(), 0, kCount);
    else
      for (size_t i = 0; i < kCount; ++i) buf[i] = Input(0, i);
    r = weftBroadcast(buf.get(), buf.get(), kCount, weftInt8, 0, comm, nullptr);
    wrong = 0;
    for (size_t i = 0; i < kCount && r == weftSuccess; ++i) wrong += buf[i] != Input(0, i);
    report.Case(r == weftSuccess && wrong == 0, "broadcast int8 count 2^31+9",
                r ? weftGetLastError(comm) : std::to_string(wrong) + " wrong");
  }
  if (size <= 2) {
    std::unique_ptr<int8_t[]> all(new int8_t[kCount * size]);
    for (size_t i = 0; i < kCount; ++i) all[rank * kCount + i] = Input(rank, i);
    weftResult_t r =
        weftAllGather(all.get() + rank * kCount, all.get(), kCount, weftInt8, comm, nullptr);
    size_t wrong = 0;
    for (int p = 0; p < size && r == weftSuccess; ++p)
      for (size_t i = 0; i < kCount; ++i) wrong += all[p * kCount + i] != Input(p, i);
    report.Case(r == weftSuccess && wrong == 0, "allgather in place int8 sendcount 2^31+9",
                r ? weftGetLastError(comm) : std::to_string(wrong) + " wrong");
  }
  weftCommDestroy(comm);
  int rc = report.Finish("large_count");
  MPI_Finalize();
  return rc;
}
