#include "device/device_path.h"

#include <memory>

#include "comm/comm.h"
#include "core/build_config.h"
#include "core/log.h"
#include "device/comm_device.h"
#include "device/ipc_coll.h"
#include "device/mpi_direct.h"
#include "device/staged_coll.h"
#if WEFT_WITH_NCCL_BUILT
#include "device/nccl/nccl_coll.h"
#endif

namespace weft::device {
namespace {

enum class Path { kHost, kStaged, kMpiDirect, kIpc, kNccl };

// The path every rank takes, by the agreement described in device_path.h; *direct holds this
// rank's native program when it is the MPI path.
Status Choose(Comm& comm, const CollArgs& a, const BufferRoute& route, Path* path,
              std::unique_ptr<NativeProgram>* direct) {
  const bool mine = route.any_device();
  *path = mine ? Path::kStaged : Path::kHost;
  direct->reset();
  if (a.kind == CollKind::kBarrier || a.kind == CollKind::kSend || a.kind == CollKind::kRecv ||
      comm.size == 1 || StagingChunkElems(comm, a) >= a.count) {
    return weftSuccess;  // one collective whichever way each rank runs it
  }
  // MAX over ranks of {this rank has a device buffer, cannot go direct, cannot take IPC,
  // cannot take NCCL}.
  int flags[4] = {mine ? 1 : 0, 1, IpcEligible(comm, a, route) ? 0 : 1, 1};
#if WEFT_WITH_NCCL_BUILT
  flags[3] = NcclEligible(comm, a, route) ? 0 : 1;
#endif
  if (comm.device->mpi_direct) {
    // A failure to build only rules the path out: returning before the agreement below would
    // leave the other ranks waiting in it.
    bool ok = false;
    flags[1] = BuildMpiDirect(comm, a, direct, &ok) == weftSuccess && ok ? 0 : 1;
  }
  int err = PMPI_Allreduce(MPI_IN_PLACE, flags, 4, MPI_INT, MPI_MAX, comm.mpi);
  if (err != MPI_SUCCESS) return comm.FailMpi(err, "agreeing on staging: MPI_Allreduce");
  bool nccl = false;
#if WEFT_WITH_NCCL_BUILT
  if (flags[0] != 0 && flags[3] == 0) WEFT_CHECK(NcclReady(comm, &nccl));  // collective
#endif
  if (flags[0] == 0) {
    *path = Path::kHost;
  } else if (nccl) {
    *path = Path::kNccl;
  } else if (flags[2] == 0) {
    *path = Path::kIpc;
  } else if (flags[1] == 0) {
    *path = Path::kMpiDirect;
  } else {
    *path = Path::kStaged;
    WEFT_TRACE(kDevice, "%s of %zu: staged (not every rank can take a path that skips it)",
               CollApiName(a.kind), a.count);
  }
  if (*path != Path::kMpiDirect) direct->reset();
  return weftSuccess;
}

}  // namespace

bool CoveredDeviceToDevice(const CollArgs& a) {
  switch (a.kind) {
    case CollKind::kAllReduce:
    case CollKind::kReduce:
    case CollKind::kReduceScatter:
      return a.count > 0 && a.op != weftAvg;
    case CollKind::kAllToAll:
      return a.count > 0 && !a.in_place;
    case CollKind::kBroadcast:
    case CollKind::kAllGather:
      return a.count > 0;
    default:
      return false;
  }
}

Status ChooseAndRunDevicePath(Comm& comm, const CollArgs& a, const BufferRoute& route,
                              Stream stream, const char* fn, bool* ran) {
  Path path = Path::kHost;
  std::unique_ptr<NativeProgram> direct;
  if (comm.device->device_memory()) WEFT_CHECK(Choose(comm, a, route, &path, &direct));
  *ran = path != Path::kHost;
  switch (path) {
    case Path::kHost:
      if (stream != nullptr && comm.device->backend().StreamSync(stream) != weftSuccess) {
        return comm.Fail(weftUnhandledDeviceError, "%s: %s", fn, ThreadLastError());
      }
      return weftSuccess;
    case Path::kStaged:
      return RunStaged(comm, a, route, stream);
    case Path::kMpiDirect:
      return RunMpiDirect(comm, a, *direct, stream);
    case Path::kIpc:
      return RunIpc(comm, a, stream);
    case Path::kNccl:
#if WEFT_WITH_NCCL_BUILT
      return RunNccl(comm, a, stream);
#else
      return weftInternalError;  // never chosen without NCCL
#endif
  }
  return weftInternalError;
}

}  // namespace weft::device
