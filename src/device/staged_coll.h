// Runs a collective on device buffers through host staging: each buffer is cut into chunks
// (WEFT_STAGING_CHUNK_BYTES per side), and chunk i+1's device->host copy and chunk i-1's
// host->device copy run on the communicator's copy streams while the host runs chunk i's
// collective (weft's compiled schedules on the staging buffers). Small buffers take one hop.
// The copies are ordered after the work already on the user's stream, and that stream's later
// work after the results land; the call returns once they have.
#pragma once

#include <memory>

#include "coll/coll_args.h"
#include "device/backend.h"
#include "device/buffer_route.h"
#include "native/native_program.h"

namespace weft::device {

/// Elements per chunk of a staged call, from the arguments and the rank count only (never from
/// where this rank's buffers live), so every rank cuts a call into the same collectives.
size_t StagingChunkElems(const Comm& comm, const CollArgs& args);
/// The calls the device-to-device paths (IPC, NCCL) cover: the six collectives with a count,
/// but not Avg (its division by the rank count runs on the host) nor an in-place alltoall (a
/// rank would overwrite a block a peer may still be reading).
bool CoveredDeviceToDevice(const CollArgs& args);

/// How a call runs with respect to device buffers.
enum class DevicePath {
  kHost,       // no rank has device buffers (or this one's one-hop staging is its own affair)
  kStaged,     // through host staging (RunStaged)
  kMpiDirect,  // the MPI library on the device buffers themselves (mpi_direct.h)
  kIpc,        // device to device between node peers (ipc_coll.h)
  kNccl,       // NCCL collectives (nccl/nccl_coll.h)
};
/// Chooses the path of this call, the same on every rank. Ranks may mix host and device
/// buffers, and a staged call of more than one chunk runs several collectives, so when that can
/// happen (a backend with devices, more than one chunk) the ranks agree with one small
/// allreduce: on any device buffer, and on whether every rank can take NCCL (first choice, where
/// built and on), the IPC path, or the MPI library directly (its native program may take device
/// buffers as they are; then *direct holds this rank's). Otherwise the path follows this rank's
/// buffers (route) and is never IPC or direct. Every rank calls it for every call.
Status ChooseDevicePath(Comm& comm, const CollArgs& args, const BufferRoute& route,
                        DevicePath* path, std::unique_ptr<NativeProgram>* direct);
/// Runs validated args whose buffers `route` describes (host-only ranks run it too when
/// another rank stages).
Status RunStaged(Comm& comm, const CollArgs& args, const BufferRoute& route, Stream stream);

}  // namespace weft::device
