// The Fortran entry points of the blocking collectives (mpif.h, use mpi, use mpi_f08; Open MPI
// only: MPICH's Fortran calls these through the C symbols, shim_fortran.h). Each converts its
// handles and sentinels and runs the C entry point's routing; the MPI's own Fortran routine
// runs where weft does not serve. Alltoallw stays MPI's: as in C (shim_native_colls.cc), the
// served nonblocking calls on the communicator complete first.
#include "shim_fortran.h"

#if WEFT_FORTRAN_BUFFER_ENTRIES

#include "shim_colls.h"
#include "shim_requests.h"

using namespace weft::shim;
using namespace weft::shim::fortran;
using F = MPI_Fint;

namespace {

// A routine with fixed counts: the C entry point's CallArgs from the Fortran arguments.
void Fixed(Kind kind, const char* fn, void* s, void* r, F* sn, F* st, F* rn, F* rt, F* op, F* root,
           F* comm, F* ierr, const NativeFn& native) {
  Done(ierr, Guard([&] {
         return Run(FixedArgs(kind, fn, s, r, sn, st, rn, rt, op, root, comm), native);
       }));
}

void Allreduce(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* ierr) {
  Fixed(Kind::kAllreduce, "MPI_Allreduce", s, r, n, dt, n, dt, op, nullptr, comm, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, comm); });
}

void Reduce(Next& next, void* s, void* r, F* n, F* dt, F* op, F* root, F* comm, F* ierr) {
  Fixed(Kind::kReduce, "MPI_Reduce", s, r, n, dt, n, dt, op, root, comm, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, root, comm); });
}

void Bcast(Next& next, void* buf, F* n, F* dt, F* root, F* comm, F* ierr) {
  Fixed(Kind::kBcast, "MPI_Bcast", buf, buf, n, dt, n, dt, nullptr, root, comm, ierr,
        [&] { return CallNext(next, buf, n, dt, root, comm); });
}

void Allgather(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* ierr) {
  Fixed(Kind::kAllgather, "MPI_Allgather", s, r, sn, st, rn, rt, nullptr, nullptr, comm, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, comm); });
}

void Alltoall(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* ierr) {
  Fixed(Kind::kAlltoall, "MPI_Alltoall", s, r, sn, st, rn, rt, nullptr, nullptr, comm, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, comm); });
}

void Gather(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root, F* comm, F* ierr) {
  Fixed(Kind::kGather, "MPI_Gather", s, r, sn, st, rn, rt, nullptr, root, comm, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, root, comm); });
}

void Scatter(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root, F* comm, F* ierr) {
  Fixed(Kind::kScatter, "MPI_Scatter", s, r, sn, st, rn, rt, nullptr, root, comm, ierr,
        [&] { return CallNext(next, s, sn, st, r, rn, rt, root, comm); });
}

void ReduceScatterBlock(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* ierr) {
  Fixed(Kind::kReduceScatterBlock, "MPI_Reduce_scatter_block", s, r, n, dt, n, dt, op, nullptr,
        comm, ierr, [&] { return CallNext(next, s, r, n, dt, op, comm); });
}

void ReduceScatterF(Next& next, void* s, void* r, F* counts, F* dt, F* op, F* comm, F* ierr) {
  Done(ierr, Guard([&] {
         return ReduceScatter(Buf(s), Buf(r), counts, Type(dt), Op(op), Comm(comm), nullptr,
                              [&] { return CallNext(next, s, r, counts, dt, op, comm); });
       }));
}

void Allgatherv(Next& next, void* s, F* sn, F* st, void* r, F* rc, F* rd, F* rt, F* comm, F* ierr) {
  Done(ierr, Guard([&] {
         return AllGatherV(Buf(s), *sn, Type(st), Buf(r), rc, rd, Type(rt), Comm(comm), nullptr,
                           [&] { return CallNext(next, s, sn, st, r, rc, rd, rt, comm); });
       }));
}

void Alltoallv(Next& next, void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* comm,
               F* ierr) {
  Done(ierr, Guard([&] {
         return AllToAllV(Buf(s), sc, sd, Type(st), Buf(r), rc, rd, Type(rt), Comm(comm), nullptr,
                          [&] { return CallNext(next, s, sc, sd, st, r, rc, rd, rt, comm); });
       }));
}

// MPI's routine, after the served nonblocking calls on comm (one atomic load when none runs).
template <typename... A>
void AfterServed(Next& next, F* comm, F* ierr, A... args) {
  if (!NonblockingRunning()) {
    Done(ierr, CallNext(next, args...));
    return;
  }
  Done(ierr, Guard([&] { return RunNative(Comm(comm), [&] { return CallNext(next, args...); }); }));
}

