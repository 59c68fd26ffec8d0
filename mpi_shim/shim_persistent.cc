// Persistent collectives (MPI 4's MPI_*_init, Open MPI 4.1's MPIX_*_init) and MPI_Start. A
// request weft serves is a real, never-started native persistent request (so MPI_Request_free
// and the user's bookkeeping work on it) paired with a weft plan: MPI_Start runs the plan
// instead. The completion calls are in shim_requests.cc.
#include "shim_persistent.h"

#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"

#ifdef WEFT_HAVE_PCOLL

using namespace weft::shim;

namespace weft::shim {

int ServePersistent(const CallArgs& a, MPI_Request* req, const NativeFn& native) {
  Route route = Prepare(a);
  int rc = native();  // a real request in every case: MPI_Request_free and the user's
  if (rc != MPI_SUCCESS || route.comm == nullptr) return rc;  // bookkeeping work on it
  // An empty signature makes an empty plan on every rank; it runs no step.
  weftPlan_t plan = nullptr;
  weftResult_t made = Launch(a, route, &plan, nullptr);
  if (made != weftSuccess) {
    // The native request stays valid and runs natively. Plan creation is collective, as
    // MPI_*_init is, and bad arguments fail it alike on every rank, so every rank makes the
    // same choice here.
    return Finish(made, a.comm, a.fn);
  }
  AddPersistent(*req, plan, route.buf);
  return MPI_SUCCESS;
}

}  // namespace weft::shim

extern "C" {

int WEFT_PCOLL(Allreduce)(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return ServePersistent(
        {Kind::kAllreduce, "MPI_Allreduce_init", s, r, size_t(n), dt, size_t(n), dt, op, 0, comm},
        req, [&] { return WEFT_PPCOLL(Allreduce)(s, r, n, dt, op, comm, info, req); });
  });
}

int WEFT_PCOLL(Reduce)(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return ServePersistent(
        {Kind::kReduce, "MPI_Reduce_init", s, r, size_t(n), dt, size_t(n), dt, op, root, comm}, req,
        [&] { return WEFT_PPCOLL(Reduce)(s, r, n, dt, op, root, comm, info, req); });
  });
}

int WEFT_PCOLL(Bcast)(void* buf, int n, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* req) {
  return Guard([&] {
    return ServePersistent({Kind::kBcast, "MPI_Bcast_init", buf, buf, size_t(n), dt, size_t(n), dt,
                            MPI_OP_NULL, root, comm},
                           req,
                           [&] { return WEFT_PPCOLL(Bcast)(buf, n, dt, root, comm, info, req); });
  });
}

int WEFT_PCOLL(Allgather)(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                          MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return ServePersistent(
        {Kind::kAllgather, "MPI_Allgather_init", s, r, size_t(sn), st, size_t(rn), rt, MPI_OP_NULL,
         0, comm},
        req, [&] { return WEFT_PPCOLL(Allgather)(s, sn, st, r, rn, rt, comm, info, req); });
  });
}

int WEFT_PCOLL(Alltoall)(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return ServePersistent(
        {Kind::kAlltoall, "MPI_Alltoall_init", s, r, size_t(sn), st, size_t(rn), rt, MPI_OP_NULL, 0,
         comm},
        req, [&] { return WEFT_PPCOLL(Alltoall)(s, sn, st, r, rn, rt, comm, info, req); });
  });
}

int WEFT_PCOLL(Reduce_scatter_block)(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return ServePersistent(
        {Kind::kReduceScatterBlock, "MPI_Reduce_scatter_block_init", s, r, size_t(n), dt, size_t(n),
         dt, op, 0, comm},
        req, [&] { return WEFT_PPCOLL(Reduce_scatter_block)(s, r, n, dt, op, comm, info, req); });
  });
}

int MPI_Start(MPI_Request* req) {
  int rc = MPI_SUCCESS;
  return StartPersistent(*req, &rc) ? rc : PMPI_Start(req);
}

int MPI_Startall(int n, MPI_Request reqs[]) {
  for (int i = 0; i < n; ++i) {
    int rc = MPI_Start(&reqs[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // extern "C"

#endif  // WEFT_HAVE_PCOLL
