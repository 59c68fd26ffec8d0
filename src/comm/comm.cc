#include "comm/comm.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "comm/mem_window.h"
#include "comm/wisdom_load.h"
#include "core/build_info.h"
#include "core/hot_path.h"
#include "core/live_set.h"
#include "core/log.h"
#include "core/params.h"
#include "transport/cma/cma.h"
#include "transport/shm/placement_probe.h"
#include "transport/shm/shm_segment.h"

namespace weft {
namespace {

LiveSet<Comm> g_live;
thread_local std::string t_last_error;
// Slot size of a new communicator's segment: oneshot's largest default call (4 KiB) with room;
// the first larger program grows it.
constexpr uint64_t kInitialSlotBytes = 64u << 10;

std::string VFormat(const char* fmt, va_list ap) {
  char buf[1024];
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  return buf;
}

void LogVersionOnce() {
  static std::once_flag once;
  std::call_once(once, [] { WEFT_INFO(kInit, "%s", BuildInfoLine().c_str()); });
}

}  // namespace

void SetThreadLastError(const std::string& text) { t_last_error = text; }
const char* ThreadLastError() { return t_last_error.c_str(); }

Status FailNoComm(Status s, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string text = VFormat(fmt, ap);
  va_end(ap);
  SetThreadLastError(text);
  WEFT_WARN(kAll, "%s (%s)", text.c_str(), weftGetErrorString(s));
  return s;
}

WEFT_HOT bool IsLiveComm(const Comm* comm) { return g_live.Contains(comm); }

void ForEachLiveComm(void (*f)(Comm&)) {
  g_live.ForEach([f](Comm* c) { f(*c); });
}

Status CreateHostComm(MPI_Comm user, std::unique_ptr<Comm>* out) {
  out->reset();
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (!initialized || finalized) {
    return FailNoComm(weftInvalidUsage,
                      "weftCommInitMPI: MPI is not initialized (or already finalized)");
  }
  if (user == MPI_COMM_NULL) {
    return FailNoComm(weftInvalidArgument, "weftCommInitMPI: mpi_comm is MPI_COMM_NULL");
  }
  int inter = 0;
  if (PMPI_Comm_test_inter(user, &inter) != MPI_SUCCESS || inter) {
    return FailNoComm(weftInvalidArgument,
                      "weftCommInitMPI: inter-communicators are not supported");
  }
  auto comm = std::make_unique<Comm>();
  int err = PMPI_Comm_dup(user, &comm->mpi);
  if (err == MPI_SUCCESS) err = PMPI_Comm_set_errhandler(comm->mpi, MPI_ERRORS_RETURN);
  if (err != MPI_SUCCESS) {
    if (comm->mpi != MPI_COMM_NULL) PMPI_Comm_free(&comm->mpi);
    comm->FailMpi(err, "weftCommInitMPI: MPI_Comm_dup");
    SetThreadLastError(comm->LastError());
    return weftMpiError;
  }
  PMPI_Comm_rank(comm->mpi, &comm->rank);
  PMPI_Comm_size(comm->mpi, &comm->size);
  const Params& params = GetParams();
  const bool round_robin = params.WEFT_VIRTUAL_PLACEMENT == "rr";
  if (!round_robin && params.WEFT_VIRTUAL_PLACEMENT != "block") {
    WEFT_WARN(kTopo, "WEFT_VIRTUAL_PLACEMENT=%s is neither block nor rr; using block",
              params.WEFT_VIRTUAL_PLACEMENT.c_str());
  }
  Oversubscription load;
  err = DiscoverTopology(comm->mpi, static_cast<int>(params.WEFT_VIRTUAL_NODES), round_robin,
                         &comm->topo, &comm->node_comm, &load);
  if (err != MPI_SUCCESS) {
    comm->FailMpi(err, "weftCommInitMPI: topology discovery");
    SetThreadLastError(comm->LastError());
    PMPI_Comm_free(&comm->mpi);
    return weftMpiError;
  }
  if (comm->topo.num_nodes() > 1) comm->node_map = std::make_shared<const Topology>(comm->topo);
  comm->node_oversubscribed = load.node;
  bool nodes_allow_cma = false;
  {
    // The cost model's network tier picks recipes, so it must be one value on every rank
    // even where the environment differs: the smallest rate and latency over the ranks.
    // WEFT_RECIPE and WEFT_TUNE choose recipes too, and so does the wisdom section: a 62-bit
    // hash of each, and its negation, reduced by MIN give the smallest and the largest; they
    // agree when equal.
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    SetLogRank(world_rank);  // before the wisdom's WARNs
    std::shared_ptr<const weft::tune::WisdomSection> wisdom =
        LoadWisdomFor(MachineKey(comm->topo, comm->size), comm->rank == 0);
    auto hash62 = [](const std::string& s) {
      return std::hash<std::string>{}(s) & ((1ull << 62) - 1);
    };
    const uint64_t h =
        hash62(params.WEFT_RECIPE + '\n' + params.WEFT_TUNE + '\n' + params.WEFT_ALLTOALLV + '\n' +
               std::to_string(params.WEFT_ALLTOALLV_DIRECT_BYTES) + '\n' +
               std::to_string(params.WEFT_VCOLL_MAILBOX_BYTES) + '\n' + params.WEFT_NATIVE_WAIT);
    const uint64_t hw = wisdom ? hash62(weft::tune::SectionText(*wisdom)) : 0;
    const int lo = static_cast<int>(h & 0x7fffffff), hi = static_cast<int>(h >> 31);
    const int wlo = static_cast<int>(hw & 0x7fffffff), whi = static_cast<int>(hw >> 31);
    // The last entries: whether every rank allows shared memory (WEFT_SHM), which decides
    // whether hierarchical recipes may run their node level over the node's segment, and
    // single copy (WEFT_CMA), a cma node level.
    int net[12] = {static_cast<int>(std::clamp<int64_t>(params.WEFT_NET_GBITS, 1, 1 << 20)),
                   static_cast<int>(std::clamp<int64_t>(params.WEFT_NET_LATENCY_US, 0, 1 << 20)),
                   lo,
                   hi,
                   -lo,
                   -hi,
                   wlo,
                   whi,
                   -wlo,
                   -whi,
                   params.WEFT_SHM != 0 ? 1 : 0,
                   params.WEFT_CMA != 0 ? 1 : 0};
    err = PMPI_Allreduce(MPI_IN_PLACE, net, 12, MPI_INT, MPI_MIN, comm->mpi);
    if (err != MPI_SUCCESS) {
      comm->FailMpi(err, "weftCommInitMPI: agreeing on WEFT_NET_GBITS");
      SetThreadLastError(comm->LastError());
      if (comm->node_comm != MPI_COMM_NULL) PMPI_Comm_free(&comm->node_comm);
      PMPI_Comm_free(&comm->mpi);
      return weftMpiError;
    }
    comm->net_gbits = net[0];
    comm->net_latency_us = net[1];
    comm->selection_knobs_agreed = net[2] == -net[4] && net[3] == -net[5];
    // Across nodes the segments are made at the first execution that needs one (by every rank
    // of the node, which all run it), not here: a communicator that never runs a node level
    // over shared memory makes none. A node whose segment cannot be made builds its node level
    // point-to-point (TryBuildCompiled, CompiledColl::RebuildWithoutSegment), with the network
    // messages the other nodes expect, so the ranks need not agree on it beforehand.
    comm->nodes_share_memory = comm->topo.num_nodes() > 1 && net[10] != 0;
    nodes_allow_cma = comm->nodes_share_memory && net[11] != 0;
    // MPI does not match a blocking collective with a nonblocking one: only where every rank
    // polls.
    comm->native_waits_poll = comm->selection_knobs_agreed && params.WEFT_NATIVE_WAIT == "poll";
    if (params.WEFT_NATIVE_WAIT != "poll" && params.WEFT_NATIVE_WAIT != "block" &&
        comm->rank == 0) {
      WEFT_WARN(kEnv, "WEFT_NATIVE_WAIT=%s is neither block nor poll; using block",
                params.WEFT_NATIVE_WAIT.c_str());
    }
    if (!comm->selection_knobs_agreed && comm->rank == 0) {
      WEFT_WARN(kColl,
                "WEFT_RECIPE or WEFT_TUNE differ between ranks: both ignored on this "
                "communicator (every rank must choose the same recipes; WEFT_ALLTOALLV* and "
                "WEFT_NATIVE_WAIT too)");
    }
    if (net[6] == -net[8] && net[7] == -net[9]) {
      comm->wisdom = std::move(wisdom);
    } else if (comm->rank == 0) {
      WEFT_WARN(kInit,
                "ranks hold different wisdom for this communicator (WEFT_WISDOM or the file "
                "differs): none is used, recipes are chosen by the cost model");
    }
  }
  LogVersionOnce();
  WEFT_INFO(kInit, "comm %p: rank %d of %d, %d node(s), %d rank(s) on this node", (void*)comm.get(),
            comm->rank, comm->size, comm->topo.num_nodes(),
            static_cast<int>(comm->topo.ranks_of_node[comm->topo.node_of_rank[comm->rank]].size()));
  if (!params.WEFT_TOPO_DUMP_FILE.empty() && comm->rank == 0) {
    std::string path = ExpandPathPattern(params.WEFT_TOPO_DUMP_FILE);
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr || std::fputs(comm->topo.ToText().c_str(), f) < 0) {
      WEFT_WARN(kTopo, "cannot write the topology to %s", path.c_str());
    }
    if (f != nullptr) std::fclose(f);
  }
  // On one node the segment is made here, where every rank is: whether shared memory works is
  // then known before any program is built (and grows later at executions, which all ranks
  // share). Across nodes it is made lazily (above).
  if (comm->topo.num_nodes() == 1 && params.WEFT_SHM != 0 && comm->size > 1) {
    std::shared_ptr<ShmSegment> seg;
    comm->NodeSegment(0, &seg);
    // Known (and logged at INFO) before the first call, whatever WEFT_SHM_STREAM says; with
    // auto, large executions reprobe.
    if (seg && !comm->node_oversubscribed) {
      comm->ProbeNodePlacement(*seg);  // a failure is recorded and the communicator broken
    }
    if (params.WEFT_CMA != 0 && comm->has_node_segment()) {
      std::string why;
      comm->single_copy = cma::Probe(comm->node_comm, &why);
      if (!comm->single_copy) {
        WEFT_INFO(kInit, "single copy (CMA) is not permitted here (%s): shared-memory slots only",
                  why.empty() ? "a node peer's probe failed" : why.c_str());
      }
    }
  }
  // Across nodes: a cma node level (sched::GenEnv::node_single_copy) and pipelining across
  // levels change every rank's messages, so they are decided from what every rank agrees on:
  // the probe passed on every node (WEFT_CMA and WEFT_SHM agreed above), and no machine runs
  // more ranks than it has CPUs for (virtual nodes share their machine's cores).
  comm->some_machine_oversubscribed = load.machine;
  if (comm->topo.num_nodes() > 1) {
    std::string why;
    const bool probed = nodes_allow_cma && cma::Probe(comm->node_comm, &why);
    int agree[2] = {probed ? 1 : 0, load.machine ? 0 : 1};
    if (PMPI_Allreduce(MPI_IN_PLACE, agree, 2, MPI_INT, MPI_MIN, comm->mpi) != MPI_SUCCESS) {
      agree[0] = agree[1] = 0;  // unknown: neither
    }
    comm->single_copy = agree[0] == 1;
    comm->some_machine_oversubscribed = agree[1] == 0;
    if (nodes_allow_cma && !comm->single_copy && comm->rank == 0) {
      WEFT_INFO(kInit, "single copy (CMA) is not permitted on every node (%s): no cma node level",
                why.empty() ? "a peer's probe failed" : why.c_str());
    }
  }
  *out = std::move(comm);
  return weftSuccess;
}

