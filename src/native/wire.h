// How a (type, op) reduction travels through native MPI. MPI has no fp16/bf16, no Avg, and
// Open MPI 4.1.4's int8 Sum saturates; weft supplies the missing pieces:
//   direct   the MPI type and a built-in op (or weft's wrapping user op for 8-bit Sum/Prod);
//   widen    fp16/bf16 travel as fp32 (they accumulate in fp32 and round once at the end);
//   split64  integer Avg travels as two int64 words per value (low 32 bits, the rest), which
//            MPI's built-in Sum adds exactly; the mean is then taken in 128 bits.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "core/status.h"
#include "native/mpi_types.h"

namespace weft {

/// The representation of one reduction on the wire.
struct Wire {
  enum class Conv { kNone, kHalfToF32, kBf16ToF32, kSplit64 };
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  size_t size = 0;   // bytes per user element on the wire
  int per_elem = 1;  // MPI elements per user element
  Conv conv = Conv::kNone;
  bool divide = false;  // Avg: divide the sums by the rank count afterwards
};

/// Picks the wire form of (type, op). Needs MPI initialised (creates weft's user ops once).
Status SelectWire(weftDataType_t type, weftRedOp_t op, Wire* out);
/// Converts n user elements to the wire form (src and dst must not overlap).
void ToWire(const Wire& w, weftDataType_t type, const void* src, void* dst, size_t n);
/// Converts n wire elements back to user elements, dividing by nranks for Avg.
void FromWire(const Wire& w, weftDataType_t type, const void* src, void* dst, size_t n, int nranks);

}  // namespace weft
