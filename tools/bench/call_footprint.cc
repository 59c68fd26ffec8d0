// weft-call-footprint: one blocking call between two marker loads, for valgrind's lackey to
// trace (scripts/count-call-footprint.sh counts the distinct cache lines and pages the call
// touches: what a call that comes cold must fetch).
//   weft-call-footprint COLL BYTES     (COLL: allreduce, broadcast, reduce, allgather)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "weft/weft.h"

// Loads of marker[0] and marker[4096] bracket the traced call.
alignas(4096) volatile char g_marker[8192];

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: weft-call-footprint COLL BYTES\n");
    MPI_Finalize();
    return 2;
  }
  const char* coll = argv[1];
  const size_t count = std::max<size_t>(std::strtoull(argv[2], nullptr, 10) / 8, 1);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  weftComm_t comm = nullptr;
  if (weftCommInitMPI(&comm, MPI_COMM_WORLD) != weftSuccess) {
    std::fprintf(stderr, "weftCommInitMPI failed: %s\n", weftGetLastError(nullptr));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::vector<double> send(count * size, 1.0), recv(count * size, 0.0);
  const char* const kColls[] = {"allreduce", "broadcast", "reduce", "allgather"};
  int kind = 0;
  while (kind < 4 && std::strcmp(coll, kColls[kind]) != 0) ++kind;
  if (kind == 4) {
    std::fprintf(stderr, "weft-call-footprint: unknown collective %s\n", coll);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  auto call = [&] {  // nothing but the call itself between the markers
    switch (kind) {
      case 0:
        return weftAllReduce(send.data(), recv.data(), count, weftFloat64, weftSum, comm, nullptr);
      case 1:
        return weftBroadcast(send.data(), recv.data(), count, weftFloat64, 0, comm, nullptr);
      case 2:
        return weftReduce(send.data(), recv.data(), count, weftFloat64, weftSum, 0, comm, nullptr);
      case 3:
        return weftAllGather(send.data(), recv.data(), count, weftFloat64, comm, nullptr);
    }
    return weftInvalidArgument;
  };
  int rc = 0;
  for (int i = 0; i < 50 && rc == 0; ++i) {  // built, cached, and the segment grown
    MPI_Barrier(MPI_COMM_WORLD);
    rc = call();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::printf("rank %d marker %p\n", rank, static_cast<void*>(const_cast<char*>(g_marker)));
  std::fflush(stdout);
  (void)g_marker[0];
  if (rc == 0) rc = call();
  (void)g_marker[4096];
  MPI_Barrier(MPI_COMM_WORLD);
  if (rc != 0) std::fprintf(stderr, "%s failed: %s\n", coll, weftGetLastError(comm));
  weftCommDestroy(comm);
  MPI_Finalize();
  return rc == 0 ? 0 : 1;
}