void FreeHostComm(Comm* comm) {
  if (comm->node_comm != MPI_COMM_NULL) PMPI_Comm_free(&comm->node_comm);
  if (comm->mpi != MPI_COMM_NULL) PMPI_Comm_free(&comm->mpi);
  delete comm;
}

void MarkCommLive(Comm* comm, bool live) {
  if (live) {
    g_live.Add(comm);
  } else {
    g_live.Remove(comm);
  }
}

}  // namespace weft

weftComm::weftComm() = default;

weftComm::~weftComm() = default;

weft::Status weftComm::Fail(weft::Status s, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string text = weft::VFormat(fmt, ap);
  va_end(ap);
  {
    std::lock_guard<std::mutex> lk(err_mu_);
    last_error_ = text;
  }
  weft::SetThreadLastError(text);
  WEFT_WARN(kColl, "%s (%s)", text.c_str(), weftGetErrorString(s));
  return s;
}

unsigned char* weftComm::MappedPeerAddress(int node_rank, uint64_t remote) const {
  return weft::PeerWindowAddress(*this, node_rank, remote);
}

weft::Status weftComm::FailMpi(int mpi_err, const char* what) {
  char msg[MPI_MAX_ERROR_STRING + 1] = {0};
  int len = 0;
  if (PMPI_Error_string(mpi_err, msg, &len) != MPI_SUCCESS)
    std::snprintf(msg, sizeof(msg), "unknown");
  return Fail(weftMpiError, "%s failed: MPI error %d: %s", what, mpi_err, msg);
}