void Gatherv(Next& next, void* s, F* sn, F* st, void* r, F* rc, F* rd, F* rt, F* root, F* comm,
             F* ierr) {
  Done(ierr, Guard([&] {
         return GatherV(Buf(s), *sn, Type(st), Buf(r), rc, rd, Type(rt), *root, Comm(comm), nullptr,
                        [&] { return CallNext(next, s, sn, st, r, rc, rd, rt, root, comm); });
       }));
}

void Scatterv(Next& next, void* s, F* sc, F* sd, F* st, void* r, F* rn, F* rt, F* root, F* comm,
              F* ierr) {
  Done(ierr, Guard([&] {
         return ScatterV(Buf(s), sc, sd, Type(st), Buf(r), *rn, Type(rt), *root, Comm(comm),
                         nullptr,
                         [&] { return CallNext(next, s, sc, sd, st, r, rn, rt, root, comm); });
       }));
}

void Alltoallw(Next& next, void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* comm,
               F* ierr) {
  AfterServed(next, comm, ierr, s, sc, sd, st, r, rc, rd, rt, comm);
}

void Scan(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* ierr) {
  Fixed(Kind::kScan, "MPI_Scan", s, r, n, dt, n, dt, op, nullptr, comm, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, comm); });
}

void Exscan(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* ierr) {
  Fixed(Kind::kExscan, "MPI_Exscan", s, r, n, dt, n, dt, op, nullptr, comm, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, comm); });
}

}  // namespace

#define P_RED (void* s, void* r, F* n, F* dt, F* op, F* comm, F* ierr)
#define A_RED (s, r, n, dt, op, comm, ierr)
#define P_MOVE (void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* ierr)
#define A_MOVE (s, sn, st, r, rn, rt, comm, ierr)
#define P_ROOTED (void* s, F* sn, F* st, void* r, F* rn, F* rt, F* root, F* comm, F* ierr)
#define A_ROOTED (s, sn, st, r, rn, rt, root, comm, ierr)
#define P_V (void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* comm, F* ierr)
#define A_V (s, sc, sd, st, r, rc, rd, rt, comm, ierr)

WEFT_FORTRAN_ENTRIES(mpi_allreduce, MPI_ALLREDUCE, Allreduce, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_reduce, MPI_REDUCE, Reduce,
                     (void* s, void* r, F* n, F* dt, F* op, F* root, F* comm, F* ierr),
                     (s, r, n, dt, op, root, comm, ierr))
WEFT_FORTRAN_ENTRIES(mpi_bcast, MPI_BCAST, Bcast, (void* b, F* n, F* dt, F* root, F* comm, F* e),
                     (b, n, dt, root, comm, e))
WEFT_FORTRAN_ENTRIES(mpi_allgather, MPI_ALLGATHER, Allgather, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpi_alltoall, MPI_ALLTOALL, Alltoall, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpi_gather, MPI_GATHER, Gather, P_ROOTED, A_ROOTED)
WEFT_FORTRAN_ENTRIES(mpi_scatter, MPI_SCATTER, Scatter, P_ROOTED, A_ROOTED)
WEFT_FORTRAN_ENTRIES(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, ReduceScatterBlock, P_RED,
                     A_RED)
WEFT_FORTRAN_ENTRIES(mpi_reduce_scatter, MPI_REDUCE_SCATTER, ReduceScatterF, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_allgatherv, MPI_ALLGATHERV, Allgatherv,
                     (void* s, F* sn, F* st, void* r, F* rc, F* rd, F* rt, F* comm, F* ierr),
                     (s, sn, st, r, rc, rd, rt, comm, ierr))
WEFT_FORTRAN_ENTRIES(mpi_alltoallv, MPI_ALLTOALLV, Alltoallv, P_V, A_V)
WEFT_FORTRAN_ENTRIES(mpi_alltoallw, MPI_ALLTOALLW, Alltoallw, P_V, A_V)
WEFT_FORTRAN_ENTRIES(mpi_gatherv, MPI_GATHERV, Gatherv,
                     (void* s, F* sn, F* st, void* r, F* rc, F* rd, F* rt, F* root, F* comm,
                      F* ierr),
                     (s, sn, st, r, rc, rd, rt, root, comm, ierr))
WEFT_FORTRAN_ENTRIES(mpi_scatterv, MPI_SCATTERV, Scatterv,
                     (void* s, F* sc, F* sd, F* st, void* r, F* rn, F* rt, F* root, F* comm,
                      F* ierr),
                     (s, sc, sd, st, r, rn, rt, root, comm, ierr))
WEFT_FORTRAN_ENTRIES(mpi_scan, MPI_SCAN, Scan, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_exscan, MPI_EXSCAN, Exscan, P_RED, A_RED)

#endif  // WEFT_FORTRAN_BUFFER_ENTRIES
