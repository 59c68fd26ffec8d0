// Nonblocking collectives: MPI_Iallreduce, MPI_Ireduce, MPI_Ibcast, MPI_Iallgather,
// MPI_Ialltoall, MPI_Ireduce_scatter_block, MPI_Ireduce_scatter, MPI_Ibarrier. The same
// serve-or-native choice as the blocking calls (shim_route.cc); a served call starts weft's
// nonblocking collective and hands the user a generalized request that completes with it
// (shim_requests.h), so the request mixes with native ones in every completion call.
#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"
#include "shim_stats.h"

using namespace weft::shim;

extern "C" {

int MPI_Iallreduce(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                   MPI_Request* req) {
  return Guard([&] {
    return Post(
        {Kind::kAllreduce, "MPI_Iallreduce", s, r, size_t(n), dt, size_t(n), dt, op, 0, comm}, req,
        [&] { return PMPI_Iallreduce(s, r, n, dt, op, comm, req); });
  });
}

int MPI_Ireduce(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kReduce, "MPI_Ireduce", s, r, size_t(n), dt, size_t(n), dt, op, root, comm},
                req, [&] { return PMPI_Ireduce(s, r, n, dt, op, root, comm, req); });
  });
}

int MPI_Ibcast(void* buf, int n, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kBcast, "MPI_Ibcast", buf, buf, size_t(n), dt, size_t(n), dt, MPI_OP_NULL,
                 root, comm},
                req, [&] { return PMPI_Ibcast(buf, n, dt, root, comm, req); });
  });
}

int MPI_Iallgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kAllgather, "MPI_Iallgather", s, r, size_t(sn), st, size_t(rn), rt,
                 MPI_OP_NULL, 0, comm},
                req, [&] { return PMPI_Iallgather(s, sn, st, r, rn, rt, comm, req); });
  });
}

int MPI_Ialltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                  MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kAlltoall, "MPI_Ialltoall", s, r, size_t(sn), st, size_t(rn), rt,
                 MPI_OP_NULL, 0, comm},
                req, [&] { return PMPI_Ialltoall(s, sn, st, r, rn, rt, comm, req); });
  });
}

int MPI_Ireduce_scatter_block(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kReduceScatterBlock, "MPI_Ireduce_scatter_block", s, r, size_t(n), dt,
                 size_t(n), dt, op, 0, comm},
                req, [&] { return PMPI_Ireduce_scatter_block(s, r, n, dt, op, comm, req); });
  });
}

int MPI_Ireduce_scatter(const void* s, void* r, const int counts[], MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return ReduceScatter(s, r, counts, dt, op, comm, req,
                         [&] { return PMPI_Ireduce_scatter(s, r, counts, dt, op, comm, req); });
  });
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* req) {
  return Guard([&] { return Barrier(comm, req, [&] { return PMPI_Ibarrier(comm, req); }); });
}

}  // extern "C"