WEFT_HOT unsigned char* weftComm::ScheduleScratch(size_t bytes) {
  if (bytes > sched_scratch_size_) {
    sched_scratch_.reset(new unsigned char[bytes]);
    sched_scratch_size_ = bytes;
  }
  return sched_scratch_.get();
}

std::unique_ptr<unsigned char[]> weftComm::TakeExecScratch(size_t bytes, size_t* got) {
  {
    std::lock_guard<std::mutex> lk(exec_scratch_mu_);
    size_t best = exec_scratch_.size();
    for (size_t i = 0; i < exec_scratch_.size(); ++i) {  // the smallest that fits
      if (exec_scratch_[i].bytes >= bytes &&
          (best == exec_scratch_.size() || exec_scratch_[i].bytes < exec_scratch_[best].bytes)) {
        best = i;
      }
    }
    if (best < exec_scratch_.size()) {
      ScratchBlock b = std::move(exec_scratch_[best]);
      exec_scratch_.erase(exec_scratch_.begin() + static_cast<long>(best));
      *got = b.bytes;
      return std::move(b.data);
    }
  }
  *got = bytes;
  return std::unique_ptr<unsigned char[]>(new unsigned char[bytes]);
}

void weftComm::ReturnExecScratch(std::unique_ptr<unsigned char[]> block, size_t bytes) {
  if (block == nullptr) return;
  std::lock_guard<std::mutex> lk(exec_scratch_mu_);
  exec_scratch_.push_back(ScratchBlock{std::move(block), bytes});
  if (exec_scratch_.size() > kExecScratchBlocks) {  // drop the smallest
    auto smallest = std::min_element(
        exec_scratch_.begin(), exec_scratch_.end(),
        [](const ScratchBlock& a, const ScratchBlock& b) { return a.bytes < b.bytes; });
    exec_scratch_.erase(smallest);
  }
}

