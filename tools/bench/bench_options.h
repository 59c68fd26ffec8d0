// weft-bench's command line, with nccl-tests' flags where they exist.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace bench {

/// The collectives weft-bench measures.
enum class Coll {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kBroadcast,
  kReduce,
  kAllToAll,
  kAllToAllV,
  kGather,         ///< count per rank, as allgather; the root receives P blocks
  kScatter,        ///< count per block, as reduce_scatter; the root sends P blocks
  kScan,           ///< the vector, as allreduce; rank r gets the reduction of ranks 0..r
  kExScan,         ///< the same over ranks 0..r-1 (rank 0 gets nothing)
  kAllGatherV,     ///< allgather with a count per rank (--vpattern); MPI_Allgatherv
  kGatherV,        ///< gather with a count per rank; MPI_Gatherv
  kScatterV,       ///< scatter with a count per block; MPI_Scatterv
  kReduceScatterV  ///< reduce_scatter with a count per block; MPI_Reduce_scatter
};

/// True for the collectives with a root (-r).
bool Rooted(Coll c);

/// The v-collectives' block sizes (--vpattern): every block the same (the equal form through
/// the v interface); skewed: alltoallv's pairs with (i + j) mod 4 == 0, and the other kinds'
/// ranks q with q mod 4 == 0, have 4x the base block and the others a quarter of it (symmetric,
/// so in place works; totals differ by rank); sparse: most blocks empty, as a halo exchange
/// leaves them: alltoallv's ranks exchange with their two ring neighbours only, the other
/// kinds' ranks q with q mod 4 == 1 have the base block and the others none.
enum class VPattern { kUniform, kSkewed, kSparse };

/// Parsed options.
struct Options {
  std::vector<Coll> colls;
  size_t min_bytes = 8, max_bytes = 64u << 20;
  double factor = 2;
  weftDataType_t type = weftFloat64;
  weftRedOp_t op = weftSum;
  int root = 0;
  int warmup = 5, iters = 20;
  bool check = true;
  /// --timing loop: time blocks of back-to-back calls (what a program calling in a loop sees)
  /// instead of one call after a barrier.
  bool loop = false;
  /// --cold BYTES: before each timed call (call timing) every rank writes one byte in every
  /// cache line of BYTES of other memory, as a compute phase between collectives would, so
  /// the call starts with cold caches and TLB. 0: off.
  size_t cold_bytes = 0;
  /// --buffers hot: one buffer set per size, reused by every call (OSU, IMB, nccl-tests and a
  /// solver's loop); rotate: calls cycle through sets spanning twice the last-level cache, so
  /// every call starts with its buffers out of cache (default).
  bool hot_buffers = false;
  bool out_of_place = true, in_place = true;
  std::string csv, json;
  bool device_memory = false;  // --memory device: the device experiment (bench_device.h)
  bool shared_memory = false;  // --memory shared: buffers from weftMemAlloc (zero copy)
  std::vector<int> modes;      // its modes, as Impl values (bench_colls.h)
  size_t elements = 0;         // --elements: one size in elements (applied after -d)
  /// --link-gbps: the rate of each host's link, Gbit/s; with ranks on more than one host the
  /// floor columns are the network floor at that rate (bench_floor.h). 0: not given.
  double link_gbps = 0;
  /// --nonblocking: both sides post the nonblocking call (MPI_Iallreduce, weftIAllReduce, ...)
  /// and wait for it, instead of the blocking call.
  bool nonblocking = false;
  /// --overlap: after each size's rows, the fraction of a nonblocking call hidden behind
  /// computation, OSU's definition (bench_overlap.h), for both sides.
  bool overlap = false;
  /// --overlap-compute sleep: the computation of the overlap measure sleeps instead of
  /// spinning (a host thread waiting on a device while its core is free); busy: OSU's.
  bool overlap_sleeps = false;
  VPattern vpattern = VPattern::kUniform;  // --vpattern
};

/// Parses argv; on error or --help prints usage to stderr and returns false (*exit_code set).
bool ParseOptions(int argc, char** argv, Options* o, int* exit_code);
/// "allreduce", ...
const char* CollName(Coll c);
/// Parses "64M", "1G", "8K", "512".
bool ParseSize(const std::string& text, size_t* out);

}  // namespace bench
