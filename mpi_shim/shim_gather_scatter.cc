// MPI_Gather, MPI_Scatter and their nonblocking forms run as weft's gather and scatter (compiled
// schedules: oneshot or cma inside a node, the k-nomial tree across nodes). The serve-or-native
// choice uses the block's bytes, which every rank knows (shim_route.cc, PrepareRootedMove).
#include "shim_colls.h"
#include "shim_requests.h"

using namespace weft::shim;

extern "C" {

int MPI_Gather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
               MPI_Comm comm) {
  return Guard([&] {
    return Run({Kind::kGather, "MPI_Gather", s, r, size_t(sn), st, size_t(rn), rt, MPI_OP_NULL,
                root, comm},
               [&] { return PMPI_Gather(s, sn, st, r, rn, rt, root, comm); });
  });
}

int MPI_Scatter(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
                MPI_Comm comm) {
  return Guard([&] {
    return Run({Kind::kScatter, "MPI_Scatter", s, r, size_t(sn), st, size_t(rn), rt, MPI_OP_NULL,
                root, comm},
               [&] { return PMPI_Scatter(s, sn, st, r, rn, rt, root, comm); });
  });
}

int MPI_Igather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
                MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kGather, "MPI_Igather", s, r, size_t(sn), st, size_t(rn), rt, MPI_OP_NULL,
                 root, comm},
                req, [&] { return PMPI_Igather(s, sn, st, r, rn, rt, root, comm, req); });
  });
}

int MPI_Iscatter(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt, int root,
                 MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return Post({Kind::kScatter, "MPI_Iscatter", s, r, size_t(sn), st, size_t(rn), rt, MPI_OP_NULL,
                 root, comm},
                req, [&] { return PMPI_Iscatter(s, sn, st, r, rn, rt, root, comm, req); });
  });
}

}  // extern "C"
