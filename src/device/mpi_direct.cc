#include "device/mpi_direct.h"

#include <string>

#include "comm/comm.h"
#include "core/dtype.h"
#include "core/log.h"
#include "core/params.h"
#include "device/comm_device.h"
#include "native/native_colls.h"
#include "native/wire.h"

namespace weft::device {
namespace {

// A bcast root's out-of-place copy is the one host pass a direct call can avoid: the backend
// copies send to recv on the device first, and the program is the in-place one.
bool RootCopiesFirst(const Comm& comm, const CollArgs& a) {
  return a.kind == CollKind::kBroadcast && comm.rank == a.root && !a.in_place && a.count > 0;
}

bool IsReduction(CollKind k) {
  return k == CollKind::kAllReduce || k == CollKind::kReduce || k == CollKind::kReduceScatter;
}

// MPI's own operators on MPI's own types: a device-aware MPI reduces device data with these
// (on the device or through its own staging); a user operator would be handed device pointers.
bool BuiltinReduction(const CollArgs& a) {
  Wire w;
  if (SelectWire(a.type, a.op, &w) != weftSuccess) return false;
  return w.conv == Wire::Conv::kNone && !w.divide &&
         (w.op == MPI_SUM || w.op == MPI_PROD || w.op == MPI_MAX || w.op == MPI_MIN);
}

}  // namespace

Status DecideMpiDirect(MPI_Comm mpi, Backend& backend, bool* out) {
  *out = false;
  if (!backend.caps().device_memory) return weftSuccess;
  const std::string mode = GetParams().WEFT_MPI_DEVICE;
  const char* why = nullptr;
  bool mine = false;
  if (mode == "0") {
    why = "WEFT_MPI_DEVICE=0";
  } else if (mode == "1") {
    mine = true;
    why = "WEFT_MPI_DEVICE=1";
  } else {
    mine = backend.MpiTakesDeviceMemory(&why);
  }
  // Every rank must take the same path for the same call: direct only if all ranks may.
  int all = mine ? 1 : 0;
  int err = PMPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, mpi);
  if (err != MPI_SUCCESS) return FailNoComm(weftMpiError, "agreeing on GPU-aware MPI failed");
  *out = all != 0;
  if (*out) {
    WEFT_INFO(kDevice, "device buffers: large calls go to the MPI library directly (%s)", why);
  } else {
    WEFT_INFO(kDevice, "device buffers: staged through host memory (%s%s)", why,
              mine ? "; another rank's MPI is not device-aware" : "");
  }
  return weftSuccess;
}

Status BuildMpiDirect(Comm& comm, const CollArgs& args, std::unique_ptr<NativeProgram>* program,
                      bool* ok) {
  *ok = false;
  CollArgs a = args;
  if (RootCopiesFirst(comm, args)) {
    a.send = a.recv;
    a.in_place = true;
  }
  *program = std::make_unique<NativeProgram>();
  WEFT_CHECK(BuildNative(comm, a, program->get()));
  bool passes = false;
  for (const NativeStep& s : (*program)->steps) passes |= s.before || s.after;
  *ok = !passes && (!IsReduction(a.kind) || BuiltinReduction(a));
  return weftSuccess;
}

Status RunMpiDirect(Comm& comm, const CollArgs& a, NativeProgram& program, Stream stream) {
  Backend& b = comm.device->backend();
  if (b.StreamSync(stream) != weftSuccess) {
    return comm.Fail(weftUnhandledDeviceError, "%s: %s", CollApiName(a.kind), ThreadLastError());
  }
  const void* send = a.send;
  if (RootCopiesFirst(comm, a)) {
    if (b.Copy(a.recv, a.send, a.count * TypeSize(a.type)) != weftSuccess) {
      return comm.Fail(weftUnhandledDeviceError, "%s: %s", CollApiName(a.kind), ThreadLastError());
    }
    send = a.recv;
  }
  Status s = program.Run(comm, Bind{static_cast<const char*>(b.MpiAddress(send)),
                                    static_cast<char*>(b.MpiAddress(a.recv))});
  if (s == weftSuccess) ++comm.device->direct_calls;
  return s;
}

}  // namespace weft::device
