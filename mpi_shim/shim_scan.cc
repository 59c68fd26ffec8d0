// The prefix reductions: MPI_Scan, MPI_Exscan, their nonblocking forms and the large-count _c
// forms where the library has them (MPI 4). Routed like every reduction (shim_route.cc: the
// signature's basic type and the op, shared by every rank); a served call runs weft's compiled
// scan on the same buffers. Exscan's rank 0 gets no result: weft leaves its buffer as it was.
#include "shim_colls.h"
#include "shim_requests.h"

using namespace weft::shim;

namespace {

CallArgs ScanArgs(bool exclusive, const char* fn, const void* s, void* r, size_t n, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm) {
  return {exclusive ? Kind::kExscan : Kind::kScan, fn, s, r, n, dt, n, dt, op, 0, comm};
}

}  // namespace

extern "C" {

int MPI_Scan(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return Guard([&] {
    return Run(ScanArgs(false, "MPI_Scan", s, r, size_t(n), dt, op, comm),
               [&] { return PMPI_Scan(s, r, n, dt, op, comm); });
  });
}

int MPI_Exscan(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return Guard([&] {
    return Run(ScanArgs(true, "MPI_Exscan", s, r, size_t(n), dt, op, comm),
               [&] { return PMPI_Exscan(s, r, n, dt, op, comm); });
  });
}

int MPI_Iscan(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
              MPI_Request* req) {
  return Guard([&] {
    return Post(ScanArgs(false, "MPI_Iscan", s, r, size_t(n), dt, op, comm), req,
                [&] { return PMPI_Iscan(s, r, n, dt, op, comm, req); });
  });
}

int MPI_Iexscan(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                MPI_Request* req) {
  return Guard([&] {
    return Post(ScanArgs(true, "MPI_Iexscan", s, r, size_t(n), dt, op, comm), req,
                [&] { return PMPI_Iexscan(s, r, n, dt, op, comm, req); });
  });
}

#if MPI_VERSION >= 4
int MPI_Scan_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return Guard([&] {
    return Run(ScanArgs(false, "MPI_Scan_c", s, r, size_t(n), dt, op, comm),
               [&] { return PMPI_Scan_c(s, r, n, dt, op, comm); });
  });
}

int MPI_Exscan_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return Guard([&] {
    return Run(ScanArgs(true, "MPI_Exscan_c", s, r, size_t(n), dt, op, comm),
               [&] { return PMPI_Exscan_c(s, r, n, dt, op, comm); });
  });
}
#endif

}  // extern "C"
