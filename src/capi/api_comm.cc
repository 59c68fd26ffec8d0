// Communicator lifetime, queries, version and error text.
#include <string>

#include "capi/comm_setup.h"
#include "capi/guard.h"
#include "comm/mem_window.h"
#include "core/hot_path.h"
#include "device/comm_device.h"
#include "plan/plan.h"
#include "plan/request.h"
#include "weft/weft.h"

namespace weft {

WEFT_HOT Status CheckComm(const char* fn, const Comm* comm) {
  if (comm == nullptr) return FailNoComm(weftInvalidArgument, "%s: comm is NULL", fn);
  if (!IsLiveComm(comm)) {
    return FailNoComm(weftInvalidUsage, "%s: comm %p was destroyed or never created", fn,
                      static_cast<const void*>(comm));
  }
  return weftSuccess;
}

WEFT_HOT Status CheckStreamArg(const char* fn, Comm& comm, const void* stream) {
  if (stream == nullptr) return weftSuccess;
  device::Backend& b = comm.device->backend();
  if (b.CheckStream(const_cast<void*>(stream)) == weftSuccess) return weftSuccess;
  return comm.Fail(b.caps().device_memory ? weftInvalidArgument : weftNotSupported, "%s: %s", fn,
                   ThreadLastError());
}

}  // namespace weft

using weft::Guarded;

extern "C" {

const char* weftGetErrorString(weftResult_t r) {
  switch (r) {
    case weftSuccess:
      return "success";
    case weftUnhandledDeviceError:
      return "unhandled device error";
    case weftSystemError:
      return "system error (memory, file or OS call failed)";
    case weftInternalError:
      return "internal error (a bug in weft)";
    case weftInvalidArgument:
      return "invalid argument";
    case weftInvalidUsage:
      return "invalid usage";
    case weftRemoteError:
      return "remote error (a peer failed)";
    case weftInProgress:
      return "operation in progress";
    case weftTimeout:
      return "timed out";
    case weftNotSupported:
      return "not supported";
    case weftMpiError:
      return "MPI error";
    default:
      return "unknown weftResult_t";
  }
}

const char* weftGetLastError(weftComm_t comm) {
  thread_local std::string text;
  try {
    text = weft::IsLiveComm(comm) ? comm->LastError() : weft::ThreadLastError();
  } catch (...) {
    return "";
  }
  return text.c_str();
}

weftResult_t weftGetVersion(int* version) {
  if (version == nullptr)
    return weft::FailNoComm(weftInvalidArgument, "weftGetVersion: version is NULL");
  *version = WEFT_VERSION_CODE;
  return weftSuccess;
}

weftResult_t weftCommInitMPI(weftComm_t* comm, MPI_Comm mpi_comm) {
  return Guarded("weftCommInitMPI", [&]() -> weftResult_t {
    if (comm == nullptr)
      return weft::FailNoComm(weftInvalidArgument, "weftCommInitMPI: comm is NULL");
    *comm = nullptr;
    return weft::CreateComm(mpi_comm, comm);
  });
}

weftResult_t weftCommSplit(weftComm_t comm, int color, int key, weftComm_t* newcomm) {
  return Guarded("weftCommSplit", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommSplit", comm));
    if (newcomm != nullptr) *newcomm = nullptr;
    WEFT_CHECK(comm->CheckUsable("weftCommSplit"));
    // Bad arguments are refused only after this rank has taken part in the split (as
    // NOCOLOR): the other ranks are already inside MPI_Comm_split, which has no deadline.
    const bool bad_color = color < 0 && color != WEFT_SPLIT_NOCOLOR;
    const bool join = color >= 0 && newcomm != nullptr;
    MPI_Comm part = MPI_COMM_NULL;
    int err = PMPI_Comm_split(comm->mpi, join ? color : MPI_UNDEFINED, key, &part);
    if (err != MPI_SUCCESS) return comm->FailMpi(err, "weftCommSplit: MPI_Comm_split");
    if (newcomm == nullptr) {
      return comm->Fail(weftInvalidArgument, "weftCommSplit: newcomm is NULL");
    }
    if (bad_color) {
      return comm->Fail(weftInvalidArgument,
                        "weftCommSplit: color %d is negative (use a color >= 0, or "
                        "WEFT_SPLIT_NOCOLOR to join no communicator)",
                        color);
    }
    if (part == MPI_COMM_NULL) return weftSuccess;
    // CreateComm works on its own duplicate, so the split's communicator is freed here.
    const weftResult_t r = weft::CreateComm(part, newcomm);
    PMPI_Comm_free(&part);
    return r;
  });
}

