// Shared pieces of the interposed collectives (blocking, nonblocking and persistent): the
// serve-or-native decision, made from what every rank of the call shares (communicator, op, type
// signature, byte counts; never a rank's own datatype handle or layout), and the buffers weft runs
// on.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "shim_types.h"
#include "weft/weft.h"

namespace weft::shim {

/// The native call, made when weft does not take a call: a reference to the caller's callable
/// (a lambda over the MPI function's arguments), valid for the call it is passed to and never
/// stored. A std::function here allocated for every call whose lambda captured more than two
/// references (about 250 instructions of an interposed 8-byte MPI_Allreduce, callgrind).
class NativeFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, NativeFn>>>
  NativeFn(const F& f)  // NOLINT: implicit, as std::function's
      : fn_(&f), call_([](const void* fn) { return (*static_cast<const F*>(fn))(); }) {}
  int operator()() const { return call_(fn_); }

 private:
  const void* fn_;
  int (*call_)(const void*);
};

/// The state of a served call, T. A nonblocking or persistent call's lives until it completes
/// or is freed; a blocking call's only while the call runs, so each thread reuses one (vectors
/// keep their capacity): a loop of blocking calls allocates nothing after the first (a fresh
/// one per call cost MPI_Alltoallv about 5,000 instructions at 2 ranks, callgrind). The caller
/// sets every field a call reads.
template <class T>
std::shared_ptr<T> ReusableCall(bool blocking) {
  if (!blocking) return std::make_shared<T>();
  thread_local std::shared_ptr<T> spare;
  if (spare == nullptr || spare.use_count() != 1) spare = std::make_shared<T>();
  return spare;
}

/// One call as weft runs it: the user's buffers seen as contiguous bytes (packed before the
/// run and unpacked after it where a rank's layout has gaps), and what weft is called with.
struct Buffers {
  PackedView in;   ///< the send side (unused in place)
  PackedView out;  ///< the receive side (also the input of an in-place call)
  bool pack_in = false, pack_out = false, unpack_out = false;
  const void* src = nullptr;  ///< weft's sendbuff
  void* dst = nullptr;        ///< weft's recvbuff
  std::function<void()> fix;  ///< local fix-up after the run, before unpacking (in-place forms)
  /// Where set, what After does instead of unpacking `out` (MPI_Alltoallv's per-block
  /// layouts), holding what the run uses until it completes.
  std::function<int()> unpack;
  /// Where set, what After runs once the result is unpacked (MPI_Allgatherv's blocks moved to
  /// this rank's displacements). MPI error code.
  std::function<int()> then;
  /// MPI_Reduce_scatter's blocks in weft elements (the same on every rank).
  std::vector<size_t> block_counts;
  /// Packs what the run reads. MPI error code.
  int Before();
  /// Applies the fix-up and unpacks what the run wrote. MPI error code.
  int After();
};

/// How a served call runs on weft. A call is served, empty (its signature has no bytes: there
/// is nothing to do on any rank) or native.
struct Route {
  weftComm_t comm = nullptr;  ///< weft's communicator when served
  bool empty = false;         ///< nothing to move: MPI_SUCCESS on every rank
  size_t count = 0;           ///< weft elements (reductions) or bytes per block (movement)
  weftDataType_t type = weftUint8;
  weftRedOp_t op = weftSum;
  std::shared_ptr<Buffers> buf;  ///< set when served (CallBuffers)
};

/// A served call's buffers, cleared: reused per thread for a blocking call (ReusableCall).
std::shared_ptr<Buffers> CallBuffers(bool blocking);

/// Which collective a Prepare call is for.
enum class Kind {
  kAllreduce,
  kReduce,
  kBcast,
  kAllgather,
  kAlltoall,
  kReduceScatterBlock,
  kReduceScatter,  ///< unequal blocks (CallArgs::counts)
  kGather,
  kScatter,
  kScan,
  kExscan
};

/// The arguments of one interposed collective, as MPI passed them (counts widened to size_t).
struct CallArgs {
  Kind kind;
  const char* fn;  ///< the MPI function's name, for logs and WEFT_STATS
  const void* s;   ///< sendbuf (MPI_IN_PLACE allowed where MPI allows it; Bcast: the buffer)
  void* r;         ///< recvbuf (Bcast: the buffer)
  size_t scount;   ///< send count (reductions and Bcast: the count)
  MPI_Datatype st;
  size_t rcount;  ///< receive count (movement)
  MPI_Datatype rt;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  bool nonblocking = false;  ///< a nonblocking start (local: never sets weft up, CommFor)
  /// Complete when it returns (Run): its views pack and unpack with the program's datatype
  /// handles, which a program cannot free during the call; else they hold duplicates of derived
  /// ones (KeepType), since a program may free a datatype while a call on it is pending.
  bool blocking = false;
  /// kReduceScatter: recvcounts, the same array on every rank (scount is their sum, rcount this
  /// rank's entry).
  const int* counts = nullptr;
};

