#include "device/nccl/nccl_coll.h"

#include <dlfcn.h>
#include <nccl.h>

#include <cstring>

#include "comm/comm.h"
#include "core/dtype.h"
#include "core/log.h"
#include "core/params.h"
#include "device/comm_device.h"
#include "device/device_path.h"

namespace weft::device {
namespace {

// The NCCL entry points weft uses, from libnccl.so.2 (dlopen: no link-time dependency).
struct Api {
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) init_rank = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclReduce) reduce = nullptr;
  decltype(&ncclBroadcast) broadcast = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclGetVersion) get_version = nullptr;
};

// Loaded once per process; null when the library or a symbol is missing (logged once).
const Api* GetApi() {
  static const Api* api = []() -> const Api* {
    void* h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
#ifdef WEFT_NCCL_LIBRARY_PATH
    if (h == nullptr) h = dlopen(WEFT_NCCL_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);  // build's copy
#endif
    if (h == nullptr) {
      WEFT_INFO(kDevice, "NCCL path off: %s", dlerror());
      return nullptr;
    }
    static Api a;
    bool ok = true;
    auto get = [&](auto* fn, const char* name) {
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(dlsym(h, name));
      ok &= *fn != nullptr;
    };
    get(&a.get_unique_id, "ncclGetUniqueId");
    get(&a.init_rank, "ncclCommInitRank");
    get(&a.destroy, "ncclCommDestroy");
    get(&a.error_string, "ncclGetErrorString");
    get(&a.all_reduce, "ncclAllReduce");
    get(&a.reduce, "ncclReduce");
    get(&a.broadcast, "ncclBroadcast");
    get(&a.all_gather, "ncclAllGather");
    get(&a.reduce_scatter, "ncclReduceScatter");
    get(&a.send, "ncclSend");
    get(&a.recv, "ncclRecv");
    get(&a.group_start, "ncclGroupStart");
    get(&a.group_end, "ncclGroupEnd");
    get(&a.get_version, "ncclGetVersion");
    if (!ok) {
      WEFT_INFO(kDevice, "NCCL path off: libnccl.so.2 lacks an entry point weft uses");
      return nullptr;
    }
    return &a;
  }();
  return api;
}

ncclDataType_t NcclType(weftDataType_t t) {
  switch (t) {
    case weftInt8:
      return ncclInt8;
    case weftUint8:
      return ncclUint8;
    case weftInt32:
      return ncclInt32;
    case weftUint32:
      return ncclUint32;
    case weftInt64:
      return ncclInt64;
    case weftUint64:
      return ncclUint64;
    case weftFloat16:
      return ncclFloat16;
    case weftBfloat16:
      return ncclBfloat16;
    case weftFloat32:
      return ncclFloat32;
    default:
      return ncclFloat64;
  }
}

ncclRedOp_t NcclOp(weftRedOp_t op) {
  switch (op) {
    case weftProd:
      return ncclProd;
    case weftMax:
      return ncclMax;
    case weftMin:
      return ncclMin;
    default:
      return ncclSum;
  }
}

void FreeComm(void* c) {
  if (const Api* api = GetApi()) api->destroy(static_cast<ncclComm_t>(c));
}

// Enqueues the collective on s.
ncclResult_t Enqueue(const Api& n, const Comm& comm, const CollArgs& a, ncclComm_t c,
                     cudaStream_t s) {
  const ncclDataType_t t = NcclType(a.type);
  const ncclRedOp_t op = NcclOp(a.op);
  switch (a.kind) {
    case CollKind::kAllReduce:
      return n.all_reduce(a.send, a.recv, a.count, t, op, c, s);
    case CollKind::kReduce:
      return n.reduce(a.send, a.recv, a.count, t, op, a.root, c, s);
    case CollKind::kBroadcast:
      return n.broadcast(a.send, a.recv, a.count, t, a.root, c, s);
    case CollKind::kAllGather:
      return n.all_gather(a.send, a.recv, a.count, t, c, s);
    case CollKind::kReduceScatter:
      return n.reduce_scatter(a.send, a.recv, a.count, t, op, c, s);
    case CollKind::kAllToAll: {
      const size_t block = a.count * TypeSize(a.type);
      ncclResult_t r = n.group_start();
      for (int q = 0; q < comm.size && r == ncclSuccess; ++q) {
        r = n.send(static_cast<const char*>(a.send) + q * block, a.count, t, q, c, s);
        if (r == ncclSuccess)
          r = n.recv(static_cast<char*>(a.recv) + q * block, a.count, t, q, c, s);
      }
      ncclResult_t end = n.group_end();
      return r != ncclSuccess ? r : end;
    }
    default:
      return ncclInvalidUsage;
  }
}

}  // namespace

