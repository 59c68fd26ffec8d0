// Shared pieces of the interposed collectives (blocking and persistent).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>

#include "weft/weft.h"

namespace weft::shim {

/// The native call, made when weft does not take a call.
using NativeFn = std::function<int()>;

/// weft's communicator for a call it takes, or null for the native routine.
struct Route {
  weftComm_t comm = nullptr;
};

/// Routes a reduction (Allreduce, Reduce, Reduce_scatter): named int/float type and a
/// SUM/PROD/MAX/MIN op on an intra-communicator weft could set up.
Route RouteReduction(MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const char* fn, weftDataType_t* t,
                     weftRedOp_t* o);
/// Routes data movement: gap-free named types with equal send and receive byte counts;
/// *bytes receives the per-rank (per-peer) byte count.
Route RouteMovement(MPI_Datatype st, size_t scount, MPI_Datatype rt, size_t rcount, bool has_send,
                    MPI_Comm comm, const char* fn, size_t* bytes);
/// MPI_SUCCESS, or the MPI error flow for a weft failure.
int Finish(weftResult_t r, MPI_Comm comm, const char* fn);
/// This process's rank in a weft communicator.
int RankOf(weftComm_t c);

/// Runs body; should anything throw (memory), runs the native call instead. No exception
/// leaves the interposer.
template <typename Body, typename Native>
int Guard(Body&& body, Native&& native) noexcept {
  try {
    return body();
  } catch (...) {
    try {
      return native();
    } catch (...) {
      return MPI_ERR_INTERN;
    }
  }
}

}  // namespace weft::shim
