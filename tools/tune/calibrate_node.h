// Calibration's measurements of one machine's memory, as the ranks of a node see it: a counter
// and a chunk handed between two cores through shared memory, a single copy from a peer, and
// copy and reduce rates in and out of cache (calibrate.h lists what each parameter means).
#pragma once

#include <mpi.h>

#include <cstddef>

#include "weft/weft.h"

namespace weft::tune_tool {

/// A barrier whose waiters sleep (calibrate_node.cc says why).
void QuietBarrier(MPI_Comm comm);
/// Half the round trip of a counter in shared memory between local ranks 0 and 1; -1 where
/// there is no second rank.
double CounterWaitUs(MPI_Comm world);
/// GB/s per copy of a chunk handed between local ranks 0 and 1 through a shared slot; -1 where
/// there is no second rank.
double HandoverGBps(MPI_Comm world);
/// Single copy between local ranks 0 and 1 reading each other at once, on rank 0: out[0] the
/// microseconds of a 64-byte process_vm_readv, out[1] the GB/s of an OutOfCacheBytes() read; -1
/// elsewhere, where there is no second rank or single copy is not permitted.
void SingleCopy(MPI_Comm world, double out[2]);
/// Microseconds per exchange of a loop of `iters` 8-byte exchanges with `peer` (Irecv, Isend,
/// Waitall), as one round of a collective runs.
double ExchangeLoopUs(MPI_Comm comm, int peer, int iters);
/// Microseconds an 8-byte exchange loop adds per exchange with every local pair of ranks at
/// once, against one pair alone (the wait for a core where ranks outnumber cores), on world
/// rank 0; 0 where its machine has a core per rank or 2-3 ranks, -1 where it has one (and on
/// other ranks).
double WakeUs(MPI_Comm world);
/// Twice the last-level cache, clamped to 8-256 MiB: the buffers of the out-of-cache rates.
size_t OutOfCacheBytes();
/// memcpy rate of OutOfCacheBytes() buffers, GB/s.
double CopyGBps();
/// Reduce kernel (sum of `type`) over two buffers of `bytes`: bytes read per second, GB/s.
double ReduceGBps(weftDataType_t type, size_t bytes, int reps);
/// out[0]: compute_cached_bytes, out[1]: reduce_cached_gbytes_per_s.
void CachedComputeRates(double out[2]);

}  // namespace weft::tune_tool
