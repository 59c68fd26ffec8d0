// The Fortran entry points of the routines without a choice buffer that the interposer has:
// completion (wait, test and their -all/-any/-some forms, request free), persistent starts,
// barriers, MPI_Init, the communicator constructors and the probes. Every binding of both MPIs
// (shim_fortran.h: MPICH's use mpi_f08 calls PMPI_* for these). With nothing weft serves in
// flight, each calls the MPI's own Fortran routine; otherwise it converts the handles and runs
// the C entry point (shim_completion.cc, shim_blocking_p2p.cc), which completes arrays that mix
// served and native requests.
#include <vector>

#include "shim_colls.h"
#include "shim_fortran.h"
#include "shim_requests.h"

using namespace weft::shim;
using namespace weft::shim::fortran;
using F = MPI_Fint;

namespace {

// n Fortran requests as C handles, written back after the call (completed ones become
// MPI_REQUEST_NULL, persistent ones stay).
class Requests {
 public:
  Requests(F n, F* f) : f_(f), c_(n > 0 ? n : 0) {
    for (size_t i = 0; i < c_.size(); ++i) c_[i] = PMPI_Request_f2c(f[i]);
  }
  MPI_Request* c() { return c_.data(); }
  void Back() {
    for (size_t i = 0; i < c_.size(); ++i) f_[i] = PMPI_Request_c2f(c_[i]);
  }

 private:
  F* f_;
  std::vector<MPI_Request> c_;
};

// n Fortran statuses (or MPI_STATUSES_IGNORE) as C ones.
class Statuses {
 public:
  Statuses(F n, F* f) : f_(f), ignore_(IsStatusesIgnore(f)), c_(ignore_ || n <= 0 ? 0 : n) {}
  MPI_Status* c() { return ignore_ ? MPI_STATUSES_IGNORE : c_.data(); }
  // The first n of them back to Fortran where the call filled them.
  void Back(int rc, size_t n) {
    if (ignore_ || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) return;
    for (size_t i = 0; i < n && i < c_.size(); ++i) PMPI_Status_c2f(&c_[i], f_ + i * kStatusInts);
  }

 private:
  F* f_;
  bool ignore_;
  std::vector<MPI_Status> c_;
};

// One Fortran status (or MPI_STATUS_IGNORE) as a C one.
class Status {
 public:
  explicit Status(F* f) : f_(f) {}
  MPI_Status* c() { return IsStatusIgnore(f_) ? MPI_STATUS_IGNORE : &c_; }
  void Back(int rc) {
    if (rc == MPI_SUCCESS) PutStatus(c_, f_);
  }

 private:
  F* f_;
  MPI_Status c_{};
};

// Runs body on converted handles where weft has requests in flight (one atomic load), else the
// MPI's own routine.
template <typename Body, typename... A>
void Completion(Next& next, F* ierr, Body&& body, A... args) {
  if (!AnyServed()) {
    Done(ierr, CallNext(next, args...));
    return;
  }
  Done(ierr, Guard(body));
}

void Wait(Next& next, F* req, F* status, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(1, req);
        Status st(status);
        const int rc = MPI_Wait(r.c(), st.c());
        r.Back();
        st.Back(rc);
        return rc;
      },
      req, status);
}

void Test(Next& next, F* req, F* flag, F* status, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(1, req);
        Status st(status);
        int done = 0;
        const int rc = MPI_Test(r.c(), &done, st.c());
        r.Back();
        PutLogical(flag, done);
        if (done) st.Back(rc);
        return rc;
      },
      req, flag, status);
}

void Waitall(Next& next, F* n, F* reqs, F* statuses, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(*n, reqs);
        Statuses st(*n, statuses);
        const int rc = MPI_Waitall(*n, r.c(), st.c());
        r.Back();
        st.Back(rc, *n);
        return rc;
      },
      n, reqs, statuses);
}

void Testall(Next& next, F* n, F* reqs, F* flag, F* statuses, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(*n, reqs);
        Statuses st(*n, statuses);
        int done = 0;
        const int rc = MPI_Testall(*n, r.c(), &done, st.c());
        r.Back();
        PutLogical(flag, done);
        if (done) st.Back(rc, *n);
        return rc;
      },
      n, reqs, flag, statuses);
}

// Where the Fortran indices of Waitany, Testany, Waitsome and Testsome start. MPICH before 4.1
// returns them 0-based from use mpi_f08, the only binding weft has entry points for there
// (pmodels/mpich#6270); a program that works with that MPI must see the same indices from weft.
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
constexpr int kIndexBase = 0;
#else
constexpr int kIndexBase = 1;
#endif

