// weft's communicator: its own duplicate of the user's MPI communicator (with
// MPI_ERRORS_RETURN), the node topology, and the text of the last failure.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/hot_path.h"
#include "core/status.h"
#include "sched/recipe.h"
#include "topo/discover_topology.h"
#include "transport/comm_link.h"
#include "tune/wisdom.h"

namespace weft {
class ProgramCache;
class ShmSegment;
class CompiledColl;
struct Execution;  // coll/progress.h
struct VCounts;    // call/coll_args.h
namespace device {
class CommDevice;
}
}  // namespace weft

struct weftPlan;     // plan/plan.h
struct weftRequest;  // plan/request.h

/// The object behind weftComm_t.
namespace weft {
/// Owned by the communicator but defined in a layer above comm/: whoever creates it supplies
/// the deleter, so comm/ needs no definition of it (layers point one way).
template <typename T>
using LayerOwned = std::unique_ptr<T, void (*)(T*)>;
}  // namespace weft

/// (mpi, rank, single_copy and node_oversubscribed come from weft::CommLink, what transports
/// see of it.)
struct weftComm final : public weft::CommLink {
  MPI_Comm node_comm = MPI_COMM_NULL;  // ranks of this (virtual) node
  int size = 0;
  weft::Topology topo;
  /// topo, shared with the compiled schedules' specs when the ranks span nodes; else null.
  std::shared_ptr<const weft::Topology> node_map;
  std::atomic<int> live_plans{0};
  /// Calls inside the C API that may wait on this communicator (capi/comm_setup.h CommCall):
  /// weftCommAbort from another thread leaves the freeing to the last of them.
  std::atomic<int> calls_inside{0};
  /// The aborted communicator's teardown has begun (it happens once, on whichever thread
  /// leaves last).
  std::atomic<bool> torn_down{false};
  /// The live plans made on this communicator, so that weftCommAbort can detach them (their
  /// later weftPlanFree must not touch the freed communicator).
  std::mutex plans_mu;
  std::set<weftPlan*> plans;
  /// Its requests not yet freed, and those freed before they completed (plans_mu).
  std::set<weftRequest*> requests;
  /// Nonblocking executions (requests and plan starts) not yet completed, in the order they
  /// were started, which is the same on every rank: a wait completes the oldest first
  /// (coll/progress.h). progress_mu serializes starts and progress on this communicator.
  std::mutex progress_mu;
  std::deque<weft::Execution*> in_flight;
  /// in_flight's size, read without the lock by blocking collectives (which first complete
  /// what is in flight) so that a program without nonblocking calls pays one load.
  std::atomic<int> in_flight_count{0};
  /// weftSuccess, or the failure that made the communicator unusable (a node peer timed out:
  /// its slots and counters can no longer be trusted). See weftCommGetAsyncError.
  std::atomic<int> broken{0};
  /// The network tier the cost model uses across nodes (WEFT_NET_GBITS, WEFT_NET_LATENCY_US),
  /// agreed at creation so that every rank ranks recipes alike.
  /// Every rank has the same WEFT_RECIPE and WEFT_TUNE (checked at creation); else both are
  /// ignored on this communicator.
  bool selection_knobs_agreed = true;
  /// WEFT_NATIVE_WAIT=poll on every rank: blocking calls run their native MPI steps as
  /// nonblocking routines polled with weft's deadline (NativeProgram::Run).
  bool native_waits_poll = false;
  /// Whether alltoallv runs node-aware here (coll/node_alltoallv_coll.h decides once, from
  /// what every rank knows alike): -1 not decided yet, 0 no, 1 yes.
  int alltoallv_node_aware = -1;
  /// The count arrays of this communicator's last v-collective (call/vcoll_args.h): a call
  /// passing equal arrays shares them, so the program cache compares one pointer.
  std::shared_ptr<const weft::VCounts> last_vcounts;
  /// The wisdom section every rank holds for this communicator's shape (comm/wisdom_load.h),
  /// or null: calibrated model parameters and measured recipe winners.
  std::shared_ptr<const weft::tune::WisdomSection> wisdom;
  /// Set by tools (weft-tune) identically on every rank: the recipe every compiled collective
  /// it applies to uses, before WEFT_RECIPE, WEFT_TUNE and wisdom. Changing it clears `cache`.
  std::shared_ptr<const weft::sched::Recipe> tool_recipe;
  /// The ranks span nodes and every rank allows shared memory (WEFT_SHM, agreed at creation):
  /// hierarchical recipes may run their node level over each node's segment
  /// (sched::GenEnv::node_shared_memory), which the first execution that needs it makes. A node
  /// whose segment cannot be made or grown builds its node level point-to-point instead, which
  /// sends the same network messages (TryBuildCompiled, coll/compiled_coll.cc).
  bool nodes_share_memory = false;
  /// On some machine the communicator's ranks outnumber the CPUs they may run on (virtual
  /// nodes share their machine's), agreed by every rank at creation: selection offers no
  /// pipelining across levels then (sched::GenEnv::oversubscribed).
  bool some_machine_oversubscribed = false;
  int net_gbits = 100;
  int net_latency_us = 2;
  /// weftMemAlloc has made node-shared memory on this communicator (collectively, so every
  /// rank agrees): large calls agree whether their buffers are all in it (zero copy).
  bool mem_shared = false;
  /// The last placement probe found that node ranks hand slots over faster with streaming
  /// stores (ranks that do not share a cache; placement_probe.h).
  bool probe_streams = false;
  /// Executions of 1 MiB or more on shared memory so far: every 64th per node peer probes
  /// placement.
  uint64_t large_shm_execs = 0;
  /// Executions of compiled collectives started so far (their message slots; see
  /// transport/mpi/mpi_transport.h).
  std::atomic<uint32_t> schedule_starts{0};
  /// The compiled execution that last took each of the MPI transport's 64 tag slots
  /// (kScheduleSlots): a start finishes the one before it in its slot first.
  std::array<weft::CompiledColl*, 64> tag_slot_users{};
  /// Built executables by call shape (coll/program_cache.h); freed before the comm is.
  weft::LayerOwned<weft::ProgramCache> cache{nullptr, nullptr};
  /// Device backend, bound device and staging pool (never null on a live communicator).
  weft::LayerOwned<weft::device::CommDevice> device{nullptr, nullptr};
  /// A shared-memory segment failed to grow: the cached executables built for shared memory
  /// are dropped by the next call that looks one up (coll/program_cache.h), so that later
  /// calls are built anew for point-to-point schedules.
  std::atomic<bool> programs_stale{false};

