// A communicator's device state: its backend and bound device, the staging pool, and the
// internal copy streams and events of the staging pipeline (made on the first staged call).
#pragma once

#include <memory>
#include <vector>

#include "device/backend.h"
#include "device/binding.h"
#include "device/ipc_mappings.h"
#include "device/staging_pool.h"

namespace weft::device {

/// Owned by one communicator; destroyed with it.
class CommDevice {
 public:
  CommDevice(Backend* backend, const Binding& binding, size_t staging_cap)
      : backend_(backend),
        binding_(binding),
        pool_(backend, staging_cap),
        device_memory_(backend->caps().device_memory) {}
  ~CommDevice();
  CommDevice(const CommDevice&) = delete;
  CommDevice& operator=(const CommDevice&) = delete;

  Backend& backend() { return *backend_; }
  /// The backend has devices at all (its caps, read once: every call asks).
  bool device_memory() const { return device_memory_; }
  const Binding& binding() const { return binding_; }
  StagingPool& pool() { return pool_; }
  /// The pipeline's streams (device->host and host->device) and `n` events, made once.
  [[nodiscard]] Status Pipeline(int n, Stream* d2h, Stream* h2d, Event** events);

  /// Large calls on device buffers go to the MPI library directly (mpi_direct.h), decided at
  /// creation, the same on every rank.
  bool mpi_direct = false;
  /// Calls that did so (weftCommStagingStats).
  uint64_t direct_calls = 0;
  /// Node peers' device allocations mapped for the IPC path (ipc_coll.h), and its calls.
  IpcMappings ipc_mappings;
  uint64_t ipc_calls = 0;
  /// The NCCL path's communicator (nccl/nccl_coll.h), made at its first call and freed by its
  /// deleter (libweft does not link NCCL); nccl_failed: making it failed, the path is off for
  /// this communicator.
  std::unique_ptr<void, void (*)(void*)> nccl_comm{nullptr, nullptr};
  bool nccl_failed = false;
  uint64_t nccl_calls = 0;

 private:
  Backend* backend_;
  Binding binding_;
  StagingPool pool_;
  Stream d2h_ = nullptr, h2d_ = nullptr;
  std::vector<Event> events_;
  bool device_memory_ = false;
};

}  // namespace weft::device
