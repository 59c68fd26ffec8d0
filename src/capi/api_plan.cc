// Persistent plans: the ...Init constructors and Start/Wait/Test/Free/Describe.
#include <cstring>
#include <mutex>

#include "capi/comm_setup.h"
#include "capi/guard.h"
#include "core/hot_path.h"
#include "core/params.h"
#include "device/comm_device.h"
#include "device/device_path.h"
#include "plan/plan.h"
#include "weft/weft.h"

namespace weft {
namespace {

weftResult_t Init(const char* fn, CollKind k, const void* s, void* r, size_t n, weftDataType_t t,
                  weftRedOp_t op, int root, Comm* comm, weftPlan_t* plan) {
  return Guarded(fn, [&]() -> weftResult_t {
    WEFT_CHECK(CheckComm(fn, comm));
    if (plan == nullptr) return comm->Fail(weftInvalidArgument, "%s: plan is NULL", fn);
    *plan = nullptr;
    return CreatePlan(*comm, MakeArgs(k, s, r, n, t, op, root), plan);
  });
}

// The plan and its communicator are both live.
WEFT_HOT Status CheckPlan(const char* fn, const Plan* plan) {
  if (plan == nullptr) return FailNoComm(weftInvalidArgument, "%s: plan is NULL", fn);
  if (!IsLivePlan(plan))
    return FailNoComm(weftInvalidUsage, "%s: plan %p was freed or never created", fn,
                      static_cast<const void*>(plan));
  if (plan->comm == nullptr)
    return FailNoComm(weftInvalidUsage, "%s: the plan's communicator was aborted", fn);
  if (!IsLiveComm(plan->comm))
    return FailNoComm(weftInvalidUsage, "%s: the plan's communicator was destroyed", fn);
  return weftSuccess;
}

}  // namespace
}  // namespace weft

using weft::CollKind;
using weft::Guarded;
using weft::Init;

extern "C" {

weftResult_t weftAllReduceInit(const void* sendbuff, void* recvbuff, size_t count,
                               weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                               weftPlan_t* plan) {
  return Init("weftAllReduceInit", CollKind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0,
              comm, plan);
}

weftResult_t weftReduceInit(const void* sendbuff, void* recvbuff, size_t count,
                            weftDataType_t datatype, weftRedOp_t op, int root, weftComm_t comm,
                            weftPlan_t* plan) {
  return Init("weftReduceInit", CollKind::kReduce, sendbuff, recvbuff, count, datatype, op, root,
              comm, plan);
}

weftResult_t weftBroadcastInit(const void* sendbuff, void* recvbuff, size_t count,
                               weftDataType_t datatype, int root, weftComm_t comm,
                               weftPlan_t* plan) {
  return Init("weftBroadcastInit", CollKind::kBroadcast, sendbuff, recvbuff, count, datatype,
              weftSum, root, comm, plan);
}

weftResult_t weftAllGatherInit(const void* sendbuff, void* recvbuff, size_t sendcount,
                               weftDataType_t datatype, weftComm_t comm, weftPlan_t* plan) {
  return Init("weftAllGatherInit", CollKind::kAllGather, sendbuff, recvbuff, sendcount, datatype,
              weftSum, 0, comm, plan);
}

weftResult_t weftReduceScatterInit(const void* sendbuff, void* recvbuff, size_t recvcount,
                                   weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                   weftPlan_t* plan) {
  return Init("weftReduceScatterInit", CollKind::kReduceScatter, sendbuff, recvbuff, recvcount,
              datatype, op, 0, comm, plan);
}

weftResult_t weftAllToAllInit(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                              weftDataType_t datatype, weftComm_t comm, weftPlan_t* plan) {
  return Init("weftAllToAllInit", CollKind::kAllToAll, sendbuff, recvbuff, count_per_peer, datatype,
              weftSum, 0, comm, plan);
}

WEFT_HOT weftResult_t weftPlanStart(weftPlan_t plan, weftStream_t stream) {
  return Guarded("weftPlanStart", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckPlan("weftPlanStart", plan));
    weft::CommCall call(plan->comm);
    weft::Comm& comm = *plan->comm;
    WEFT_CHECK(comm.CheckUsable("weftPlanStart"));
    WEFT_CHECK(weft::CheckStreamArg("weftPlanStart", comm, stream));
    if (weft::GetParams().WEFT_CHECK_ARGS) WEFT_CHECK(weft::CheckArgsAgree(comm, plan->args, true));
    const weft::CollArgs& a = plan->args;
    bool ran = false;
    weft::Status s =
        weft::device::RunDevicePath(comm, a, plan->route, stream, "weftPlanStart", &ran);
    if (ran || s != weftSuccess) return s;
    if (plan->program == nullptr) {
      return comm.Fail(weftInternalError, "weftPlanStart: the plan has nothing to run");
    }
    std::lock_guard<std::mutex> lk(comm.progress_mu);
    return weft::StartExecutionLocked(
        comm, &plan->exec, plan->program.get(),
        weft::Bind{static_cast<const char*>(a.send), static_cast<char*>(a.recv)});
  });
}

WEFT_HOT weftResult_t weftPlanWait(weftPlan_t plan) {
  return Guarded("weftPlanWait", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckPlan("weftPlanWait", plan));
    weft::CommCall call(plan->comm);
    return weft::WaitExecution(*plan->comm, &plan->exec);
  });
}

WEFT_HOT weftResult_t weftPlanTest(weftPlan_t plan, int* done) {
  return Guarded("weftPlanTest", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckPlan("weftPlanTest", plan));
    if (done == nullptr) return plan->comm->Fail(weftInvalidArgument, "weftPlanTest: done is NULL");
    weft::CommCall call(plan->comm);
    bool d = false;
    weft::Status s = weft::TestExecution(*plan->comm, &plan->exec, &d);
    *done = d ? 1 : 0;
    return s;
  });
}

weftResult_t weftPlanFree(weftPlan_t plan) {
  return Guarded("weftPlanFree", [&]() -> weftResult_t {
    if (plan == nullptr) return weft::FailNoComm(weftInvalidArgument, "weftPlanFree: plan is NULL");
    if (!weft::IsLivePlan(plan)) {
      return weft::FailNoComm(weftInvalidUsage, "weftPlanFree: plan %p was freed or never created",
                              static_cast<void*>(plan));
    }
    weft::Status s = weftSuccess;
    if (plan->comm != nullptr && weft::IsLiveComm(plan->comm) && plan->exec.queued)
      s = weft::WaitExecution(*plan->comm, &plan->exec);
    weft::DestroyPlan(plan);
    return s;
  });
}

weftResult_t weftPlanDescribe(weftPlan_t plan, char* buf, size_t len, size_t* needed) {
  return Guarded("weftPlanDescribe", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckPlan("weftPlanDescribe", plan));
    const std::string& d = plan->description;
    if (needed != nullptr) *needed = d.size() + 1;
    if (buf == nullptr && len > 0)
      return plan->comm->Fail(weftInvalidArgument, "weftPlanDescribe: buf is NULL with len > 0");
    if (len > 0) {
      size_t n = std::min(len - 1, d.size());
      std::memcpy(buf, d.data(), n);
      buf[n] = '\0';
    }
    return weftSuccess;
  });
}

}  // extern "C"