weftResult_t weftCommDup(weftComm_t comm, weftComm_t* newcomm) {
  return Guarded("weftCommDup", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommDup", comm));
    if (newcomm == nullptr) return comm->Fail(weftInvalidArgument, "weftCommDup: newcomm is NULL");
    *newcomm = nullptr;
    WEFT_CHECK(comm->CheckUsable("weftCommDup"));
    return weft::CreateComm(comm->mpi, newcomm);
  });
}

weftResult_t weftCommDestroy(weftComm_t comm) {
  return Guarded("weftCommDestroy", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommDestroy", comm));
    // Destruction is collective: requests freed before they completed finish here (their
    // failures, if any, were theirs to report).
    if (comm->in_flight_count.load() > 0) (void)weft::DrainExecutions(*comm);
    int requests = weft::LiveRequests(*comm);
    if (requests > 0) {
      return comm->Fail(weftInvalidUsage,
                        "weftCommDestroy: %d request(s) on this comm were not waited for or freed",
                        requests);
    }
    int plans = comm->live_plans.load();
    if (plans > 0) {
      return comm->Fail(weftInvalidUsage,
                        "weftCommDestroy: %d plan(s) still use this comm; free them first", plans);
    }
    return weft::DestroyComm(comm);
  });
}

weftResult_t weftCommAbort(weftComm_t comm) {
  return Guarded("weftCommAbort", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommAbort", comm));
    // Unlike weftCommDestroy, abort never refuses: what is in flight is dropped, requests and
    // plans are detached; calls waiting on it in other threads end first.
    weft::AbortComm(comm);
    return weftSuccess;
  });
}

weftResult_t weftCommGetAsyncError(weftComm_t comm, weftResult_t* async_error) {
  return Guarded("weftCommGetAsyncError", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommGetAsyncError", comm));
    if (async_error == nullptr) {
      return comm->Fail(weftInvalidArgument, "weftCommGetAsyncError: async_error is NULL");
    }
    *async_error = static_cast<weftResult_t>(comm->broken.load());
    return weftSuccess;
  });
}

weftResult_t weftMemAlloc(void** ptr, size_t size, weftComm_t comm) {
  return Guarded("weftMemAlloc", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftMemAlloc", comm));
    WEFT_CHECK(comm->CheckUsable("weftMemAlloc"));
    if (ptr == nullptr) return comm->Fail(weftInvalidArgument, "weftMemAlloc: ptr is NULL");
    *ptr = nullptr;
    return weft::MemAlloc(*comm, size, ptr);
  });
}

weftResult_t weftMemFree(void* ptr) {
  return Guarded("weftMemFree", [&]() -> weftResult_t {
    return ptr == nullptr ? weftSuccess : weft::MemFree(ptr);
  });
}

weftResult_t weftCommCount(const weftComm_t comm, int* count) {
  return Guarded("weftCommCount", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommCount", comm));
    if (count == nullptr) return comm->Fail(weftInvalidArgument, "weftCommCount: count is NULL");
    *count = comm->size;
    return weftSuccess;
  });
}

weftResult_t weftCommUserRank(const weftComm_t comm, int* rank) {
  return Guarded("weftCommUserRank", [&]() -> weftResult_t {
    WEFT_CHECK(weft::CheckComm("weftCommUserRank", comm));
    if (rank == nullptr) return comm->Fail(weftInvalidArgument, "weftCommUserRank: rank is NULL");
    *rank = comm->rank;
    return weftSuccess;
  });
}

}  // extern "C"
