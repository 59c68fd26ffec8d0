// The v-collectives (counts per rank in arrays) and the prefix reductions, blocking and
// nonblocking: the same front and core as every other call (api_coll.cc, api_request.cc),
// with the count arrays copied into the call's arguments first.
#include "call/vcoll_args.h"
#include "capi/guard.h"
#include "weft/weft.h"

namespace weft {
namespace {

struct Arrays {
  const size_t* send_counts = nullptr;
  const size_t* send_displs = nullptr;
  const size_t* recv_counts = nullptr;
  const size_t* recv_displs = nullptr;
};

// Runs a v-call blocking (request == nullptr) or nonblocking. The arrays are copied here (or
// the last call's equal copy shared), for as many ranks as comm has; a bad comm is reported by
// the front like any call's.
weftResult_t RunV(CollArgs a, const Arrays& arr, Comm* comm, weftStream_t stream,
                  weftRequest_t* request, bool nonblocking) {
  return Guarded(CollApiName(a.kind), [&]() -> weftResult_t {
    a.v = comm != nullptr && IsLiveComm(comm) ? VCountsFor(*comm, arr.send_counts, arr.send_displs,
                                                           arr.recv_counts, arr.recv_displs)
                                              : CopyVCounts(0, nullptr, nullptr, nullptr, nullptr);
    return nonblocking ? StartNonblocking(std::move(a), comm, request)
                       : RunBlocking(std::move(a), comm, stream);
  });
}

}  // namespace
}  // namespace weft

using weft::Arrays;
using weft::CollKind;
using weft::MakeArgs;
using weft::RunBlocking;
using weft::RunV;
using weft::StartNonblocking;

extern "C" {

weftResult_t weftAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                            const size_t* recvcounts, const size_t* displs, weftDataType_t datatype,
                            weftComm_t comm, weftStream_t stream) {
  return RunV(MakeArgs(CollKind::kAllGatherV, sendbuff, recvbuff, sendcount, datatype, weftSum, 0),
              Arrays{nullptr, nullptr, recvcounts, displs}, comm, stream, nullptr, false);
}

weftResult_t weftAllToAllV(const void* sendbuff, const size_t* sendcounts, const size_t* sdispls,
                           void* recvbuff, const size_t* recvcounts, const size_t* rdispls,
                           weftDataType_t datatype, weftComm_t comm, weftStream_t stream) {
  return RunV(MakeArgs(CollKind::kAllToAllV, sendbuff, recvbuff, 0, datatype, weftSum, 0),
              Arrays{sendcounts, sdispls, recvcounts, rdispls}, comm, stream, nullptr, false);
}

weftResult_t weftGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                         const size_t* recvcounts, const size_t* displs, weftDataType_t datatype,
                         int root, weftComm_t comm, weftStream_t stream) {
  return RunV(MakeArgs(CollKind::kGatherV, sendbuff, recvbuff, sendcount, datatype, weftSum, root),
              Arrays{nullptr, nullptr, recvcounts, displs}, comm, stream, nullptr, false);
}

weftResult_t weftScatterV(const void* sendbuff, const size_t* sendcounts, const size_t* displs,
                          void* recvbuff, size_t recvcount, weftDataType_t datatype, int root,
                          weftComm_t comm, weftStream_t stream) {
  return RunV(MakeArgs(CollKind::kScatterV, sendbuff, recvbuff, recvcount, datatype, weftSum, root),
              Arrays{sendcounts, displs, nullptr, nullptr}, comm, stream, nullptr, false);
}

weftResult_t weftReduceScatterV(const void* sendbuff, void* recvbuff, const size_t* recvcounts,
                                weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                weftStream_t stream) {
  return RunV(MakeArgs(CollKind::kReduceScatterV, sendbuff, recvbuff, 0, datatype, op, 0),
              Arrays{nullptr, nullptr, recvcounts, nullptr}, comm, stream, nullptr, false);
}

weftResult_t weftScan(const void* sendbuff, void* recvbuff, size_t count, weftDataType_t datatype,
                      weftRedOp_t op, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kScan, sendbuff, recvbuff, count, datatype, op, 0), comm,
                     stream);
}

weftResult_t weftExScan(const void* sendbuff, void* recvbuff, size_t count, weftDataType_t datatype,
                        weftRedOp_t op, weftComm_t comm, weftStream_t stream) {
  return RunBlocking(MakeArgs(CollKind::kExScan, sendbuff, recvbuff, count, datatype, op, 0), comm,
                     stream);
}

weftResult_t weftIAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                             const size_t* recvcounts, const size_t* displs,
                             weftDataType_t datatype, weftComm_t comm, weftRequest_t* request) {
  return RunV(MakeArgs(CollKind::kAllGatherV, sendbuff, recvbuff, sendcount, datatype, weftSum, 0),
              Arrays{nullptr, nullptr, recvcounts, displs}, comm, nullptr, request, true);
}

weftResult_t weftIAllToAllV(const void* sendbuff, const size_t* sendcounts, const size_t* sdispls,
                            void* recvbuff, const size_t* recvcounts, const size_t* rdispls,
                            weftDataType_t datatype, weftComm_t comm, weftRequest_t* request) {
  return RunV(MakeArgs(CollKind::kAllToAllV, sendbuff, recvbuff, 0, datatype, weftSum, 0),
              Arrays{sendcounts, sdispls, recvcounts, rdispls}, comm, nullptr, request, true);
}

weftResult_t weftIGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                          const size_t* recvcounts, const size_t* displs, weftDataType_t datatype,
                          int root, weftComm_t comm, weftRequest_t* request) {
  return RunV(MakeArgs(CollKind::kGatherV, sendbuff, recvbuff, sendcount, datatype, weftSum, root),
              Arrays{nullptr, nullptr, recvcounts, displs}, comm, nullptr, request, true);
}

weftResult_t weftIScatterV(const void* sendbuff, const size_t* sendcounts, const size_t* displs,
                           void* recvbuff, size_t recvcount, weftDataType_t datatype, int root,
                           weftComm_t comm, weftRequest_t* request) {
  return RunV(MakeArgs(CollKind::kScatterV, sendbuff, recvbuff, recvcount, datatype, weftSum, root),
              Arrays{sendcounts, displs, nullptr, nullptr}, comm, nullptr, request, true);
}

weftResult_t weftIReduceScatterV(const void* sendbuff, void* recvbuff, const size_t* recvcounts,
                                 weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                 weftRequest_t* request) {
  return RunV(MakeArgs(CollKind::kReduceScatterV, sendbuff, recvbuff, 0, datatype, op, 0),
              Arrays{nullptr, nullptr, recvcounts, nullptr}, comm, nullptr, request, true);
}

weftResult_t weftIScan(const void* sendbuff, void* recvbuff, size_t count, weftDataType_t datatype,
                       weftRedOp_t op, weftComm_t comm, weftRequest_t* request) {
  return StartNonblocking(MakeArgs(CollKind::kScan, sendbuff, recvbuff, count, datatype, op, 0),
                          comm, request);
}

weftResult_t weftIExScan(const void* sendbuff, void* recvbuff, size_t count,
                         weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                         weftRequest_t* request) {
  return StartNonblocking(MakeArgs(CollKind::kExScan, sendbuff, recvbuff, count, datatype, op, 0),
                          comm, request);
}

}  // extern "C"
