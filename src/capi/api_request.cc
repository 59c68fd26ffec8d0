// Nonblocking collectives and their requests: weftIAllReduce ... and
// weftRequestWait/Test/Waitall/Free. The same front as the blocking calls (PrepareCall), then
// a request started on the communicator's queue (plan/request.h, coll/progress.h).
#include "capi/comm_setup.h"
#include "capi/guard.h"
#include "core/hot_path.h"
#include "plan/group.h"
#include "plan/request.h"
#include "weft/weft.h"

namespace weft {

WEFT_HOT weftResult_t StartNonblocking(CollArgs a, Comm* comm, weftRequest_t* request) {
  const char* fn = CollNonblockingName(a.kind);
  return Guarded(fn, [&]() -> weftResult_t {
    if (request == nullptr) {
      return CheckComm(fn, comm) != weftSuccess
                 ? weftInvalidUsage
                 : comm->Fail(weftInvalidArgument, "%s: request is NULL", fn);
    }
    *request = nullptr;
    WEFT_CHECK(CheckComm(fn, comm));
    CommCall call(comm);  // its start may wait for older executions
    bool served = false;
    WEFT_CHECK(PrepareCall(fn, comm, nullptr, &a, &served));
    if (served) {  // device buffers: the device path ran it to completion
      *request = CompletedRequest(weftSuccess);
      return weftSuccess;
    }
    return StartRequest(*comm, a, request);
  });
}

namespace {

// *request is NULL (nothing to do) or a live request.
WEFT_HOT Status CheckRequest(const char* fn, weftRequest_t* request) {
  if (request == nullptr) return FailNoComm(weftInvalidArgument, "%s: request is NULL", fn);
  if (*request != nullptr && !IsLiveRequest(*request)) {
    return FailNoComm(weftInvalidUsage, "%s: request %p was completed, freed or never created", fn,
                      static_cast<void*>(*request));
  }
  return weftSuccess;
}

}  // namespace
}  // namespace weft

using weft::CollKind;
using weft::MakeArgs;
using weft::StartNonblocking;

extern "C" {

WEFT_HOT weftResult_t weftIAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                     weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                     weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0), comm, request);
}

WEFT_HOT weftResult_t weftIReduce(const void* sendbuff, void* recvbuff, size_t count,
                                  weftDataType_t datatype, weftRedOp_t op, int root,
                                  weftComm_t comm, weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kReduce, sendbuff, recvbuff, count, datatype, op, root), comm, request);
}

WEFT_HOT weftResult_t weftIBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                     weftDataType_t datatype, int root, weftComm_t comm,
                                     weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kBroadcast, sendbuff, recvbuff, count, datatype, weftSum, root), comm,
      request);
}

WEFT_HOT weftResult_t weftIAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                     weftDataType_t datatype, weftComm_t comm,
                                     weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kAllGather, sendbuff, recvbuff, sendcount, datatype, weftSum, 0), comm,
      request);
}

WEFT_HOT weftResult_t weftIReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                         weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                         weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, 0), comm,
      request);
}

WEFT_HOT weftResult_t weftIAllToAll(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                                    weftDataType_t datatype, weftComm_t comm,
                                    weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kAllToAll, sendbuff, recvbuff, count_per_peer, datatype, weftSum, 0), comm,
      request);
}

weftResult_t weftIGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                         weftDataType_t datatype, int root, weftComm_t comm,
                         weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kGather, sendbuff, recvbuff, sendcount, datatype, weftSum, root), comm,
      request);
}

weftResult_t weftIScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                          weftDataType_t datatype, int root, weftComm_t comm,
                          weftRequest_t* request) {
  return StartNonblocking(
      MakeArgs(CollKind::kScatter, sendbuff, recvbuff, recvcount, datatype, weftSum, root), comm,
      request);
}

WEFT_HOT weftResult_t weftIBarrier(weftComm_t comm, weftRequest_t* request) {
  return StartNonblocking(MakeArgs(CollKind::kBarrier, nullptr, nullptr, 0, weftInt8, weftSum, 0),
                          comm, request);
}

WEFT_HOT weftResult_t weftRequestWait(weftRequest_t* request) {
  return weft::Guarded("weftRequestWait", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckRequest("weftRequestWait", request));
    if (*request == nullptr) return weftSuccess;
    weftRequest* r = *request;
    *request = nullptr;  // freed by the wait, whatever its result
    weft::CommCall call(r->comm);
    return weft::WaitRequest(r);
  });
}

WEFT_HOT weftResult_t weftRequestTest(weftRequest_t* request, int* done) {
  return weft::Guarded("weftRequestTest", [&]() -> weftResult_t {
    if (done == nullptr) {
      return weft::FailNoComm(weftInvalidArgument, "weftRequestTest: done is NULL");
    }
    *done = 0;
    WEFT_CHECK(weft::CheckRequest("weftRequestTest", request));
    if (*request == nullptr) {
      *done = 1;
      return weftSuccess;
    }
    bool finished = false;
    weft::CommCall call((*request)->comm);
    const weft::Status s = weft::TestRequest(*request, &finished);
    if (finished) {
      *request = nullptr;
      *done = 1;
    }
    return s;
  });
}

weftResult_t weftRequestWaitall(int count, weftRequest_t* requests) {
  return weft::Guarded("weftRequestWaitall", [&]() -> weftResult_t {
    if (count < 0 || (count > 0 && requests == nullptr)) {
      return weft::FailNoComm(weftInvalidArgument, "weftRequestWaitall: count %d with requests %p",
                              count, static_cast<void*>(requests));
    }
    for (int i = 0; i < count; ++i)
      WEFT_CHECK(weft::CheckRequest("weftRequestWaitall", &requests[i]));
    // In the order given: each wait completes the older executions first, so the order cannot
    // deadlock (coll/progress.h).
    weft::Status first = weftSuccess;
    for (int i = 0; i < count; ++i) {
      if (requests[i] == nullptr) continue;
      weftRequest* r = requests[i];
      requests[i] = nullptr;
      weft::CommCall call(r->comm);
      const weft::Status s = weft::WaitRequest(r);
      if (first == weftSuccess) first = s;
    }
    return first;
  });
}

weftResult_t weftGroupStart(void) {
  return weft::Guarded("weftGroupStart", []() -> weftResult_t {
    weft::GroupStart();
    return weftSuccess;
  });
}

weftResult_t weftGroupEnd(void) {
  return weft::Guarded("weftGroupEnd", []() -> weftResult_t { return weft::GroupEnd(); });
}

weftResult_t weftRequestFree(weftRequest_t* request) {
  return weft::Guarded("weftRequestFree", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckRequest("weftRequestFree", request));
    if (*request == nullptr) return weftSuccess;
    weft::FreeRequest(*request);
    *request = nullptr;
    return weftSuccess;
  });
}

}  // extern "C"
