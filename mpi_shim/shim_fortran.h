// The interposer's Fortran entry points: what they share. A Fortran binding passes every
// argument by reference, handles as MPI_Fint, an error code in a trailing ierr (optional in
// use mpi_f08, so possibly null), and sentinels such as MPI_IN_PLACE as the addresses of the
// MPI's own Fortran variables. Each entry point converts these with the MPI's own f2c/c2f
// calls, runs the same routing as the C entry point (shim_colls.h), and where weft does not
// serve calls the MPI's own Fortran symbol (the next one in link order), so a tool stacked
// below still sees the call.
//
// Which symbols are defined follows what each MPI's bindings call (nm -D of its libraries, and
// tests/shim/fortran, which counts each call served once):
//   - Open MPI 4.1: mpif.h and use mpi (mpi_x_, mpi_x, mpi_x__, MPI_X in libmpi_mpifh) and
//     use mpi_f08 (mpi_x_f08_ in libmpi_usempif08) call PMPI_* directly: every binding of
//     every routine the C interposer has gets an entry point here.
//   - MPICH 4.0: mpif.h and use mpi call the C MPI_* symbols, which the C interposer serves, and
//     so does use mpi_f08 for routines with a choice buffer (mpi_x_f08ts_ through its cdesc
//     layer); its f08 routines without one (mpi_wait_f08_, mpi_barrier_f08_, mpi_init_f08_,
//     ...) call PMPI_*: only those get an entry point here. Defining more would serve a call
//     twice (once here, once when the MPI's Fortran symbol calls MPI_*).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>

#include "shim_colls.h"

#if defined(OPEN_MPI)
#define WEFT_FORTRAN_BUFFER_ENTRIES 1  // routines with a choice buffer
#define WEFT_FORTRAN_LEGACY_ENTRIES 1  // mpif.h / use mpi
#else
#define WEFT_FORTRAN_BUFFER_ENTRIES 0
#define WEFT_FORTRAN_LEGACY_ENTRIES 0
#endif

namespace weft::shim::fortran {

/// The MPI's own definition of a Fortran symbol the interposer also defines: the next one in
/// link order (dlsym RTLD_NEXT), looked up on first use.
class Next {
 public:
  explicit Next(const char* name) : name_(name) {}
  /// The function, or null (logged once) where no library below defines it.
  void* get();

