// The GPU-aware MPI path: where the MPI library takes device memory itself (a CUDA-aware Open
// MPI or MPICH, as MPIX_Query_cuda_support / MPIX_GPU_query_support report), a large call on
// device buffers goes to the native MPI routine on those buffers, with no host staging. The
// native program is the same one weft's MPI fallback builds; only programs that touch no user
// buffer from the host (no packing, widening, averaging or moving passes) and reduce with
// MPI's built-in operators qualify, and the ranks agree (device_path.h), so
// anything else still stages. WEFT_MPI_DEVICE=0 turns the path off, =1 trusts an MPI that
// cannot be asked.
#pragma once

#include <memory>

#include "call/coll_args.h"
#include "device/backend.h"
#include "native/native_program.h"

namespace weft::device {

/// Whether this communicator hands device buffers to MPI: WEFT_MPI_DEVICE and the backend's
/// answer (Backend::MpiTakesDeviceMemory), the same on every rank (collective over mpi when
/// the backend has devices). Logged at INFO.
Status DecideMpiDirect(MPI_Comm mpi, Backend& backend, bool* out);

/// This rank's native program for validated args, and whether it may run on device buffers
/// as they are (*ok: no host pass over a user buffer, built-in reduction operators only).
Status BuildMpiDirect(Comm& comm, const CollArgs& args, std::unique_ptr<NativeProgram>* program,
                      bool* ok);

/// Runs a program from BuildMpiDirect on the call's buffers once the work queued on `stream`
/// is done (MPI does not follow the stream). The results are in place when it returns.
Status RunMpiDirect(Comm& comm, const CollArgs& args, NativeProgram& program, Stream stream);

}  // namespace weft::device
