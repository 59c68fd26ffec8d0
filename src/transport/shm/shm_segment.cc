#include "transport/shm/shm_segment.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/fault.h"

namespace weft {
namespace {

constexpr uint64_t kPage = 4096;
uint64_t RoundUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

// The counters, the probe block and every rank's latency banks are mapped in now, not at first
// touch: the latency path touches a new bank in each of its first kBanks calls, and a page fault
// costs more than such a call (4 ranks on 2 cores: the first dozen 8-byte allreduces took 12-16 us
// against 4.4 us later, weft-bench allreduce -b 8 -e 8 -w 3 -n 10 against -w 50 -n 200).
// The slots stay lazy: they can be large, and a large call's copies dwarf its faults.
void ShmSegment::Prefault(uint64_t counter_bytes) {
  auto populate = [](unsigned char* p, uint64_t n) {
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, n, MADV_POPULATE_WRITE) == 0) return;
#endif
    for (uint64_t o = 0; o < n; o += kPage) {  // older kernels: a read maps the page in
      (void)*static_cast<volatile unsigned char*>(p + o);
    }
  };
  populate(counters_, counter_bytes);
  populate(probe_block_, kProbeBlockBytes);  // the probe times handovers at creation
  for (int r = 0; r < nranks_; ++r) populate(Bank(r, 0), kLatencyBytes);
}

ShmSegment::~ShmSegment() {
  if (base_ != nullptr) munmap(base_, bytes_);
}

Status ShmSegment::Create(MPI_Comm node_comm, uint64_t slot_bytes, std::shared_ptr<ShmSegment>* out,
                          std::string* why) {
  int rank = 0, n = 1;
  PMPI_Comm_rank(node_comm, &rank);
  PMPI_Comm_size(node_comm, &n);
  std::shared_ptr<ShmSegment> seg(new ShmSegment);
  seg->rank_ = rank;
  seg->nranks_ = n;
  seg->banks_ = BankPlacer(n);
  seg->slot_bytes_ = RoundUp(std::max<uint64_t>(slot_bytes, 1), kPage);
  const uint64_t counters = RoundUp(static_cast<uint64_t>(n) * kLines * 64, kPage);
  seg->bytes_ = counters + kProbeBlockBytes + (kLatencyBytes + seg->slot_bytes_) * n;

  static std::atomic<int> serial{0};
  char name[64] = {0};
  int ok = 1;
  if (rank == 0) {
    std::snprintf(name, sizeof name, "/weft-%d-%d", static_cast<int>(getpid()), serial++);
    // WEFT_FAULT=shm_grow:R makes every segment after the process's first fail on the node
    // whose rank 0 is R in MPI_COMM_WORLD (* every node), as a full /dev/shm would.
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    const bool injected = serial > 1 && FaultAt("shm_grow", world_rank);
    const int fd = injected ? -1 : shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(seg->bytes_)) == 0;
    if (!ok) {
      *why = std::string("shm_open/ftruncate ") + name + ": " +
             (injected ? "injected fault (WEFT_FAULT=shm_grow)" : std::strerror(errno));
    }
    if (fd >= 0) close(fd);
    if (!ok) shm_unlink(name);
  }
  if (PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, node_comm) != MPI_SUCCESS ||
      PMPI_Bcast(&ok, 1, MPI_INT, 0, node_comm) != MPI_SUCCESS) {
    *why = "MPI_Bcast of the segment's name failed";
    return weftSystemError;
  }
  if (!ok) {
    if (why->empty()) *why = "node rank 0 could not create the segment";
    return weftSystemError;
  }
  int mapped = 0;
  const int fd = shm_open(name, O_RDWR, 0600);
  if (fd >= 0) {
    void* p = mmap(nullptr, seg->bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
      seg->base_ = p;
      mapped = 1;
    }
  }
  if (!mapped) *why = std::string("mapping ") + name + ": " + std::strerror(errno);
  int all = 0;
  if (PMPI_Allreduce(&mapped, &all, 1, MPI_INT, MPI_MIN, node_comm) != MPI_SUCCESS) all = 0;
  if (rank == 0) shm_unlink(name);  // nothing is left in /dev/shm, whatever happens next
  if (!all) {
    if (why->empty()) *why = "a node peer could not map the segment";
    return weftSystemError;
  }
  // Node peers' process ids, for noticing a peer that died while others wait on it. Only where
  // every rank sees every other's process (one pid namespace): a container of its own would
  // make a live peer look gone.
  seg->pids_.resize(n);
  const pid_t me = getpid();
  int visible = PMPI_Allgather(&me, sizeof me, MPI_BYTE, seg->pids_.data(), sizeof me, MPI_BYTE,
                               node_comm) == MPI_SUCCESS;
  for (pid_t p : seg->pids_) visible &= kill(p, 0) == 0 || errno == EPERM;
  int all_visible = 0;
  if (PMPI_Allreduce(&visible, &all_visible, 1, MPI_INT, MPI_MIN, node_comm) != MPI_SUCCESS) {
    all_visible = 0;
  }
  seg->pids_usable_ = all_visible == 1;
  seg->counters_ = static_cast<unsigned char*>(seg->base_);
  seg->probe_block_ = seg->counters_ + counters;
  seg->slots_ = seg->probe_block_ + kProbeBlockBytes;
  seg->Prefault(counters);
  *out = std::move(seg);
  return weftSuccess;
}

bool ShmSegment::FindFailedPeer(int* who, uint64_t* failure, bool* exited) const {
  for (int r = 0; r < nranks_; ++r) {
    if (r == rank_) continue;
    const uint64_t f = FailureWord(r).load(std::memory_order_acquire);
    if (f != 0) {
      *who = r;
      *failure = f;
      *exited = false;
      return true;
    }
  }
  if (!pids_usable_) return false;
  for (int r = 0; r < nranks_; ++r) {
    if (r != rank_ && kill(pids_[r], 0) != 0 && errno == ESRCH) {
      *who = r;
      *failure = 0;
      *exited = true;
      return true;
    }
  }
  return false;
}

}  // namespace weft
