// The path a call with device buffers takes, the same on every rank: staged through host
// memory (staged_coll.h), or one that skips staging where every rank can take it: NCCL
// (nccl/nccl_coll.h), device to device between node peers (ipc_coll.h), or the MPI library on
// the device buffers (mpi_direct.h). Ranks may mix host and device buffers, and a staged call
// of more than one chunk runs several collectives, so when that can happen (a backend with
// devices, more than one chunk) the ranks agree with one small allreduce: on whether any rank
// has a device buffer, and on which paths every rank can take (NCCL first, where built and on,
// then IPC, then MPI). Otherwise the path follows this rank's buffers and never skips staging.
#pragma once

#include "call/coll_args.h"
#include "device/backend.h"
#include "device/buffer_route.h"
#include "device/comm_device.h"

namespace weft::device {

/// The calls the device-to-device paths (IPC, NCCL) cover: the six collectives with a count,
/// but not Avg (its division by the rank count runs on the host) nor an in-place alltoall (a
/// rank would overwrite a block a peer may still be reading).
bool CoveredDeviceToDevice(const CollArgs& args);

/// RunDevicePath past its inline exit.
Status ChooseAndRunDevicePath(Comm& comm, const CollArgs& args, const BufferRoute& route,
                              Stream stream, const char* fn, bool* ran);

/// Runs validated args on the device path every rank agrees on, after the work queued on
/// `stream`, and sets *ran. When no rank has device buffers it leaves *ran false, having
/// waited for `stream` (the host buffers may be the target of work queued on it), and the
/// caller runs its host path. Every rank calls it for every call; `fn` names the call in errors.
/// Inline: a host-backend call without a stream (every call there) returns at once.
inline Status RunDevicePath(Comm& comm, const CollArgs& args, const BufferRoute& route,
                            Stream stream, const char* fn, bool* ran) {
  *ran = false;
  if (!comm.device->device_memory() && stream == nullptr) return weftSuccess;
  return ChooseAndRunDevicePath(comm, args, route, stream, fn, ran);
}

}  // namespace weft::device