int NcclRuntimeVersion() {
  const Api* api = GetApi();
  int v = 0;
  if (api == nullptr || api->get_version(&v) != ncclSuccess) return 0;
  return v;
}

bool NcclEligible(Comm& comm, const CollArgs& a, const BufferRoute& route) {
  CommDevice& dev = *comm.device;
  if (GetParams().WEFT_NCCL == 0 || !dev.backend().caps().nccl || dev.nccl_failed ||
      comm.size < 2 || !CoveredDeviceToDevice(a)) {
    return false;
  }
  const bool reduces = a.kind == CollKind::kAllReduce || a.kind == CollKind::kReduce ||
                       a.kind == CollKind::kReduceScatter;
  if (reduces && (a.type == weftFloat16 || a.type == weftBfloat16)) return false;
  Extents e;
  if (!ComputeExtents(comm, a, TypeSize(a.type), &e)) return false;
  if ((e.send > 0 && !route.send_device) || (e.recv > 0 && !route.recv_device)) return false;
  return GetApi() != nullptr;
}

Status NcclReady(Comm& comm, bool* ready) {
  CommDevice& dev = *comm.device;
  const Api* api = GetApi();
  int ok = dev.nccl_comm != nullptr ? 1 : 0;
  if (!ok && api != nullptr) {
    // Rank 0 makes the id; a failure there travels with it, so no rank waits in init alone.
    struct {
      int ok;
      ncclUniqueId id;
    } msg{};
    if (comm.rank == 0) msg.ok = api->get_unique_id(&msg.id) == ncclSuccess;
    int err = PMPI_Bcast(&msg, sizeof(msg), MPI_BYTE, 0, comm.mpi);
    if (err != MPI_SUCCESS) return comm.FailMpi(err, "NCCL path: MPI_Bcast of the unique id");
    ncclComm_t c = nullptr;
    if (msg.ok && api->init_rank(&c, comm.size, msg.id, comm.rank) == ncclSuccess) {
      dev.nccl_comm = std::unique_ptr<void, void (*)(void*)>(c, FreeComm);
      ok = 1;
    }
  }
  int all = ok;
  int err = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm.mpi);
  if (err != MPI_SUCCESS) return comm.FailMpi(err, "NCCL path: MPI_Allreduce");
  *ready = all != 0;
  if (!*ready && !dev.nccl_failed) {
    dev.nccl_failed = true;
    WEFT_WARN(kDevice,
              "NCCL path off for this communicator: making the NCCL communicator failed "
              "on %s rank",
              ok ? "another" : "this");
  }
  return weftSuccess;
}

Status RunNccl(Comm& comm, const CollArgs& a, Stream stream) {
  CommDevice& dev = *comm.device;
  const Api* api = GetApi();
  if (api == nullptr || dev.nccl_comm == nullptr) return weftInternalError;  // NcclReady first
  ncclResult_t r = Enqueue(*api, comm, a, static_cast<ncclComm_t>(dev.nccl_comm.get()),
                           static_cast<cudaStream_t>(stream));
  if (r != ncclSuccess) {
    return comm.Fail(weftUnhandledDeviceError, "%s: NCCL: %s", CollApiName(a.kind),
                     api->error_string(r));
  }
  if (dev.backend().StreamSync(stream) != weftSuccess) {
    return comm.Fail(weftUnhandledDeviceError, "%s: %s", CollApiName(a.kind), ThreadLastError());
  }
  ++dev.nccl_calls;
  return weftSuccess;
}

}  // namespace weft::device
