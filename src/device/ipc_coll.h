// Intra-node collectives on device buffers through IPC handles and the backend's kernels: on a
// communicator whose ranks share one node, every rank maps its peers' device buffers and the
// collective runs device to device, with no host staging and no MPI data traffic (the ranks
// exchange handles and synchronise through MPI, a few small messages per call). Allreduce is
// a reduce-scatter by slices (rank r reduces slice r of every rank's input into its result
// with one k-way kernel) and an allgather of the slices; reduce writes the slices into the
// root's buffer; the movement collectives are copies between peers' buffers. Only large calls
// whose every rank qualifies take it (device_path.h); Avg (a host division)
// and in-place alltoall (a rank would overwrite what a peer is still reading) do not.
#pragma once

#include "call/coll_args.h"
#include "device/backend.h"
#include "device/buffer_route.h"

namespace weft::device {

/// Whether this rank can run args on the IPC path: its ranks on one node, a backend with IPC
/// handles, a covered collective and op, and every buffer this rank passes in device memory
/// whose allocation bounds the backend knows.
bool IpcEligible(Comm& comm, const CollArgs& args, const BufferRoute& route);

/// Runs validated args on the IPC path (every rank must, with IpcEligible true on every rank),
/// after the work queued on `stream`; the results are in place when it returns.
Status RunIpc(Comm& comm, const CollArgs& args, Stream stream);

}  // namespace weft::device
