// The MPI datatype of each weft type. Header-only, so tools that link only the C API
// (weft-bench) use the same mapping as the library.
#pragma once

#include <mpi.h>

#include "weft/weft.h"

namespace weft {

/// The MPI datatype of a weft type; fp16/bf16 map to MPI_UINT16_T (data movement only: MPI
/// cannot reduce them). MPI_DATATYPE_NULL for an invalid type.
inline MPI_Datatype MpiTypeOf(weftDataType_t type) {
  switch (type) {
    case weftInt8:
      return MPI_INT8_T;
    case weftUint8:
      return MPI_UINT8_T;
    case weftInt32:
      return MPI_INT32_T;
    case weftUint32:
      return MPI_UINT32_T;
    case weftInt64:
      return MPI_INT64_T;
    case weftUint64:
      return MPI_UINT64_T;
    case weftFloat16:
    case weftBfloat16:
      return MPI_UINT16_T;
    case weftFloat32:
      return MPI_FLOAT;
    case weftFloat64:
      return MPI_DOUBLE;
    default:
      return MPI_DATATYPE_NULL;
  }
}

}  // namespace weft