bool weftComm::NodeSegment(uint64_t slot_bytes, std::shared_ptr<weft::ShmSegment>* out) {
  if (shm_failed_) return false;
  if (!shm_ || shm_->slot_bytes() < slot_bytes) {
    std::string why;
    std::shared_ptr<weft::ShmSegment> seg;
    // A first segment has room for oneshot's default calls, so small programs do not each grow
    // it (across nodes the first is made by the first program that needs one).
    const uint64_t bytes = shm_ ? slot_bytes : std::max(slot_bytes, weft::kInitialSlotBytes);
    if (weft::ShmSegment::Create(node_comm, bytes, &seg, &why) != weftSuccess) {
      shm_failed_ = true;
      if (shm_ || topo.num_nodes() > 1) {
        // Making (across nodes) or growing failed, on every rank of the node (Create agrees):
        // the program of this call is built again without the segment
        // (CompiledColl::RebuildWithoutSegment), as a plan's is at its next start, and the
        // cached programs built for shared memory go, so that later blocking calls are built
        // anew for point-to-point schedules.
        WEFT_WARN(kColl,
                  "cannot %s the shared-memory segment with %llu-byte slots (%s): this call and "
                  "later ones run point-to-point schedules",
                  shm_ ? "grow" : "make", static_cast<unsigned long long>(bytes), why.c_str());
        programs_stale.store(true, std::memory_order_release);
      } else {
        WEFT_INFO(kColl, "no shared-memory segment (%s): point-to-point schedules only",
                  why.c_str());
      }
      return false;
    }
    shm_ = std::move(seg);
  }
  *out = shm_;
  return true;
}