 private:
  const char* name_;
  std::atomic<void*> fn_{nullptr};
};

/// Calls the MPI's own Fortran routine with the entry point's own arguments (all pointers, as
/// Fortran passes them) and a local ierr; returns that code (MPI_ERR_INTERN where it is missing).
template <typename... A>
int CallNext(Next& next, A... args) {
  void* fn = next.get();
  if (fn == nullptr) return MPI_ERR_INTERN;
  MPI_Fint err = MPI_SUCCESS;
  reinterpret_cast<void (*)(A..., MPI_Fint*)>(fn)(args..., &err);
  return err;
}

/// A Fortran choice buffer as C sees it: the MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM become
/// C's, anything else is the address itself.
const void* Buf(const void* f);
inline void* Buf(void* f) { return const_cast<void*>(Buf(static_cast<const void*>(f))); }
/// Whether f is the MPI's Fortran MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE.
bool IsStatusIgnore(const MPI_Fint* f);
bool IsStatusesIgnore(const MPI_Fint* f);

/// MPI_Fint of one Fortran status (MPI_STATUS_SIZE); a use mpi_f08 TYPE(MPI_Status) has the
/// same layout in both MPIs (Open MPI converts it with MPI_Status_c2f, MPICH declares it bind(C)
/// in C's field order).
constexpr size_t kStatusInts = sizeof(MPI_Status) / sizeof(MPI_Fint);

/// Writes a C status into a Fortran one unless that is MPI_STATUS_IGNORE.
void PutStatus(const MPI_Status& c, MPI_Fint* f);
/// Writes a Fortran LOGICAL (gfortran's .TRUE. is 1, as both MPIs' Fortran bindings assume).
inline void PutLogical(MPI_Fint* f, int flag) { *f = flag ? 1 : 0; }
/// Writes ierr where the caller passed one.
inline void Done(MPI_Fint* ierr, int rc) {
  if (ierr != nullptr) *ierr = rc;
}

inline MPI_Comm Comm(const MPI_Fint* f) { return PMPI_Comm_f2c(*f); }
inline MPI_Datatype Type(const MPI_Fint* f) { return PMPI_Type_f2c(*f); }
inline MPI_Op Op(const MPI_Fint* f) { return PMPI_Op_f2c(*f); }
inline MPI_Info Info(const MPI_Fint* f) { return PMPI_Info_f2c(*f); }

/// The C entry point's CallArgs of a routine with fixed counts, from its Fortran arguments (op
/// and root null where the routine has none): one conversion for the blocking, nonblocking
/// and persistent entry points.
inline CallArgs FixedArgs(Kind kind, const char* fn, void* s, void* r, MPI_Fint* sn, MPI_Fint* st,
                          MPI_Fint* rn, MPI_Fint* rt, MPI_Fint* op, MPI_Fint* root,
                          MPI_Fint* comm) {
  return {kind,
          fn,
          Buf(s),
          Buf(r),
          size_t(*sn),
          Type(st),
          size_t(*rn),
          Type(rt),
          op ? Op(op) : MPI_OP_NULL,
          root ? *root : 0,
          Comm(comm)};
}

/// A nonblocking or persistent call's request handle across the two bindings: the routing
/// writes C's handle into c(); the Fortran one is written into *f unless the MPI's Fortran
/// routine ran (it wrote *f itself).
class RequestOut {
 public:
  explicit RequestOut(MPI_Fint* f) : f_(f) {}
  MPI_Request* c() { return &c_; }
  /// Marks that the MPI's own routine wrote the handle; returns rc.
  int Native(int rc) {
    native_ = true;
    return rc;
  }
  /// Writes the Fortran handle after a served call; returns rc.
  int Finish(int rc) {
    if (!native_ && rc == MPI_SUCCESS) *f_ = PMPI_Request_c2f(c_);
    return rc;
  }

 private:
  MPI_Fint* f_;
  MPI_Request c_ = MPI_REQUEST_NULL;
  bool native_ = false;
};

}  // namespace weft::shim::fortran

#define WEFT_FORTRAN_UNPAREN(...) __VA_ARGS__

// One Fortran routine's entry points for one binding family: impl(next, args...) runs the call,
// next being the MPI's own symbol of the same name. PARAMS is the parameter list in
// parentheses, ARGS the names in parentheses.
#define WEFT_FORTRAN_ONE(sym, impl, PARAMS, ARGS)  \
  extern "C" void sym PARAMS {                     \
    static ::weft::shim::fortran::Next next{#sym}; \
    impl(next, WEFT_FORTRAN_UNPAREN ARGS);         \
  }
#define WEFT_FORTRAN_F08(lower, impl, PARAMS, ARGS) \
  WEFT_FORTRAN_ONE(lower##_f08_, impl, PARAMS, ARGS)
#if WEFT_FORTRAN_LEGACY_ENTRIES
#define WEFT_FORTRAN_LEGACY(lower, UPPER, impl, PARAMS, ARGS) \
  WEFT_FORTRAN_ONE(lower, impl, PARAMS, ARGS)                 \
  WEFT_FORTRAN_ONE(lower##_, impl, PARAMS, ARGS)              \
  WEFT_FORTRAN_ONE(lower##__, impl, PARAMS, ARGS)             \
  WEFT_FORTRAN_ONE(UPPER, impl, PARAMS, ARGS)
#else
#define WEFT_FORTRAN_LEGACY(lower, UPPER, impl, PARAMS, ARGS)
#endif
/// Every binding's entry points of one routine, as this MPI needs them (see the top).
#define WEFT_FORTRAN_ENTRIES(lower, UPPER, impl, PARAMS, ARGS) \
  WEFT_FORTRAN_LEGACY(lower, UPPER, impl, PARAMS, ARGS)        \
  WEFT_FORTRAN_F08(lower, impl, PARAMS, ARGS)
