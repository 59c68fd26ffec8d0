#include "shim_fortran.h"

#include <dlfcn.h>

#include <initializer_list>

#include "core/log.h"

namespace weft::shim::fortran {
namespace {

// The names each MPI gives a Fortran sentinel (one per Fortran name mangling in Open MPI, whose
// OMPI_IS_FORTRAN_* macros compare against all four; MPICH's use mpi_f08 objects). A Fortran
// program that uses one holds a copy of it (a copy relocation), which the global lookup finds
// first, as the MPI's own references do.
struct Sentinel {
  static constexpr int kMax = 4;
  const void* at[kMax] = {};
  explicit Sentinel(std::initializer_list<const char*> names) {
    int i = 0;
    for (const char* n : names) at[i++] = dlsym(RTLD_DEFAULT, n);
  }
  bool Is(const void* p) const {
    if (p == nullptr) return false;
    for (const void* a : at) {
      if (a == p) return true;
    }
    return false;
  }
};

#if defined(OPEN_MPI)
struct Sentinels {
  Sentinel in_place{"mpi_fortran_in_place", "mpi_fortran_in_place_", "mpi_fortran_in_place__",
                    "MPI_FORTRAN_IN_PLACE"};
  Sentinel bottom{"mpi_fortran_bottom", "mpi_fortran_bottom_", "mpi_fortran_bottom__",
                  "MPI_FORTRAN_BOTTOM"};
  Sentinel status_ignore{"mpi_fortran_status_ignore", "mpi_fortran_status_ignore_",
                         "mpi_fortran_status_ignore__", "MPI_FORTRAN_STATUS_IGNORE"};
  Sentinel statuses_ignore{"mpi_fortran_statuses_ignore", "mpi_fortran_statuses_ignore_",
                           "mpi_fortran_statuses_ignore__", "MPI_FORTRAN_STATUSES_IGNORE"};
};
#else
struct Sentinels {  // MPICH: only use mpi_f08 reaches these entry points
  Sentinel in_place{"MPIR_F08_MPI_IN_PLACE"};
  Sentinel bottom{"MPIR_F08_MPI_BOTTOM"};
  Sentinel status_ignore{"MPIR_F08_MPI_STATUS_IGNORE_OBJ"};
  Sentinel statuses_ignore{"MPIR_F08_MPI_STATUSES_IGNORE_OBJ"};
};
#endif

const Sentinels& Known() {
  static const Sentinels s;  // looked up once the program, and its Fortran copies, are loaded
  return s;
}

}  // namespace

void* Next::get() {
  void* fn = fn_.load(std::memory_order_acquire);
  if (fn != nullptr) return fn;
  fn = dlsym(RTLD_NEXT, name_);
  if (fn == nullptr) {
    WEFT_WARN(kShim, "the MPI library defines no Fortran routine %s for the interposer to call",
              name_);
    return nullptr;
  }
  fn_.store(fn, std::memory_order_release);
  return fn;
}

const void* Buf(const void* f) {
  const Sentinels& s = Known();
  if (s.in_place.Is(f)) return MPI_IN_PLACE;
  if (s.bottom.Is(f)) return MPI_BOTTOM;
  return f;
}

bool IsStatusIgnore(const MPI_Fint* f) { return Known().status_ignore.Is(f); }
bool IsStatusesIgnore(const MPI_Fint* f) { return Known().statuses_ignore.Is(f); }

void PutStatus(const MPI_Status& c, MPI_Fint* f) {
  if (!IsStatusIgnore(f)) PMPI_Status_c2f(&c, f);
}

}  // namespace weft::shim::fortran
