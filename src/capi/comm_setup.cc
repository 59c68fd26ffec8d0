#include "capi/comm_setup.h"

#include <algorithm>
#include <memory>
#include <string>

#include "coll/program_cache.h"
#include "coll/progress.h"
#include "comm/mem_window.h"
#include "core/fault.h"
#include "core/params.h"
#include "device/backend.h"
#include "device/binding.h"
#include "device/comm_device.h"
#include "device/mpi_direct.h"
#include "plan/plan.h"
#include "plan/request.h"

namespace weft {
namespace {

// Whether every rank of comm reports ok. Collective: each rank calls it whatever its own
// outcome, so that a step that failed on one rank fails on all instead of leaving the others
// waiting in the next collective step. False too if the agreement itself fails.
bool AllRanksOk(MPI_Comm comm, bool ok) {
  int all = ok ? 1 : 0;
  return PMPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all == 1;
}

template <typename T>
LayerOwned<T> Own(T* p) {
  return LayerOwned<T>(p, [](T* x) { delete x; });
}

}  // namespace

Status CreateComm(MPI_Comm user, Comm** out) {
  *out = nullptr;
  std::unique_ptr<Comm> comm;
  WEFT_CHECK(CreateHostComm(user, &comm));
  const Params& params = GetParams();
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  device::Backend* backend = nullptr;
  device::Binding binding;
  bool mpi_direct = false;
  // Each device step may fail on one rank alone (no backend, a bad WEFT_DEVICES entry): the
  // ranks agree after each before the next collective step, and all fail together.
  Status ds = FaultAt("device_setup", world_rank)
                  ? FailNoComm(weftSystemError, "injected fault (WEFT_FAULT=device_setup)")
                  : device::GetBackend(&backend);
  bool agreed = AllRanksOk(comm->mpi, ds == weftSuccess);
  if (agreed) {
    ds = device::BindDevice(comm->mpi, backend, &binding);
    agreed = AllRanksOk(comm->mpi, ds == weftSuccess);
  }
  if (agreed) {
    ds = device::DecideMpiDirect(comm->mpi, *backend, &mpi_direct);
    agreed = ds == weftSuccess;  // an agreement itself: the same outcome on every rank
  }
  if (!agreed) {
    std::string why = ds == weftSuccess ? "another rank's device setup failed" : ThreadLastError();
    FreeHostComm(comm.release());
    return FailNoComm(ds == weftSuccess ? weftRemoteError : ds, "weftCommInitMPI: device setup: %s",
                      why.c_str());
  }
  comm->device = Own(new device::CommDevice(
      backend, binding, static_cast<size_t>(std::max<int64_t>(0, params.WEFT_STAGING_CACHE_MAX))));
  comm->device->mpi_direct = mpi_direct;
  comm->cache = Own(
      new ProgramCache(static_cast<size_t>(std::max<int64_t>(0, params.WEFT_PROGRAM_CACHE_SIZE))));
  MarkCommLive(comm.get(), true);
  *out = comm.release();
  return weftSuccess;
}

namespace {

// Drops what is in flight, detaches requests and plans (they report the abort), frees comm.
void TearDownAborted(Comm* comm) {
  if (comm->torn_down.exchange(true)) return;
  AbandonExecutions(*comm);
  DetachRequests(*comm);
  DetachPlans(*comm);
  DestroyComm(comm);
}

}  // namespace

CommCall::CommCall(Comm* comm) : comm_(comm) {
  if (comm_ != nullptr) comm_->calls_inside.fetch_add(1);
}

CommCall::~CommCall() {
  // The last call out of an aborted communicator frees it. Both this decrement and abort's
  // store are sequentially consistent: whichever comes second sees the other.
  if (comm_ != nullptr && comm_->calls_inside.fetch_sub(1) == 1 && comm_->abort_requested.load()) {
    TearDownAborted(comm_);
  }
}

void AbortComm(Comm* comm) {
  CommCall self(comm);  // holds comm while it is marked; its end tears down if no call is inside
  comm->abort_requested.store(true);
  comm->Break(weftInvalidUsage);
}

Status DestroyComm(Comm* comm) {
  MarkCommLive(comm, false);
  DetachWindows(*comm);  // weftMemAlloc memory stays valid until weftMemFree
  comm->cache.reset();   // cached executables own MPI datatypes: free them before the comm
  comm->device.reset();  // drains the staging streams, frees the staging pool
  FreeHostComm(comm);
  return weftSuccess;
}

}  // namespace weft
