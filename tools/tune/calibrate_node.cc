#include "calibrate_node.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "exec/reduce_kernels.h"
#include "time_recipes.h"
#include "transport/cma/cma.h"

namespace weft::tune_tool {

// A barrier whose waiters sleep: while two ranks measure, the others must not take the cores
// (at 4 ranks on 2 cores, spinning in MPI_Barrier made an 8-byte ping-pong read 6 us
// instead of 0.4).
void QuietBarrier(MPI_Comm comm) {
  MPI_Request r;
  MPI_Ibarrier(comm, &r);
  int done = 0;
  for (MPI_Test(&r, &done, MPI_STATUS_IGNORE); !done; MPI_Test(&r, &done, MPI_STATUS_IGNORE)) {
    usleep(200);
  }
}

namespace {

// A counter and `bytes` of slot in one window of MPI shared memory, over this machine's ranks
// (MPI's shared-memory split), for local ranks 0 and 1 to hand work back and forth.
class SharedPair {
 public:
  SharedPair(MPI_Comm world, size_t bytes) {
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local_);
    MPI_Comm_rank(local_, &rank_);
    MPI_Comm_size(local_, &size_);
    if (size_ < 2) return;
    MPI_Win_allocate_shared(rank_ == 0 ? bytes + 64 : 0, 1, MPI_INFO_NULL, local_, &base_, &win_);
    MPI_Aint got = 0;
    int disp = 0;
    MPI_Win_shared_query(win_, 0, &got, &disp, &base_);
    if (rank_ == 0) counter()->store(0);
    QuietBarrier(local_);
  }
  ~SharedPair() {
    if (size_ >= 2) {
      QuietBarrier(local_);
      MPI_Win_free(&win_);
    }
    MPI_Comm_free(&local_);
  }
  bool exists() const { return size_ >= 2; }  // a second rank on this machine
  bool member() const { return exists() && rank_ < 2; }
  int rank() const { return rank_; }
  MPI_Comm local() const { return local_; }
  unsigned char* slot() const { return base_ + 64; }
  std::atomic<uint64_t>* counter() const { return reinterpret_cast<std::atomic<uint64_t>*>(base_); }
  // Waits until the counter reads `value`, yielding after a while (oversubscribed: let the
  // peer run).
  void WaitFor(uint64_t value) const {
    for (int spins = 0; counter()->load(std::memory_order_acquire) != value;) {
      if (++spins > 1000) sched_yield();
    }
  }

 private:
  MPI_Comm local_ = MPI_COMM_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  unsigned char* base_ = nullptr;
  int rank_ = 0, size_ = 0;
};

}  // namespace

// Half the round trip of a counter in shared memory between local ranks 0 and 1 of this
// machine; -1 where there is no second rank.
double CounterWaitUs(MPI_Comm world) {
  SharedPair pair(world, 0);
  if (!pair.member()) return -1;
  constexpr uint64_t kIters = 20000;
  const double t0 = MPI_Wtime();
  for (uint64_t i = 0; i < kIters; ++i) {
    const uint64_t want = 2 * i + pair.rank();
    pair.WaitFor(want);
    pair.counter()->store(want + 1, std::memory_order_release);
  }
  return (MPI_Wtime() - t0) * 1e6 / (2.0 * kIters);
}

// Copies through shared memory between local ranks 0 and 1, as a shared-memory schedule's
// slots see them: rank 0 copies a chunk from its own memory into a slot, rank 1 copies it out,
// in turns, each waiting for the other's counter. Per copy, bytes over half a turn, for chunks
// of 64 and 256 KiB (the median); -1 where there is no second rank.
double HandoverGBps(MPI_Comm world) {
  constexpr size_t kMax = 256u << 10;
  SharedPair pair(world, kMax);
  if (!pair.exists()) return -1;
  std::vector<unsigned char> mine(kMax, static_cast<unsigned char>(pair.rank() + 1));
  std::vector<double> rates;
  uint64_t seq = 0;
  for (size_t bytes : {size_t{64} << 10, kMax}) {
    QuietBarrier(pair.local());
    const int iters = static_cast<int>((64u << 20) / bytes);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters && pair.member(); ++i, seq += 2) {
      const uint64_t want = seq + pair.rank();
      pair.WaitFor(want);
      if (pair.rank() == 0) {
        std::memcpy(pair.slot(), mine.data(), bytes);
      } else {
        std::memcpy(mine.data(), pair.slot(), bytes);
      }
      pair.counter()->store(want + 1, std::memory_order_release);
    }
    rates.push_back(2.0 * bytes * iters / ((MPI_Wtime() - t0) * 1e9));
  }
  return pair.member() ? Median(rates) : -1;
}