/// Decides serve / empty / native for a call (logging and counting the choice) and, when
/// served, lays out its buffers. Native when the call's routine should run instead.
Route Prepare(const CallArgs& a);

/// Runs a served call on weft: with plan set, makes its persistent plan; with request set,
/// starts it nonblocking; else runs it blocking.
weftResult_t Launch(const CallArgs& a, const Route& route, weftPlan_t* plan,
                    weftRequest_t* request);
/// A blocking call end to end: prepare, pack, run on weft, unpack (then `then`, when served);
/// or native.
int Run(CallArgs a, const NativeFn& native, std::function<int()> then = {});
/// A nonblocking call: served, weft's request behind a generalized one whose completion
/// unpacks (then runs `then`); nothing to move, an already complete request; else native().
int Post(CallArgs a, MPI_Request* req, const NativeFn& native, std::function<int()> then = {});
/// A blocking collective on comm that goes to MPI's routine: the served nonblocking calls on
/// comm complete first (MPI's blocking routine cannot advance them, and a peer may wait for
/// this rank's part of one before it joins this call), then native().
int RunNative(MPI_Comm comm, const NativeFn& native);

// The routing of the calls that are more than one Run or Post, shared by the C entry points and
// the Fortran ones (shim_fortran_*.cc): each takes the native routine to call when weft does not
// serve, so each binding falls back to its own MPI symbol. With req set, the nonblocking form.

/// MPI_Reduce_scatter: weft's reduce_scatter where every block is alike, else native.
int ReduceScatter(const void* s, void* r, const int counts[], MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm, MPI_Request* req, const NativeFn& native);
/// MPI_Barrier and MPI_Ibarrier.
int Barrier(MPI_Comm comm, MPI_Request* req, const NativeFn& native);
/// MPI_Allgatherv: weft's allgather where the counts are equal (shim_allgatherv.cc), else
/// UnequalAllGatherV.
int AllGatherV(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
               MPI_Datatype rt, MPI_Comm comm, MPI_Request* req, const NativeFn& native);
/// MPI_Allgatherv with unequal counts on weftAllGatherV where weft serves it (one node), else
/// native (shim_vcolls.cc).
int UnequalAllGatherV(const void* s, int sn, MPI_Datatype st, void* r, const int rc[],
                      const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* req,
                      const NativeFn& native);
/// MPI_Gatherv and MPI_Scatterv on weftGatherV and weftScatterV where weft serves them (one
/// node), else native (shim_vcolls.cc).
int GatherV(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
            MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req, const NativeFn& native);
int ScatterV(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r, int rn,
             MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req, const NativeFn& native);
/// MPI_Alltoallv on weftAllToAllV (shim_alltoallv.cc).
int AllToAllV(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r,
              const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* req,
              const NativeFn& native);
/// A persistent collective (MPI_*_init): makes the native persistent request, which native()
/// writes into *req, and, for a call weft serves, the weft plan behind it.
int ServePersistent(const CallArgs& a, MPI_Request* req, const NativeFn& native);
/// A communicator constructor returned rc: every rank of the new communicator is in the call,
/// so weft sets up on it now (nonblocking calls, which never set up, are served from the
/// first). Returns rc.
int Created(int rc, const MPI_Comm* made);
/// MPI is up, on every rank (after MPI_Init or MPI_Init_thread in any binding): registers the
/// interposer's cleanup and sets up MPI_COMM_WORLD, so that nonblocking calls on it are served
/// from the first (shim_state.h SetUpEagerly).
void AfterInit();

/// MPI_SUCCESS, or the MPI error flow for a weft failure.
int Finish(weftResult_t r, MPI_Comm comm, const char* fn);

/// Runs body and never lets an exception leave the interposer. A throw (out of memory) is
/// reported as MPI_ERR_NO_MEM rather than answered with the native routine: the other ranks
/// may already be in weft's schedule, and a native call here would leave both waiting.
template <typename Body>
int Guard(Body&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return MPI_ERR_NO_MEM;
  }
}

}  // namespace weft::shim
