// Blocking collectives and point-to-point.
#include <memory>

#include "capi/guard.h"
#include "coll/build_collective.h"
#include "coll/coll_args.h"
#include "comm/program_cache.h"
#include "core/log.h"
#include "core/params.h"
#include "weft/weft.h"

namespace weft {
namespace {

weftResult_t RunBlocking(CollArgs a, Comm* comm, weftStream_t stream) {
  const char* fn = CollApiName(a.kind);
  return Guarded(fn, [&]() -> weftResult_t {
    WEFT_CHECK(CheckComm(fn, comm));
    WEFT_CHECK(CheckHostStream(fn, *comm, stream));
    WEFT_CHECK(ValidateArgs(*comm, &a));
    if (GetParams().WEFT_CHECK_ARGS && a.kind != CollKind::kSend && a.kind != CollKind::kRecv) {
      WEFT_CHECK(CheckArgsAgree(*comm, a));
    }
    NativeProgram* program = comm->cache->Find(a);
    std::unique_ptr<NativeProgram> uncached;
    if (program == nullptr) {
      auto built = std::make_unique<NativeProgram>();
      WEFT_CHECK(BuildCollective(*comm, a, built.get()));
      WEFT_TRACE(kColl, "built: %s", DescribeCollective(*comm, a, *built).c_str());
      program = comm->cache->Keep(a, std::move(built), &uncached);
    }
    return program->Run(*comm, Bind{static_cast<const char*>(a.send), static_cast<char*>(a.recv)});
  });
}

}  // namespace
}  // namespace weft

using weft::CollKind;
using weft::MakeArgs;
using weft::RunBlocking;

extern "C" {

weftResult_t weftAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                           weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                           weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0),
                     comm, stream);
}

weftResult_t weftReduce(const void* sendbuff, void* recvbuff, size_t count, weftDataType_t datatype,
                        weftRedOp_t op, int root, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kReduce, sendbuff, recvbuff, count, datatype, op, root),
                     comm, stream);
}

weftResult_t weftBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                           weftDataType_t datatype, int root, weftComm_t comm,
                           weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kBroadcast, sendbuff, recvbuff, count, datatype, weftSum, root), comm,
      stream);
}

weftResult_t weftAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                           weftDataType_t datatype, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kAllGather, sendbuff, recvbuff, sendcount, datatype, weftSum, 0), comm,
      stream);
}

weftResult_t weftReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                               weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                               weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, 0), comm,
      stream);
}

weftResult_t weftAllToAll(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                          weftDataType_t datatype, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(
      MakeArgs(CollKind::kAllToAll, sendbuff, recvbuff, count_per_peer, datatype, weftSum, 0), comm,
      stream);
}

weftResult_t weftBarrier(weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kBarrier, nullptr, nullptr, 0, weftInt8, weftSum, 0), comm,
                     stream);
}

weftResult_t weftSend(const void* sendbuff, size_t count, weftDataType_t datatype, int peer,
                      weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kSend, sendbuff, nullptr, count, datatype, weftSum, peer),
                     comm, stream);
}

weftResult_t weftRecv(void* recvbuff, size_t count, weftDataType_t datatype, int peer,
                      weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kRecv, nullptr, recvbuff, count, datatype, weftSum, peer),
                     comm, stream);
}

}  // extern "C"
