// The Fortran entry points of the nonblocking and persistent collectives (Open MPI only, as the
// blocking ones: shim_fortran.h). A served call's generalized request (or, persistent, its native
// request) goes back to Fortran through MPI_Request_c2f, so the Fortran completion calls
// (shim_fortran_requests.cc) find it.
#include "shim_fortran.h"

#if WEFT_FORTRAN_BUFFER_ENTRIES

#include "shim_colls.h"

using namespace weft::shim;
using namespace weft::shim::fortran;
using F = MPI_Fint;

namespace {

// A nonblocking routine with fixed counts.
void Fixed(Kind kind, const char* fn, void* s, void* r, F* sn, F* st, F* rn, F* rt, F* op, F* root,
           F* comm, F* req, F* ierr, const NativeFn& native) {
  RequestOut out(req);
  Done(ierr, out.Finish(Guard([&] {
    return Post(FixedArgs(kind, fn, s, r, sn, st, rn, rt, op, root, comm), out.c(),
                [&] { return out.Native(native()); });
  })));
}

void Iallreduce(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* req, F* ierr) {
  Fixed(Kind::kAllreduce, "MPI_Iallreduce", s, r, n, dt, n, dt, op, nullptr, comm, req, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, comm, req); });
}

void Ireduce(Next& next, void* s, void* r, F* n, F* dt, F* op, F* root, F* comm, F* req, F* ierr) {
  Fixed(Kind::kReduce, "MPI_Ireduce", s, r, n, dt, n, dt, op, root, comm, req, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, root, comm, req); });
}

void Ibcast(Next& next, void* buf, F* n, F* dt, F* root, F* comm, F* req, F* ierr) {
  Fixed(Kind::kBcast, "MPI_Ibcast", buf, buf, n, dt, n, dt, nullptr, root, comm, req, ierr,
        [&] { return CallNext(next, buf, n, dt, root, comm, req); });
}

void Iallgather(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* req,
                F* ierr) {
  Fixed(Kind::kAllgather, "MPI_Iallgather", s, r, sn, st, rn, rt, nullptr, nullptr, comm, req, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, comm, req); });
}

void Ialltoall(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* req, F* ierr) {
  Fixed(Kind::kAlltoall, "MPI_Ialltoall", s, r, sn, st, rn, rt, nullptr, nullptr, comm, req, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, comm, req); });
}

void Igather(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root, F* comm, F* req,
             F* ierr) {
  Fixed(Kind::kGather, "MPI_Igather", s, r, sn, st, rn, rt, nullptr, root, comm, req, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, root, comm, req); });
}

void Iscatter(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root, F* comm, F* req,
              F* ierr) {
  Fixed(Kind::kScatter, "MPI_Iscatter", s, r, sn, st, rn, rt, nullptr, root, comm, req, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, root, comm, req); });
}

void IreduceScatterBlock(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* req,
                         F* ierr) {
  Fixed(Kind::kReduceScatterBlock, "MPI_Ireduce_scatter_block", s, r, n, dt, n, dt, op, nullptr,
        comm, req, ierr, [&] { return CallNext(next, s, r, n, dt, op, comm, req); });
}

void IreduceScatter(Next& next, void* s, void* r, F* counts, F* dt, F* op, F* comm, F* req,
                    F* ierr) {
  RequestOut out(req);
  Done(ierr, out.Finish(Guard([&] {
    return ReduceScatter(Buf(s), Buf(r), counts, Type(dt), Op(op), Comm(comm), out.c(), [&] {
      return out.Native(CallNext(next, s, r, counts, dt, op, comm, req));
    });
  })));
}

void Iallgatherv(Next& next, void* s, F* sn, F* st, void* r, F* rc, F* rd, F* rt, F* comm, F* req,
                 F* ierr) {
  RequestOut out(req);
  Done(ierr, out.Finish(Guard([&] {
    return AllGatherV(Buf(s), *sn, Type(st), Buf(r), rc, rd, Type(rt), Comm(comm), out.c(), [&] {
      return out.Native(CallNext(next, s, sn, st, r, rc, rd, rt, comm, req));
    });
  })));
}

void Ialltoallv(Next& next, void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* comm,
                F* req, F* ierr) {
  RequestOut out(req);
  Done(ierr, out.Finish(Guard([&] {
    return AllToAllV(Buf(s), sc, sd, Type(st), Buf(r), rc, rd, Type(rt), Comm(comm), out.c(), [&] {
      return out.Native(CallNext(next, s, sc, sd, st, r, rc, rd, rt, comm, req));
    });
  })));
}

}  // namespace

#define P_RED (void* s, void* r, F* n, F* dt, F* op, F* comm, F* req, F* ierr)
#define A_RED (s, r, n, dt, op, comm, req, ierr)
#define P_MOVE (void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* req, F* ierr)
#define A_MOVE (s, sn, st, r, rn, rt, comm, req, ierr)
#define P_ROOTED (void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root, F* comm, F* req, F* ierr)
#define A_ROOTED (s, sn, st, r, rn, rt, root, comm, req, ierr)

WEFT_FORTRAN_ENTRIES(mpi_iallreduce, MPI_IALLREDUCE, Iallreduce, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_ireduce, MPI_IREDUCE, Ireduce,
                     (void* s, void* r, F* n, F* dt, F* op, F* root, F* comm, F* req, F* ierr),
                     (s, r, n, dt, op, root, comm, req, ierr))
WEFT_FORTRAN_ENTRIES(mpi_ibcast, MPI_IBCAST, Ibcast,
                     (void* b, F* n, F* dt, F* root, F* comm, F* req, F* e),
                     (b, n, dt, root, comm, req, e))
WEFT_FORTRAN_ENTRIES(mpi_iallgather, MPI_IALLGATHER, Iallgather, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpi_ialltoall, MPI_IALLTOALL, Ialltoall, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpi_igather, MPI_IGATHER, Igather, P_ROOTED, A_ROOTED)
WEFT_FORTRAN_ENTRIES(mpi_iscatter, MPI_ISCATTER, Iscatter, P_ROOTED, A_ROOTED)
WEFT_FORTRAN_ENTRIES(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, IreduceScatterBlock,
                     P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER, IreduceScatter, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_iallgatherv, MPI_IALLGATHERV, Iallgatherv,
                     (void* s, F* sn, F* st, void* r, F* rc, F* rd, F* rt, F* comm, F* req,
                      F* ierr),
                     (s, sn, st, r, rc, rd, rt, comm, req, ierr))
WEFT_FORTRAN_ENTRIES(mpi_ialltoallv, MPI_IALLTOALLV, Ialltoallv,
                     (void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* comm, F* req,
                      F* ierr),
                     (s, sc, sd, st, r, rc, rd, rt, comm, req, ierr))

#endif  // WEFT_FORTRAN_BUFFER_ENTRIES
