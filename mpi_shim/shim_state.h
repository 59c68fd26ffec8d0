// The interposer's state: which communicators weft serves (attached lazily through an
// attribute, released by the attribute's delete callback), why a call falls back to the
// native routine, and how MPI datatypes and ops map onto weft's.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "weft/weft.h"

namespace weft::shim {

/// Why a call goes to the native MPI routine. Decided from arguments every rank shares, so
/// a collective is never half native, half weft.
enum class Fallback {
  kDisabled,     // WEFT_DISABLE=1
  kInterComm,    // inter-communicator
  kDatatype,     // a reduction over a signature weft cannot reduce (mixed or unserved types)
  kOp,           // user-defined op or one weft lacks (MINLOC, logical, bitwise, ...)
  kUneven,       // Reduce_scatter or Allgatherv with unequal counts
  kSetupFailed,  // weft could not set up this communicator
  kMismatch,     // send and receive type signatures differ
  kMpiRoutine,   // weft would call the MPI routine itself (alltoallv where it has no schedule)
  kNotSetUp,     // a nonblocking call on a communicator weft has not set up (setup is collective)
  kNumReasons
};

/// Records a call that goes native: an INFO line (a fallback is no fault, so at default
/// settings nothing is printed) and the WEFT_STATS count.
void NoteFallback(Fallback why, const char* fn);

/// The weft communicator serving comm, created on first use (collective over comm: every
/// rank reaches it in the same call, and the ranks agree whether setup worked everywhere
/// before any uses it). Null with *why set when the call must go native. A nonblocking call
/// (set_up false) never sets up: it would wait for the peers, and a nonblocking call is local
/// in MPI (a peer may be blocked on this rank until it returns). Whether a communicator is set
/// up depends only on the collective calls made on it, the same on every rank.
weftComm_t CommFor(MPI_Comm comm, Fallback* why, bool set_up = true);

/// Sets weft up on a communicator every rank of which is in a collective call that made or
/// gave it (MPI_Init for MPI_COMM_WORLD, MPI_Comm_dup/split/create for the new one), so that
/// nonblocking calls on it are served from the first. Does nothing for MPI_COMM_NULL or with
/// WEFT_SHIM_EAGER_SETUP=0.
void SetUpEagerly(MPI_Comm comm);

/// weft's type for a reduction over basic MPI datatype t: C's and Fortran's named integer and
/// real types, and the complex ones as pairs of reals (SumOnly).
bool ReductionType(MPI_Datatype t, weftDataType_t* out);
/// Whether weft reduces t with MPI_SUM only (complex types: their product is not elementwise,
/// and MPI defines no MAX or MIN for them).
bool SumOnly(MPI_Datatype t);
/// weft's op for a predefined MPI op (SUM, PROD, MAX, MIN).
bool ReductionOp(MPI_Op op, weftRedOp_t* out);
/// Turns a weft failure into MPI's error flow: calls comm's error handler, returns its code.
int MpiErrorFrom(weftResult_t r, MPI_Comm comm, const char* fn);

/// Called from MPI_Init / MPI_Init_thread after the library is up: registers the cleanup
/// that runs at the start of MPI_Finalize.
void OnInit();

}  // namespace weft::shim