  weftComm();
  ~weftComm() override;

  /// Records a failure's text (for weftGetLastError), logs it at WARN, returns s.
  weft::Status Fail(weft::Status s, const char* fmt, ...) override WEFT_COLD
      __attribute__((format(printf, 3, 4)));
  /// Records an MPI failure of `what` with MPI's own error string; returns weftMpiError.
  weft::Status FailMpi(int mpi_err, const char* what) override;
  /// Marks the communicator broken with s (every later call fails fast; the first failure is
  /// kept) and raises this rank's failure word in the node segment, so that node peers waiting
  /// on this rank end with weftRemoteError at once instead of at the deadline.
  void Break(weft::Status s) override WEFT_COLD;
  /// weftRemoteError with the reason when the communicator is broken; weftSuccess otherwise.
  weft::Status CheckUsable(const char* fn);
  /// The last failure's text.
  std::string LastError() const;
  /// Scratch memory for blocking compiled collectives (one runs at a time per communicator),
  /// grown to the largest need seen and kept until the communicator is destroyed.
  unsigned char* ScheduleScratch(size_t bytes);
  /// Scratch for one nonblocking execution (a request or a plan start), at least bytes long,
  /// from the blocks earlier executions returned (else new): executions in flight together
  /// each hold their own, and a block is reused across call shapes as the arena is.
  std::unique_ptr<unsigned char[]> TakeExecScratch(size_t bytes, size_t* got);
  /// Gives a block back when its execution completes; kExecScratchBlocks are kept (the
  /// largest), the rest freed.
  void ReturnExecScratch(std::unique_ptr<unsigned char[]> block, size_t bytes);
  static constexpr size_t kExecScratchBlocks = 4;
  /// Collective over node_comm: the node segment with slots of at least slot_bytes, made anew
  /// when the current one is smaller. Called when an execution starts, never when a program is
  /// built: every rank executes the same collectives in the same order, but a program cache
  /// hit on one rank may be a build on another. Returns false if shared memory is unavailable
  /// (reason logged once).
  bool NodeSegment(uint64_t slot_bytes, std::shared_ptr<weft::ShmSegment>* out) WEFT_COLD;
  /// Node rank 0 times a round trip and plain and streamed handovers with every node peer
  /// through seg (collective over the node's ranks) and probe_streams takes the verdict
  /// (placement_probe.h); logged at INFO when it changes. weftTimeout (the communicator broken)
  /// when a peer does not answer.
  weft::Status ProbeNodePlacement(weft::ShmSegment& seg) WEFT_COLD;
  /// Shared slots are written with non-temporal stores: WEFT_SHM_STREAM=1, or auto and the
  /// probe found streaming faster. Schedule selection and the program cache key on it (CollArgs).
  bool SlotsStreamed() const {
    return slot_store_mode_ < 0 ? probe_streams : slot_store_mode_ == 1;
  }
  /// WEFT_SHM_STREAM as read when this communicator was made: -1 auto (the placement probe
  /// decides), 0 never, 1 always.
  int slot_store_mode() const { return slot_store_mode_; }
  /// This rank's node has a segment (on one node made when the communicator was created,
  /// WEFT_SHM=1; across nodes at the first execution that needs it) and none failed since.
  bool has_node_segment() const { return shm_ != nullptr && !shm_failed_; }
  /// Making or growing this node's segment failed: its programs run without it from then on.
  bool node_segment_failed() const { return shm_failed_; }
  /// Every rank is on one node and the node has its segment: the shared-memory schedules may
  /// be chosen for the whole call.
  bool one_node_segment() const { return topo.num_nodes() == 1 && has_node_segment(); }
  /// The current node segment, or null (no reference taken: for comparing with one held).
  unsigned char* MappedPeerAddress(int node_rank, uint64_t remote) const override;
  const weft::ShmSegment* current_segment() const override {
    return shm_failed_ ? nullptr : shm_.get();
  }
  /// The compiled collective that last used the node segment: another must let it finish
  /// before touching the slots (plans may be started together).
  weft::CompiledColl* shm_user = nullptr;