double ExchangeLoopUs(MPI_Comm comm, int peer, int iters) {
  float out[2] = {1, 2}, in[2];
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    MPI_Request r[2];
    MPI_Irecv(in, 8, MPI_BYTE, peer, 5, comm, &r[0]);
    MPI_Isend(out, 8, MPI_BYTE, peer, 5, comm, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  return (MPI_Wtime() - t0) * 1e6 / iters;
}

// The wait for a core: on each machine local ranks 2i and 2i+1 exchange 8 B in a loop (both
// send, then wait for both), every pair at once, against local ranks 0 and 1 of rank 0's machine
// alone; the time per exchange added, on world rank 0, the median of 5 alternations, at least 0.
// Exchanges, as a collective's rounds run (every rank sends and waits at once): on the Xeon VM a
// loop of them took 2.0-3.2 us loaded against 0.6-0.9 alone, and held its median across repeats
// where a ping-pong's once read the same loaded and alone; rexch:4's 8-byte allreduce took 6.7
// us where the model without this term said 1.3 (bench/tuning/model-loop). 0, unmeasured,
// where rank 0's machine has a core per rank or fewer than 4 ranks (one pair: nothing to
// compete with); -1 where it has one rank.
double WakeUs(MPI_Comm world) {
  MPI_Comm local;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int lr = 0, ln = 0, me = 0;
  MPI_Comm_rank(local, &lr);
  MPI_Comm_size(local, &ln);
  MPI_Comm_rank(world, &me);
  // The cores the machine's ranks may run on: the union of their affinity masks (ranks bound
  // one per core count as many cores as ranks).
  cpu_set_t mask, cores;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) CPU_SET(0, &mask);
  MPI_Allreduce(&mask, &cores, static_cast<int>(sizeof mask), MPI_BYTE, MPI_BOR, local);
  int rank0[2] = {ln, CPU_COUNT(&cores)};
  MPI_Bcast(rank0, 2, MPI_INT, 0, world);
  if (rank0[0] < 4 || rank0[0] <= rank0[1]) {
    MPI_Comm_free(&local);
    return me != 0 || rank0[0] < 2 ? -1 : 0;
  }
  // Ranks keep their world order in `local`, so rank 0 is local rank 0 of its machine.
  int leader = me;
  MPI_Bcast(&leader, 1, MPI_INT, 0, local);
  const bool with_rank0 = leader == 0;
  const int peer = lr ^ 1;
  const bool paired = peer < ln;
  auto exchange_us = [&] {
    std::vector<double> t;
    for (int k = 0; k < 6; ++k) {
      const double us = ExchangeLoopUs(local, peer, 2000);
      if (k > 0) t.push_back(us);  // the first warms up
    }
    return Median(t);
  };
  std::vector<double> added;
  for (int turn = 0; turn < 5; ++turn) {
    double alone = 0, loaded = 0;
    QuietBarrier(world);
    if (with_rank0 && lr < 2) alone = exchange_us();
    QuietBarrier(world);
    if (paired) loaded = exchange_us();
    added.push_back(loaded - alone);
  }
  MPI_Comm_free(&local);
  return me == 0 ? std::max(0.0, Median(added)) : -1;
}

