// The Fortran entry points of the blocking point-to-point routines (Open MPI only, as the other
// routines with a choice buffer: shim_fortran.h). While weft runs a served nonblocking call
// they run the C entry point, which keeps weft's calls moving while it waits
// (shim_blocking_p2p.cc says why); otherwise the MPI's own Fortran routine, after one atomic load.
#include "shim_fortran.h"

#if WEFT_FORTRAN_BUFFER_ENTRIES

#include "shim_colls.h"
#include "shim_requests.h"

using namespace weft::shim;
using namespace weft::shim::fortran;
using F = MPI_Fint;

namespace {

// body (C, converted arguments) while served nonblocking calls run, else the MPI's routine.
template <typename Body, typename... A>
void Progressing(Next& next, F* ierr, Body&& body, A... args) {
  if (!NonblockingRunning()) {
    Done(ierr, CallNext(next, args...));
    return;
  }
  Done(ierr, Guard(body));
}

// MPI_Send, MPI_Ssend, MPI_Bsend and MPI_Rsend: send names which.
template <int (*send)(const void*, int, MPI_Datatype, int, int, MPI_Comm)>
void Send(Next& next, void* buf, F* n, F* dt, F* dest, F* tag, F* comm, F* ierr) {
  Progressing(
      next, ierr, [&] { return send(Buf(buf), *n, Type(dt), *dest, *tag, Comm(comm)); }, buf, n, dt,
      dest, tag, comm);
}

void Recv(Next& next, void* buf, F* n, F* dt, F* source, F* tag, F* comm, F* status, F* ierr) {
  Progressing(
      next, ierr,
      [&] {
        MPI_Status st{};
        const bool ignore = IsStatusIgnore(status);
        const int rc = MPI_Recv(Buf(buf), *n, Type(dt), *source, *tag, Comm(comm),
                                ignore ? MPI_STATUS_IGNORE : &st);
        if (rc == MPI_SUCCESS) PutStatus(st, status);
        return rc;
      },
      buf, n, dt, source, tag, comm, status);
}

void Sendrecv(Next& next, void* sb, F* sn, F* st, F* dest, F* stag, void* rb, F* rn, F* rt,
              F* source, F* rtag, F* comm, F* status, F* ierr) {
  Progressing(
      next, ierr,
      [&] {
        MPI_Status s{};
        const bool ignore = IsStatusIgnore(status);
        const int rc = MPI_Sendrecv(Buf(sb), *sn, Type(st), *dest, *stag, Buf(rb), *rn, Type(rt),
                                    *source, *rtag, Comm(comm), ignore ? MPI_STATUS_IGNORE : &s);
        if (rc == MPI_SUCCESS) PutStatus(s, status);
        return rc;
      },
      sb, sn, st, dest, stag, rb, rn, rt, source, rtag, comm, status);
}

void Mrecv(Next& next, void* buf, F* n, F* dt, F* message, F* status, F* ierr) {
  Progressing(
      next, ierr,
      [&] {
        MPI_Status st{};
        MPI_Message m = PMPI_Message_f2c(*message);
        const bool ignore = IsStatusIgnore(status);
        const int rc = MPI_Mrecv(Buf(buf), *n, Type(dt), &m, ignore ? MPI_STATUS_IGNORE : &st);
        *message = PMPI_Message_c2f(m);
        if (rc == MPI_SUCCESS) PutStatus(st, status);
        return rc;
      },
      buf, n, dt, message, status);
}

}  // namespace

#define P_SEND (void* b, F* n, F* dt, F* d, F* t, F* c, F* e)
#define A_SEND (b, n, dt, d, t, c, e)

WEFT_FORTRAN_ENTRIES(mpi_send, MPI_SEND, Send<MPI_Send>, P_SEND, A_SEND)
WEFT_FORTRAN_ENTRIES(mpi_ssend, MPI_SSEND, Send<MPI_Ssend>, P_SEND, A_SEND)
WEFT_FORTRAN_ENTRIES(mpi_bsend, MPI_BSEND, Send<MPI_Bsend>, P_SEND, A_SEND)
WEFT_FORTRAN_ENTRIES(mpi_rsend, MPI_RSEND, Send<MPI_Rsend>, P_SEND, A_SEND)
WEFT_FORTRAN_ENTRIES(mpi_recv, MPI_RECV, Recv,
                     (void* b, F* n, F* dt, F* s, F* t, F* c, F* st, F* e),
                     (b, n, dt, s, t, c, st, e))
WEFT_FORTRAN_ENTRIES(mpi_sendrecv, MPI_SENDRECV, Sendrecv,
                     (void* sb, F* sn, F* st, F* d, F* stag, void* rb, F* rn, F* rt, F* s, F* rtag,
                      F* c, F* status, F* e),
                     (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status, e))
WEFT_FORTRAN_ENTRIES(mpi_mrecv, MPI_MRECV, Mrecv, (void* b, F* n, F* dt, F* m, F* st, F* e),
                     (b, n, dt, m, st, e))

#endif  // WEFT_FORTRAN_BUFFER_ENTRIES