// A C index into a Fortran one (MPI_UNDEFINED stays).
F FortranIndex(int i) { return i == MPI_UNDEFINED ? MPI_UNDEFINED : i + kIndexBase; }

void Waitany(Next& next, F* n, F* reqs, F* index, F* status, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(*n, reqs);
        Status st(status);
        int i = MPI_UNDEFINED;
        const int rc = MPI_Waitany(*n, r.c(), &i, st.c());
        r.Back();
        *index = FortranIndex(i);
        st.Back(rc);
        return rc;
      },
      n, reqs, index, status);
}

void Testany(Next& next, F* n, F* reqs, F* index, F* flag, F* status, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(*n, reqs);
        Status st(status);
        int i = MPI_UNDEFINED, done = 0;
        const int rc = MPI_Testany(*n, r.c(), &i, &done, st.c());
        r.Back();
        *index = FortranIndex(i);
        PutLogical(flag, done);
        if (done) st.Back(rc);
        return rc;
      },
      n, reqs, index, flag, status);
}

// Waitsome and Testsome: wait says which.
void Some(bool wait, F* n, F* reqs, F* outcount, F* indices, F* statuses, int* rc) {
  Requests r(*n, reqs);
  Statuses st(*n, statuses);
  std::vector<int> idx(*n > 0 ? *n : 0);
  int out = 0;
  *rc = wait ? MPI_Waitsome(*n, r.c(), &out, idx.data(), st.c())
             : MPI_Testsome(*n, r.c(), &out, idx.data(), st.c());
  r.Back();
  *outcount = out;  // MPI_UNDEFINED where no request was active
  for (int i = 0; i < out && out != MPI_UNDEFINED; ++i) indices[i] = FortranIndex(idx[i]);
  st.Back(*rc, out == MPI_UNDEFINED ? 0 : out);
}

void Waitsome(Next& next, F* n, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        int rc = MPI_SUCCESS;
        Some(true, n, reqs, outcount, indices, statuses, &rc);
        return rc;
      },
      n, reqs, outcount, indices, statuses);
}

void Testsome(Next& next, F* n, F* reqs, F* outcount, F* indices, F* statuses, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        int rc = MPI_SUCCESS;
        Some(false, n, reqs, outcount, indices, statuses, &rc);
        return rc;
      },
      n, reqs, outcount, indices, statuses);
}

void RequestFree(Next& next, F* req, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(1, req);
        const int rc = MPI_Request_free(r.c());
        r.Back();
        return rc;
      },
      req);
}

void Start(Next& next, F* req, F* ierr) {
  int rc = MPI_SUCCESS;
  if (AnyServed() && StartPersistent(PMPI_Request_f2c(*req), &rc)) {
    Done(ierr, rc);
    return;
  }
  Done(ierr, CallNext(next, req));
}

void Startall(Next& next, F* n, F* reqs, F* ierr) {
  Completion(
      next, ierr,
      [&] {
        Requests r(*n, reqs);
        const int rc = MPI_Startall(*n, r.c());
        r.Back();
        return rc;
      },
      n, reqs);
}

void BarrierF(Next& next, F* comm, F* ierr) {
  Done(ierr,
       Guard([&] { return Barrier(Comm(comm), nullptr, [&] { return CallNext(next, comm); }); }));
}

void Ibarrier(Next& next, F* comm, F* req, F* ierr) {
  RequestOut out(req);
  Done(ierr, out.Finish(Guard([&] {
    return Barrier(Comm(comm), out.c(), [&] { return out.Native(CallNext(next, comm, req)); });
  })));
}

void Init(Next& next, F* ierr) {
  const int rc = CallNext(next);
  if (rc == MPI_SUCCESS) AfterInit();
  Done(ierr, rc);
}

void InitThread(Next& next, F* required, F* provided, F* ierr) {
  const int rc = CallNext(next, required, provided);
  if (rc == MPI_SUCCESS) AfterInit();
  Done(ierr, rc);
}

// A constructor of new from comm: MPI's routine after the served calls on comm, then weft's
// setup on the new communicator (shim_native_colls.cc).
template <typename... A>
void Constructor(Next& next, F* comm, F* made, F* ierr, A... args) {
  Done(ierr, Guard([&] {
         const int rc = RunNative(Comm(comm), [&] { return CallNext(next, args...); });
         const MPI_Comm c = rc == MPI_SUCCESS ? PMPI_Comm_f2c(*made) : MPI_COMM_NULL;
         return Created(rc, &c);
       }));
}

void CommDup(Next& next, F* comm, F* made, F* ierr) {
  Constructor(next, comm, made, ierr, comm, made);
}

void CommSplit(Next& next, F* comm, F* color, F* key, F* made, F* ierr) {
  Constructor(next, comm, made, ierr, comm, color, key, made);
}

