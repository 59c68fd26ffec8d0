// Blocking collectives and point-to-point.
#include "call/coll_args.h"
#include "call/vcoll_args.h"
#include "capi/comm_setup.h"
#include "capi/guard.h"
#include "coll/run_blocking.h"
#include "coll/zero_copy_agreement.h"
#include "core/hot_path.h"
#include "core/params.h"
#include "device/buffer_route.h"
#include "device/comm_device.h"
#include "device/device_path.h"
#include "plan/group.h"
#include "weft/weft.h"

namespace weft {

WEFT_HOT Status PrepareCall(const char* fn, Comm* comm, weftStream_t stream, CollArgs* args,
                            bool* served, bool grouped) {
  *served = false;
  CollArgs& a = *args;
  a.grouped = grouped;
  WEFT_CHECK(CheckComm(fn, comm));
  WEFT_CHECK(comm->CheckUsable(fn));
  WEFT_CHECK(CheckStreamArg(fn, *comm, stream));
  bool seen_only_here = false;
  const Status valid = ValidateArgs(*comm, &a, &seen_only_here);
  const bool collective = a.kind != CollKind::kSend && a.kind != CollKind::kRecv;
  if (GetParams().WEFT_CHECK_ARGS && collective) {
    // Every rank learns whether all arguments were valid: an error agreed across ranks.
    const Status agreed = CheckArgsAgree(*comm, a, valid == weftSuccess);
    WEFT_CHECK(valid);
    WEFT_CHECK(agreed);
    if (IsVKind(a.kind)) WEFT_CHECK(CheckVCountsAgree(*comm, a));
  } else if (valid != weftSuccess) {
    // Peers already waiting for this rank would hang: break the communicator and tell them.
    if (seen_only_here) comm->Break(valid);
    return valid;
  }
  device::BufferRoute route;
  WEFT_CHECK(device::RouteBuffers(*comm, a, &route));
  if (route.any_device() && collective && !ServedOnDevice(a.kind)) {
    return comm->Fail(weftNotSupported, "%s: device buffers are not supported yet (stage them)",
                      fn);
  }
  if (grouped && route.any_device()) {
    return comm->Fail(weftNotSupported,
                      "%s: device buffers inside weftGroupStart/weftGroupEnd are not supported "
                      "(call it outside the group)",
                      fn);
  }
  WEFT_CHECK(device::RunDevicePath(*comm, a, route, stream, fn, served));
  if (*served) return weftSuccess;
  // Only the user's own buffers can be weftMemAlloc memory (staged chunks never are), so the
  // zero-copy agreement is made here rather than for every staged chunk.
  return AgreeZeroCopy(*comm, &a);
}

WEFT_HOT weftResult_t RunBlocking(CollArgs a, Comm* comm, weftStream_t stream) {
  const char* fn = CollApiName(a.kind);
  return Guarded(fn, [&]() -> weftResult_t {
    WEFT_CHECK(CheckComm(fn, comm));
    CommCall call(comm);  // weftCommAbort from another thread waits for it to leave
    bool served = false;
    const bool grouped = InGroup();
    WEFT_CHECK(PrepareCall(fn, comm, stream, &a, &served, grouped));
    if (served) return weftSuccess;
    if (grouped) {  // started with the rest of the group at its weftGroupEnd
      GroupAdd(*comm, a);
      return weftSuccess;
    }
    return RunHostBlocking(*comm, a);
  });
}

}  // namespace weft

using weft::CollKind;
using weft::MakeArgs;
using weft::RunBlocking;

extern "C" {

WEFT_HOT weftResult_t weftAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                    weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                    weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0),
                     comm, stream);
}

WEFT_HOT weftResult_t weftReduce(const void* sendbuff, void* recvbuff, size_t count,
                                 weftDataType_t datatype, weftRedOp_t op, int root, weftComm_t comm,
                                 weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kReduce, sendbuff, recvbuff, count, datatype, op, root),
                     comm, stream);
}

WEFT_HOT weftResult_t weftBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                    weftDataType_t datatype, int root, weftComm_t comm,
                                    weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kBroadcast, sendbuff, recvbuff, count, datatype, weftSum, root), comm,
      stream);
}

WEFT_HOT weftResult_t weftAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                    weftDataType_t datatype, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kAllGather, sendbuff, recvbuff, sendcount, datatype, weftSum, 0), comm,
      stream);
}

WEFT_HOT weftResult_t weftReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                        weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                        weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, 0), comm,
      stream);
}

WEFT_HOT weftResult_t weftAllToAll(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                                   weftDataType_t datatype, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kAllToAll, sendbuff, recvbuff, count_per_peer, datatype, weftSum, 0), comm,
      stream);
}

weftResult_t weftGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                        weftDataType_t datatype, int root, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kGather, sendbuff, recvbuff, sendcount, datatype, weftSum, root), comm,
      stream);
}

weftResult_t weftScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                         weftDataType_t datatype, int root, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kScatter, sendbuff, recvbuff, recvcount, datatype, weftSum, root), comm,
      stream);
}

WEFT_HOT weftResult_t weftBarrier(weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kBarrier, nullptr, nullptr, 0, weftInt8, weftSum, 0), comm,
                     stream);
}

WEFT_HOT weftResult_t weftSend(const void* sendbuff, size_t count, weftDataType_t datatype,
                               int peer, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kSend, sendbuff, nullptr, count, datatype, weftSum, peer),
                     comm, stream);
}

WEFT_HOT weftResult_t weftRecv(void* recvbuff, size_t count, weftDataType_t datatype, int peer,
                               weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kRecv, nullptr, recvbuff, count, datatype, weftSum, peer),
                     comm, stream);
}

}  // extern "C"
