// The NCCL path (built where nccl.h is found, WEFT_WITH_NCCL; libnccl.so.2 is opened at run
// time, so libweft loads on machines without it): large calls whose every rank passes CUDA
// device buffers run as NCCL collectives on the user's stream, intra- and inter-node. The NCCL
// communicator is made at the first such call (collectively: the ranks have just agreed on the
// path) and lives as long as the weft communicator. Reductions NCCL computes differently from
// weft stay on weft's paths: Avg (NCCL pre-multiplies floats and may overflow integer sums) and
// fp16/bf16 (NCCL accumulates in the narrow type; weft in fp32); so does in-place alltoall.
// Off unless WEFT_NCCL=1: it has not yet run on a GPU in this project (scripts/device-check.sh
// runs the device matrix with it on where one is).
#pragma once

#include "call/coll_args.h"
#include "device/backend.h"
#include "device/buffer_route.h"

namespace weft::device {

/// The version code of the NCCL library the path would use (e.g. 22809 for 2.28.9), or 0
/// when libnccl.so.2 does not load or lacks an entry point weft uses.
int NcclRuntimeVersion();

/// Whether this rank can run args through NCCL: WEFT_NCCL=1, a backend whose device memory
/// NCCL takes (Caps::nccl), libnccl.so.2 loadable, a covered collective, type and op, and
/// every buffer this rank passes in device memory.
bool NcclEligible(Comm& comm, const CollArgs& args, const BufferRoute& route);

/// Makes the communicator's NCCL communicator if it has none (collective: every rank calls it
/// for the same call), and agrees whether every rank has one: *ready. A failure leaves the
/// path off for the communicator's later calls (logged at WARN), not an error.
Status NcclReady(Comm& comm, bool* ready);

/// Runs validated args through NCCL on `stream` and waits for it (weft's device calls return
/// with their results in place).
Status RunNccl(Comm& comm, const CollArgs& args, Stream stream);

}  // namespace weft::device