void CommCreate(Next& next, F* comm, F* group, F* made, F* ierr) {
  Constructor(next, comm, made, ierr, comm, group, made);
}

void Probe(Next& next, F* source, F* tag, F* comm, F* status, F* ierr) {
  if (!NonblockingRunning()) {
    Done(ierr, CallNext(next, source, tag, comm, status));
    return;
  }
  Done(ierr, Guard([&] {
         Status st(status);
         const int rc = MPI_Probe(*source, *tag, Comm(comm), st.c());
         st.Back(rc);
         return rc;
       }));
}

void Mprobe(Next& next, F* source, F* tag, F* comm, F* message, F* status, F* ierr) {
  if (!NonblockingRunning()) {
    Done(ierr, CallNext(next, source, tag, comm, message, status));
    return;
  }
  Done(ierr, Guard([&] {
         Status st(status);
         MPI_Message m = MPI_MESSAGE_NULL;
         const int rc = MPI_Mprobe(*source, *tag, Comm(comm), &m, st.c());
         if (rc == MPI_SUCCESS) *message = PMPI_Message_c2f(m);
         st.Back(rc);
         return rc;
       }));
}

}  // namespace

WEFT_FORTRAN_ENTRIES(mpi_wait, MPI_WAIT, Wait, (F * r, F* s, F* e), (r, s, e))
WEFT_FORTRAN_ENTRIES(mpi_test, MPI_TEST, Test, (F * r, F* f, F* s, F* e), (r, f, s, e))
WEFT_FORTRAN_ENTRIES(mpi_waitall, MPI_WAITALL, Waitall, (F * n, F* r, F* s, F* e), (n, r, s, e))
WEFT_FORTRAN_ENTRIES(mpi_testall, MPI_TESTALL, Testall, (F * n, F* r, F* f, F* s, F* e),
                     (n, r, f, s, e))
WEFT_FORTRAN_ENTRIES(mpi_waitany, MPI_WAITANY, Waitany, (F * n, F* r, F* i, F* s, F* e),
                     (n, r, i, s, e))
WEFT_FORTRAN_ENTRIES(mpi_testany, MPI_TESTANY, Testany, (F * n, F* r, F* i, F* f, F* s, F* e),
                     (n, r, i, f, s, e))
WEFT_FORTRAN_ENTRIES(mpi_waitsome, MPI_WAITSOME, Waitsome, (F * n, F* r, F* o, F* i, F* s, F* e),
                     (n, r, o, i, s, e))
WEFT_FORTRAN_ENTRIES(mpi_testsome, MPI_TESTSOME, Testsome, (F * n, F* r, F* o, F* i, F* s, F* e),
                     (n, r, o, i, s, e))
WEFT_FORTRAN_ENTRIES(mpi_request_free, MPI_REQUEST_FREE, RequestFree, (F * r, F* e), (r, e))
WEFT_FORTRAN_ENTRIES(mpi_start, MPI_START, Start, (F * r, F* e), (r, e))
WEFT_FORTRAN_ENTRIES(mpi_startall, MPI_STARTALL, Startall, (F * n, F* r, F* e), (n, r, e))
WEFT_FORTRAN_ENTRIES(mpi_barrier, MPI_BARRIER, BarrierF, (F * c, F* e), (c, e))
WEFT_FORTRAN_ENTRIES(mpi_ibarrier, MPI_IBARRIER, Ibarrier, (F * c, F* r, F* e), (c, r, e))
WEFT_FORTRAN_ENTRIES(mpi_init, MPI_INIT, Init, (F * e), (e))
WEFT_FORTRAN_ENTRIES(mpi_init_thread, MPI_INIT_THREAD, InitThread, (F * q, F* p, F* e), (q, p, e))
WEFT_FORTRAN_ENTRIES(mpi_comm_dup, MPI_COMM_DUP, CommDup, (F * c, F* n, F* e), (c, n, e))
WEFT_FORTRAN_ENTRIES(mpi_comm_split, MPI_COMM_SPLIT, CommSplit, (F * c, F* k, F* y, F* n, F* e),
                     (c, k, y, n, e))
WEFT_FORTRAN_ENTRIES(mpi_comm_create, MPI_COMM_CREATE, CommCreate, (F * c, F* g, F* n, F* e),
                     (c, g, n, e))
WEFT_FORTRAN_ENTRIES(mpi_probe, MPI_PROBE, Probe, (F * s, F* t, F* c, F* st, F* e),
                     (s, t, c, st, e))
WEFT_FORTRAN_ENTRIES(mpi_mprobe, MPI_MPROBE, Mprobe, (F * s, F* t, F* c, F* m, F* st, F* e),
                     (s, t, c, m, st, e))