 private:
  std::unique_ptr<unsigned char[]> sched_scratch_;
  struct ScratchBlock {
    std::unique_ptr<unsigned char[]> data;
    size_t bytes = 0;
  };
  std::mutex exec_scratch_mu_;
  std::vector<ScratchBlock> exec_scratch_;  // idle blocks for nonblocking executions
  std::shared_ptr<weft::ShmSegment> shm_;
  bool placement_probed_ = false;
  bool shm_failed_ = false;
  static int SlotStoreMode();              // WEFT_SHM_STREAM, parsed once per process
  int slot_store_mode_ = SlotStoreMode();  // read once: SlotsStreamed is asked every call
  size_t sched_scratch_size_ = 0;
  mutable std::mutex err_mu_;
  std::string last_error_;
};

namespace weft {

using Comm = weftComm;

/// Collective over user: the host part of a new communicator (its own duplicate of user,
/// topology, network tier, node segment, single copy). The layers above add theirs
/// (capi/comm_setup.h) and then MarkCommLive. On failure *out is null, nothing is left, and
/// the text is in the thread's last error.
Status CreateHostComm(MPI_Comm user, std::unique_ptr<Comm>* out);
/// Frees what CreateHostComm made (the layers above have freed theirs) and the object.
void FreeHostComm(Comm* comm);
/// Registers comm as live (IsLiveComm), or no longer.
void MarkCommLive(Comm* comm, bool live);
/// True while comm is a communicator created and not yet destroyed.
bool IsLiveComm(const Comm* comm);
/// Calls f(comm) for every live communicator, with the set of them locked (no communicator is
/// made or destroyed meanwhile; f must not check a handle with IsLiveComm).
void ForEachLiveComm(void (*f)(Comm&));

/// Records a failure not tied to a live communicator (this thread's last error).
Status FailNoComm(Status s, const char* fmt, ...) WEFT_COLD __attribute__((format(printf, 2, 3)));
/// This thread's last failure text.
const char* ThreadLastError();
/// Sets this thread's last error text (also mirrored by Comm::Fail).
void SetThreadLastError(const std::string& text);

}  // namespace weft
