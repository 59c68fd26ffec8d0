// The Fortran entry points of the persistent collectives (Open MPI only, as the other routines
// with a choice buffer: shim_fortran.h; Open MPI 4.1 names them MPIX_*_init). The MPI's own
// Fortran routine makes the real persistent request in every case and writes its Fortran handle;
// for a call weft serves, the plan goes behind that request's C handle, which MPI_Start (in
// either binding) finds.
#include "shim_fortran.h"
#include "shim_persistent.h"

#if WEFT_FORTRAN_BUFFER_ENTRIES && defined(WEFT_HAVE_PCOLL)

#include "shim_colls.h"

using namespace weft::shim;
using namespace weft::shim::fortran;
using F = MPI_Fint;

namespace {

void Fixed(Kind kind, const char* fn, void* s, void* r, F* sn, F* st, F* rn, F* rt, F* op, F* root,
           F* comm, F* req, F* ierr, const NativeFn& native) {
  MPI_Request c = MPI_REQUEST_NULL;
  Done(ierr, Guard([&] {
         return ServePersistent(FixedArgs(kind, fn, s, r, sn, st, rn, rt, op, root, comm), &c, [&] {
           const int rc = native();
           if (rc == MPI_SUCCESS) c = PMPI_Request_f2c(*req);
           return rc;
         });
       }));
}

void AllreduceInit(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* info, F* req,
                   F* ierr) {
  Fixed(Kind::kAllreduce, "MPI_Allreduce_init", s, r, n, dt, n, dt, op, nullptr, comm, req, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, comm, info, req); });
}

void ReduceInit(Next& next, void* s, void* r, F* n, F* dt, F* op, F* root, F* comm, F* info, F* req,
                F* ierr) {
  Fixed(Kind::kReduce, "MPI_Reduce_init", s, r, n, dt, n, dt, op, root, comm, req, ierr,
        [&] { return CallNext(next, s, r, n, dt, op, root, comm, info, req); });
}

void BcastInit(Next& next, void* b, F* n, F* dt, F* root, F* comm, F* info, F* req, F* ierr) {
  Fixed(Kind::kBcast, "MPI_Bcast_init", b, b, n, dt, n, dt, nullptr, root, comm, req, ierr,
        [&] { return CallNext(next, b, n, dt, root, comm, info, req); });
}

void AllgatherInit(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* info,
                   F* req, F* ierr) {
  Fixed(Kind::kAllgather, "MPI_Allgather_init", s, r, sn, st, rn, rt, nullptr, nullptr, comm, req,
        ierr, [&] { return CallNext(next, s, sn, st, r, rn, rt, comm, info, req); });
}

void AlltoallInit(Next& next, void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* info,
                  F* req, F* ierr) {
  Fixed(Kind::kAlltoall, "MPI_Alltoall_init", s, r, sn, st, rn, rt, nullptr, nullptr, comm, req,
        ierr, [&] { return CallNext(next, s, sn, st, r, rn, rt, comm, info, req); });
}

void ReduceScatterBlockInit(Next& next, void* s, void* r, F* n, F* dt, F* op, F* comm, F* info,
                            F* req, F* ierr) {
  Fixed(Kind::kReduceScatterBlock, "MPI_Reduce_scatter_block_init", s, r, n, dt, n, dt, op, nullptr,
        comm, req, ierr, [&] { return CallNext(next, s, r, n, dt, op, comm, info, req); });
}

}  // namespace

#define P_RED (void* s, void* r, F* n, F* dt, F* op, F* comm, F* info, F* req, F* ierr)
#define A_RED (s, r, n, dt, op, comm, info, req, ierr)
#define P_MOVE (void* s, F* sn, F* st, void* r, F* rn, F* rt, F* comm, F* info, F* req, F* ierr)
#define A_MOVE (s, sn, st, r, rn, rt, comm, info, req, ierr)
#define P_REDUCE (void* s, void* r, F* n, F* dt, F* op, F* root, F* comm, F* info, F* req, F* ierr)
#define A_REDUCE (s, r, n, dt, op, root, comm, info, req, ierr)
#define P_BCAST (void* b, F* n, F* dt, F* root, F* comm, F* info, F* req, F* ierr)
#define A_BCAST (b, n, dt, root, comm, info, req, ierr)

#if MPI_VERSION >= 4
WEFT_FORTRAN_ENTRIES(mpi_allreduce_init, MPI_ALLREDUCE_INIT, AllreduceInit, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpi_reduce_init, MPI_REDUCE_INIT, ReduceInit, P_REDUCE, A_REDUCE)
WEFT_FORTRAN_ENTRIES(mpi_bcast_init, MPI_BCAST_INIT, BcastInit, P_BCAST, A_BCAST)
WEFT_FORTRAN_ENTRIES(mpi_allgather_init, MPI_ALLGATHER_INIT, AllgatherInit, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpi_alltoall_init, MPI_ALLTOALL_INIT, AlltoallInit, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpi_reduce_scatter_block_init, MPI_REDUCE_SCATTER_BLOCK_INIT,
                     ReduceScatterBlockInit, P_RED, A_RED)
#else
WEFT_FORTRAN_ENTRIES(mpix_allreduce_init, MPIX_ALLREDUCE_INIT, AllreduceInit, P_RED, A_RED)
WEFT_FORTRAN_ENTRIES(mpix_reduce_init, MPIX_REDUCE_INIT, ReduceInit, P_REDUCE, A_REDUCE)
WEFT_FORTRAN_ENTRIES(mpix_bcast_init, MPIX_BCAST_INIT, BcastInit, P_BCAST, A_BCAST)
WEFT_FORTRAN_ENTRIES(mpix_allgather_init, MPIX_ALLGATHER_INIT, AllgatherInit, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpix_alltoall_init, MPIX_ALLTOALL_INIT, AlltoallInit, P_MOVE, A_MOVE)
WEFT_FORTRAN_ENTRIES(mpix_reduce_scatter_block_init, MPIX_REDUCE_SCATTER_BLOCK_INIT,
                     ReduceScatterBlockInit, P_RED, A_RED)
#endif

#endif  // WEFT_FORTRAN_BUFFER_ENTRIES && WEFT_HAVE_PCOLL