void weftComm::Break(weft::Status s) {
  int expected = weftSuccess;
  broken.compare_exchange_strong(expected, s);
  if (shm_) shm_->RaiseFailure(static_cast<uint64_t>(s));
}

WEFT_HOT weft::Status weftComm::CheckUsable(const char* fn) {
  const int b = broken.load(std::memory_order_relaxed);
  if (b == weftSuccess) return weftSuccess;
  return Fail(weftRemoteError,
              "%s: the communicator is broken (an earlier call ended with %s: a peer died, left "
              "or failed mid-collective); free it with weftCommAbort",
              fn, weftGetErrorString(static_cast<weftResult_t>(b)));
}

std::string weftComm::LastError() const {
  std::lock_guard<std::mutex> lk(err_mu_);
  return last_error_;
}

weft::Status weftComm::ProbeNodePlacement(weft::ShmSegment& seg) {
  using namespace weft;
  const bool first = !placement_probed_;
  placement_probed_ = true;
  PlacementProbe probe;
  const char* why = nullptr;
  if (ProbePlacement(seg, GetParams().WEFT_TIMEOUT_S, &probe, &why) != weftSuccess) {
    Break(weftTimeout);
    return Fail(weftTimeout, "placement probe: %s (WEFT_TIMEOUT_S)", why);
  }
  if (probe.stream != probe_streams || first) {
    const char* verdict =
        probe.stream ? "slots written with streaming stores" : "slots written with plain stores";
    if (seg.rank() == 0) {
      WEFT_INFO(kColl,
                "placement probe: slowest cache-line round trip %.0f ns; a %llu KiB handover "
                "took %.1f us with plain stores, %.1f us streamed: %s",
                probe.max_rtt_ns,
                static_cast<unsigned long long>(ShmSegment::kProbeBlockBytes >> 10),
                probe.plain_ns / 1e3, probe.stream_ns / 1e3, verdict);
    } else {
      WEFT_INFO(kColl, "placement probe (node rank 0's verdict): %s", verdict);
    }
  }
  probe_streams = probe.stream;
  return weftSuccess;
}

int weftComm::SlotStoreMode() {
  static const int mode = [] {  // parsed once
    const std::string m = weft::GetParams().WEFT_SHM_STREAM;
    return m == "auto" ? -1 : m == "1" ? 1 : 0;
  }();
  return mode;
}