// Single copy (process_vm_readv) between local ranks 0 and 1, each reading the other's memory at
// once (as a cma schedule's ranks do), timed on rank 0: out[0] the microseconds of a 64-byte
// read (the median of 201), out[1] the GB/s of reading OutOfCacheBytes() (the median of 5). -1
// where there is no second rank or single copy is not permitted. Out of cache the call moves
// well below memcpy: 5.1-6.0 GB/s from 16 MiB on the Xeon VM in two runs, memcpy 12-21 on one core
// (bench/tuning/wake/probes/cma_read), and 4 MiB reads 8.7-9.2 GB/s both ranks at once.
void SingleCopy(MPI_Comm world, double out[2]) {
  out[0] = out[1] = -1;
  MPI_Comm local;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int lr = 0, ln = 0;
  MPI_Comm_rank(local, &lr);
  MPI_Comm_size(local, &ln);
  MPI_Comm pair;
  MPI_Comm_split(local, ln >= 2 && lr < 2 ? 0 : MPI_UNDEFINED, lr, &pair);
  MPI_Comm_free(&local);
  if (pair == MPI_COMM_NULL) return;
  const size_t big = OutOfCacheBytes();
  std::vector<unsigned char> mine(big, 7), theirs(big);
  const uint64_t where[2] = {static_cast<uint64_t>(getpid()),
                             reinterpret_cast<uint64_t>(mine.data())};
  uint64_t peer[2];
  MPI_Sendrecv(where, 2, MPI_UINT64_T, 1 - lr, 6, peer, 2, MPI_UINT64_T, 1 - lr, 6, pair,
               MPI_STATUS_IGNORE);
  const pid_t pid = static_cast<pid_t>(peer[0]);
  const void* remote = reinterpret_cast<const void*>(peer[1]);
  // Every turn starts together; a failed read (not permitted) is agreed so both stop.
  auto median_us = [&](size_t bytes, int reps) {
    std::vector<double> t;
    std::string why;
    for (int i = 0; i < reps; ++i) {
      MPI_Barrier(pair);
      const double t0 = MPI_Wtime();
      int ok = cma::Read(pid, remote, theirs.data(), bytes, &why) == weftSuccess, all = 0;
      t.push_back((MPI_Wtime() - t0) * 1e6);
      MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, pair);
      if (!all) return -1.0;
    }
    return Median(t);
  };
  const double small = median_us(64, 201);
  const double large = small < 0 ? -1 : median_us(big, 5);
  MPI_Barrier(pair);  // each keeps `mine` until the other has read it
  MPI_Comm_free(&pair);
  if (lr != 0 || small < 0) return;
  out[0] = small;
  if (large > 0) out[1] = big / large / 1e3;
}

// Buffers twice the last-level cache (as weft-bench rotates through): the copies and reduces
// that matter to the choice are those of large calls, whose data comes from memory.
size_t OutOfCacheBytes() {
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return std::clamp<size_t>(llc > 0 ? 2 * static_cast<size_t>(llc) : (64u << 20), 8u << 20,
                            256u << 20);
}

namespace {
// Median seconds of one memcpy of n bytes, alternating directions between two buffers.
double CopySeconds(size_t n, int reps) {
  std::vector<unsigned char> a(n, 1), b(n, 2);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = MPI_Wtime();
    std::memcpy(i % 2 ? a.data() : b.data(), i % 2 ? b.data() : a.data(), n);
    t.push_back(MPI_Wtime() - t0);
  }
  return Median(t);
}
}  // namespace

double CopyGBps() {
  const size_t n = OutOfCacheBytes();
  return n / CopySeconds(n, 7) / 1e9;
}

// Reduce of `bytes` of each of two buffers, fp32/fp16 sum: bytes read per second.
double ReduceGBps(weftDataType_t type, size_t bytes, int reps) {
  const size_t n = bytes / TypeSize(type);
  std::vector<unsigned char> a(bytes, 0), b(bytes, 0);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = MPI_Wtime();
    ReduceInPlace(a.data(), b.data(), n, type, weftSum);
    t.push_back(MPI_Wtime() - t0);
  }
  return 2.0 * bytes / Median(t) / 1e9;
}

// The cache's reach: memcpy with working sets (source and destination) from 128 KiB to 16 MiB;
// the largest within 80% of the best rate is compute_cached_bytes; the fp32 reduce with that
// working set, reduce_cached_gbytes_per_s. out: those two. On the Xeon VM memcpy ran 32-36
// GB/s to 1 MiB, 22 at 2 MiB, 12-13 at 4-32 MiB (both ranks at once;
// bench/tuning/model-cache/probes/copy_sweep).
void CachedComputeRates(double out[2]) {
  std::vector<size_t> sets;
  std::vector<double> rates;
  for (size_t ws = 128u << 10; ws <= (16u << 20); ws *= 2) {
    const size_t n = ws / 2;
    sets.push_back(ws);
    // Repeats enough to cover a millisecond or so at cache speed: small copies are noisy.
    rates.push_back(n / CopySeconds(n, std::max<int>(7, static_cast<int>((32u << 20) / n))) / 1e9);
  }
  const double top = *std::max_element(rates.begin(), rates.end());
  size_t cached = 0;
  while (cached + 1 < rates.size() && rates[cached + 1] >= 0.8 * top) ++cached;
  out[0] = static_cast<double>(sets[cached]);
  out[1] = ReduceGBps(weftFloat32, sets[cached] / 2,
                      std::max<int>(7, static_cast<int>((32u << 20) / sets[cached])));
}

}  // namespace weft::tune_tool
