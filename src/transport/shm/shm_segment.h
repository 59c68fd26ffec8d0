// One node's shared segment: a slot per node rank (the ir's shm(r) space) and per-rank node
// counters (signal / wait), each counter on its own cache line. Node rank 0 creates it with
// shm_open, every rank maps it, and the name is unlinked as soon as all have mapped it, so a
// rank that dies leaks nothing in /dev/shm. Counters are monotonic and never reset; a program
// waits for values relative to this rank's own counter at the start of the execution (every
// shm program signals each counter equally often on every rank, so once all have finished an
// execution their counters agree). The rule that lets programs of any kind follow each other:
// a program's first step waits until every peer's counter 0 has reached this rank's own (the
// peers finished reading the slots last time), and its last signal on counter 0 comes after
// its last read of a peer's slot. Banked programs (the latency path) relax that first wait: in a
// run of them each takes the next of kBanks latency banks, so they only need the peers to have
// finished the execution that last wrote it (bank_placer.h).
// Made when the communicator is created (small) and replaced by a larger one when an execution
// needs larger slots; old ones live on while an execution still holds them.
#pragma once

#include <mpi.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "transport/shm/bank_placer.h"

namespace weft {

/// A mapped node segment.
class ShmSegment {
 public:
  static constexpr int kCounters = 4;
  /// Cache lines per rank: counters, PeerInfo, and the placement probe's ping and echo.
  static constexpr int kLines = kCounters + 3;

  ~ShmSegment();
  /// Collective over node_comm: creates and maps a segment with slots of at least slot_bytes.
  /// On failure returns weftSystemError with the reason in *why (the caller falls back).
  static Status Create(MPI_Comm node_comm, uint64_t slot_bytes, std::shared_ptr<ShmSegment>* out,
                       std::string* why);

  /// The latency area in front of each slot: the banks of banked programs (bank_placer.h).
  static constexpr uint64_t kLatencyBytes = BankPlacer::kBanks * BankPlacer::kBankBytes;

  uint64_t slot_bytes() const { return slot_bytes_; }
  int nranks() const { return nranks_; }
  int rank() const { return rank_; }
  unsigned char* Slot(int node_rank) const { return Bank(node_rank, 0) + kLatencyBytes; }
  /// Bank b (0..kBanks-1) of node rank r's latency area. Its first 8 bytes are the stamp: a banked
  /// program's first signal on counter 0 also stores the counter there, and waits for that
  /// value read the stamp, so data and signal arrive in one cache line (ir refs start at byte
  /// 8). Later signals leave the stamp alone: peers are reading that line then.
  /// Bytes from one rank's banks and slot to the next rank's.
  uint64_t SlotStride() const { return kLatencyBytes + slot_bytes_; }
  unsigned char* Bank(int node_rank, int b) const {
    return slots_ + node_rank * SlotStride() + b * BankPlacer::kBankBytes;
  }
  std::atomic<uint64_t>& Counter(int node_rank, int c) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(counters_ + (node_rank * kLines + c) * 64);
  }
  /// What a rank publishes at the start of each execution for single copy: its process id and
  /// user buffers (written before its first signal, read by peers after their wait on it).
  struct PeerInfo {
    uint64_t pid, send, recv;
  };
  PeerInfo& Info(int node_rank) const {
    return *reinterpret_cast<PeerInfo*>(counters_ + (node_rank * kLines + kCounters) * 64);
  }
  /// Node rank r's failure word (beside its PeerInfo): 0, or the weftResult_t that broke its
  /// communicator. Written once, on failure; read by peers only while a wait lasts long.
  std::atomic<uint64_t>& FailureWord(int node_rank) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(counters_ +
                                                     (node_rank * kLines + kCounters) * 64 + 32);
  }
  /// Tells the node peers that this rank's communicator broke with status s.
  void RaiseFailure(uint64_t s) { FailureWord(rank_).store(s, std::memory_order_release); }
  /// A peer that failed (raised its failure word) or whose process has exited: true with its
  /// node rank, its failure (0 if it exited) and whether it exited. A stopped process is alive.
  bool FindFailedPeer(int* who, uint64_t* failure, bool* exited) const;
  /// The placement probe's lines of node rank r (placement_probe.h): `ping` is written by node
  /// rank 0 (its word 1 holds the verdict in rank 0's line), `echo` by rank r.
  std::atomic<uint64_t>& ProbePing(int node_rank, int word = 0) const {
    return reinterpret_cast<std::atomic<uint64_t>*>(
        counters_ + (node_rank * kLines + kCounters + 1) * 64)[word];
  }
  std::atomic<uint64_t>& ProbeEcho(int node_rank) const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(counters_ +
                                                     (node_rank * kLines + kCounters + 2) * 64);
  }
  /// The placement probe's handover block (kProbeBlockBytes): written by one peer and read by
  /// node rank 0, one peer at a time, only inside a probe.
  static constexpr uint64_t kProbeBlockBytes = 64u << 10;
  unsigned char* ProbeBlock() const { return probe_block_; }
  /// Probes run on this segment so far (the same on every rank: they run at the same
  /// executions).
  uint64_t probes = 0;
  /// The latency banks and what this rank knows of its peers' progress (bank_placer.h):
  /// placed at every execution start on this segment.
  BankPlacer& banks() { return banks_; }

 private:
  ShmSegment() = default;
  /// Maps the counters and latency banks in (page faults now, not in latency-path calls).
  void Prefault(uint64_t counter_bytes);
  void* base_ = nullptr;
  size_t bytes_ = 0;
  unsigned char* counters_ = nullptr;
  unsigned char* probe_block_ = nullptr;
  unsigned char* slots_ = nullptr;
  uint64_t slot_bytes_ = 0;
  int nranks_ = 0, rank_ = 0;
  BankPlacer banks_{0};
  std::vector<pid_t> pids_;  // node ranks' process ids, where every rank can see every process
  bool pids_usable_ = false;
};

}  // namespace weft
