#include "transport/schedule_transport.h"

#include <unistd.h>

#include "core/hot_path.h"
#include "core/params.h"
#include "core/spin_wait.h"
#include "sched/ir/program.h"
#include "transport/cma/cma.h"

namespace weft {
namespace {
// Looks at the counter before the first yield: about 4 us (a pause measured 25 ns here). With
// under a microsecond of spinning, MPICH runs of the 8-byte oneshot allreduce at 2 ranks split
// into 0.4 us and 0.95 us calls, the slow ones having yielded the core while the peer was a
// moment behind.
constexpr uint64_t kSpins = 160;

// A bank's stamp: its first 8 bytes (shm_segment.h).
std::atomic<uint64_t>& Stamp(unsigned char* bank) {
  return *reinterpret_cast<std::atomic<uint64_t>*>(bank);
}

// PeerPointer's cache entry before the lookup.
unsigned char* const kUnknown = reinterpret_cast<unsigned char*>(~uintptr_t{0});

}  // namespace

WEFT_HOT void ScheduleTransport::BeginExecution(const void* send, const void* recv,
                                                uint64_t bank_bytes) {
  bank_ = -1;
  entry_ = BankPlacer::Entry{};
  if (!shm_) return;
  if (mapped_peers_) peer_ptr_.assign(2 * shm_->nranks(), kUnknown);
  // Published whenever peers might read them: a program's own refs do not say (a bcast root
  // reads no peer, yet every other rank reads its buffer).
  if (comm_.single_copy || mapped_peers_) {
    // getpid is a system call: about 10% of an 8-byte oneshot allreduce when made per call
    // (perf of a scratch loop of weftAllReduce calls during the change).
    static const uint64_t pid = static_cast<uint64_t>(getpid());
    ShmSegment::PeerInfo& me = shm_->Info(shm_->rank());
    me.pid = pid;
    me.send = reinterpret_cast<uintptr_t>(send);
    me.recv = reinterpret_cast<uintptr_t>(recv);
  }
  for (int c = 0; c < ShmSegment::kCounters; ++c) {
    base_[c] = Own(c).load(std::memory_order_relaxed);
  }
  entry_ = shm_->banks().Place(bank_bytes, base_[0]);
  bank_ = entry_.bank;
}

unsigned char* ScheduleTransport::PeerPointer(int node_rank, int space) {
  if (!shm_ || !mapped_peers_ || node_rank < 0 || node_rank >= shm_->nranks()) return nullptr;
  const bool send = space == static_cast<int>(ir::Space::kPeerSend);
  unsigned char*& p = peer_ptr_[2 * node_rank + (send ? 0 : 1)];
  if (p == kUnknown) {
    const ShmSegment::PeerInfo& peer = shm_->Info(node_rank);
    p = comm_.MappedPeerAddress(node_rank, send ? peer.send : peer.recv);
  }
  return p;
}

WEFT_HOT unsigned char* ScheduleTransport::NodeSlot(int node_rank) {
  if (!shm_) return nullptr;
  return bank_ >= 0 ? shm_->Bank(node_rank, bank_) : shm_->Slot(node_rank);
}

WEFT_HOT uint64_t ScheduleTransport::NodeSlotStride() const {
  return shm_ ? shm_->SlotStride() : 0;
}

Status ScheduleTransport::PeerCopy(int node_rank, int space, uint64_t offset, void* local,
                                   uint64_t n, bool write, const char** why) {
  if (!SingleCopy() || node_rank < 0 || node_rank >= shm_->nranks()) {
    *why = "single copy is unavailable on this communicator (WEFT_CMA, or the probe failed)";
    return weftNotSupported;
  }
  const ShmSegment::PeerInfo& peer = shm_->Info(node_rank);
  const uint64_t base = space == static_cast<int>(ir::Space::kPeerSend) ? peer.send : peer.recv;
  auto* remote = reinterpret_cast<unsigned char*>(static_cast<uintptr_t>(base)) + offset;
  const auto pid = static_cast<pid_t>(peer.pid);
  Status s = write ? cma::Write(pid, remote, local, n, &peer_error_)
                   : cma::Read(pid, remote, local, n, &peer_error_);
  *why = peer_error_.c_str();
  return s;
}

WEFT_HOT Status ScheduleTransport::Signal(int counter) {
  if (!shm_ || counter < 0 || counter >= ShmSegment::kCounters) return weftNotSupported;
  // Only this rank writes its counters, so a plain release store does: a locked add would
  // stall until the line, which peers are spinning on, came back exclusive.
  std::atomic<uint64_t>& c = Own(counter);
  const uint64_t v = c.load(std::memory_order_relaxed) + 1;
  if (bank_ >= 0 && counter == 0 && v == base_[0] + 1) {
    // The stamp first: a peer watching it reads the data beside it in the same line. Only the
    // first signal: later ones would take the line back while peers read the data in it.
    Stamp(shm_->Bank(shm_->rank(), bank_)).store(v, std::memory_order_release);
  }
  c.store(v, std::memory_order_release);
  return weftSuccess;
}

WEFT_HOT std::atomic<uint64_t>& ScheduleTransport::Watched(int r, int c, uint64_t value) const {
  return bank_ >= 0 && c == 0 && value == 1 ? Stamp(shm_->Bank(r, bank_)) : shm_->Counter(r, c);
}

WEFT_HOT Status ScheduleTransport::WaitCounter(int peer, int counter, uint64_t value, bool blocking,
                                               bool* reached) {
  if (!shm_ || counter < 0 || counter >= ShmSegment::kCounters || peer >= shm_->nranks()) {
    return weftNotSupported;
  }
  // The entry wait asks what BankPlacer says (banked programs: that the peer finished the
  // execution that last wrote this bank), and nothing when the peer is known to be past it.
  BankPlacer& banks = shm_->banks();
  const bool entry = counter == 0 && value == 0;
  if (entry && (entry_.free || banks.Known(peer, entry_.need))) {
    *reached = true;
    return weftSuccess;
  }
  const bool stamp = bank_ >= 0 && counter == 0 && value == 1;
  const uint64_t target = entry ? entry_.want : base_[counter] + value;
  std::atomic<uint64_t>& c = Watched(peer, counter, value);
  uint64_t seen = 0;
  // Wrap-safe: the difference, read as signed, says which side of the target the counter is.
  auto done = [&] {
    seen = c.load(std::memory_order_acquire);
    return static_cast<int64_t>(seen - target) >= 0;
  };
  // Reached: what it says of the peer's progress spares later entry waits a read. A stamp of
  // this execution means the peer finished the previous one (its counter was at base then).
  auto reach = [&] {
    *reached = true;
    if (counter == 0) banks.Observe(peer, stamp ? base_[0] : seen);
    return weftSuccess;
  };
  if (done()) return reach();
  *reached = false;
  if (!blocking) return weftSuccess;
  const uint64_t spins = comm_.node_oversubscribed ? 0 : kSpins;
  // A long wait also looks out for a node peer that failed (and said so in the segment) or
  // whose process exited: then the wait ends at once, not at the deadline.
  int failed = -1;
  uint64_t failure = 0;
  bool exited = false;
  auto hopeless = [&] {
    return comm_.abort_requested.load(std::memory_order_relaxed) ||
           shm_->FindFailedPeer(&failed, &failure, &exited);
  };
  if (SpinThenYield(done, spins, GetParams().WEFT_TIMEOUT_S, hopeless)) return reach();
  if (comm_.abort_requested.load()) return comm_.AbortedWhileWaiting("a node peer's counter");
  // The peers' slots and counters are no longer trustworthy: the communicator is broken here,
  // and this rank's peers learn it through the segment.
  shm_->RaiseFailure(failed >= 0 ? weftRemoteError : weftTimeout);
  if (failed >= 0) {
    comm_.Break(weftRemoteError);
    if (exited) {
      return comm_.Fail(weftRemoteError,
                        "node rank %d's process exited while this rank waited for its counter %d "
                        "(a peer died)",
                        failed, counter);
    }
    return comm_.Fail(weftRemoteError,
                      "node rank %d failed (%s) while this rank waited for its counter %d", failed,
                      weftGetErrorString(static_cast<weftResult_t>(failure)), counter);
  }
  comm_.Break(weftTimeout);
  return comm_.Fail(weftTimeout,
                    "waited %lld s for node rank %d's counter %d to reach %llu (it holds "
                    "%llu): a peer died or left the collective (WEFT_TIMEOUT_S)",
                    static_cast<long long>(GetParams().WEFT_TIMEOUT_S), peer, counter,
                    static_cast<unsigned long long>(target),
                    static_cast<unsigned long long>(c.load()));
}

}  // namespace weft
