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
  kDatatype,     // not a predefined type weft serves (derived, non-contiguous, pair, ...)
  kOp,           // user-defined op or one weft lacks (MINLOC, logical, bitwise, ...)
  kUneven,       // Reduce_scatter with unequal counts
  kSetupFailed,  // weft could not set up this communicator
  kMismatch,     // send and receive type signatures differ
  kNumReasons
};

/// Logs a fallback (WARN the first time per reason, INFO every time).
void NoteFallback(Fallback why, const char* fn);

/// The weft communicator serving comm, created on first use (collective over comm: every
/// rank reaches it in the same call). Null with *why set when the call must go native.
weftComm_t CommFor(MPI_Comm comm, Fallback* why);

/// weft's type for a reduction over MPI datatype t (named integer and float types only).
bool ReductionType(MPI_Datatype t, weftDataType_t* out);
/// weft's op for a predefined MPI op (SUM, PROD, MAX, MIN).
bool ReductionOp(MPI_Op op, weftRedOp_t* out);
/// Bytes of `count` elements of t when t is a named type, or contiguous copies of one, with
/// no gaps (so the data can move as bytes). False otherwise.
bool ContiguousBytes(MPI_Datatype t, size_t count, size_t* bytes);

/// Turns a weft failure into MPI's error flow: calls comm's error handler, returns its code.
int MpiErrorFrom(weftResult_t r, MPI_Comm comm, const char* fn);

/// Called from MPI_Init / MPI_Init_thread after the library is up: registers the cleanup
/// that runs at the start of MPI_Finalize.
void OnInit();

}  // namespace weft::shim
