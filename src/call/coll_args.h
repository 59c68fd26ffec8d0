// One collective call's arguments, as the C API received them, and their validation.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "comm/comm.h"
#include "core/status.h"

namespace weft {

/// Which operation a call asks for.
enum class CollKind {
  kAllReduce,
  kReduce,
  kBroadcast,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBarrier,
  kSend,
  kRecv,
  kGather,
  kScatter,
  kAllGatherV,
  kAllToAllV,
  kGatherV,
  kScatterV,
  kReduceScatterV,
  kScan,
  kExScan
};

/// True for the kinds weft serves on device buffers (staged, IPC, NCCL, MPI direct); the
/// others run on host memory only.
inline bool ServedOnDevice(CollKind k) {
  return k == CollKind::kAllReduce || k == CollKind::kReduce || k == CollKind::kBroadcast ||
         k == CollKind::kAllGather || k == CollKind::kReduceScatter || k == CollKind::kAllToAll;
}

/// True for the kinds whose schedules take the zero-copy path on weftMemAlloc memory (those and
/// gather and scatter; coll/zero_copy_agreement.h). The v-collectives' mailbox schedules and the
/// scans have no such path.
inline bool HasSchedule(CollKind k) {
  return ServedOnDevice(k) || k == CollKind::kGather || k == CollKind::kScatter;
}

/// True for the kinds whose per-rank counts come in arrays (VCounts).
inline bool IsVKind(CollKind k) {
  return k == CollKind::kAllGatherV || k == CollKind::kAllToAllV || k == CollKind::kGatherV ||
         k == CollKind::kScatterV || k == CollKind::kReduceScatterV;
}

/// The count arrays of a v-collective, copied from the caller's arrays at the call (so a
/// nonblocking or grouped call does not keep pointers into them). Elements, one per rank;
/// empty where the call has no such array (or this rank does not read it: the arrays of a
/// GatherV or ScatterV root at the other ranks).
struct VCounts {
  std::vector<size_t> send_counts, send_displs, recv_counts, recv_displs;
  /// A hash of the four arrays (CopyVCounts), so the program cache finds a call's arrays
  /// without comparing them against every kept call's.
  size_t digest = 0;
  /// ValidateVArrays passed these arrays for the call it names (kind, root, count packed; 0:
  /// none yet): a loop that passes the same arrays, found by VCountsFor, checks them once.
  mutable std::atomic<uint64_t> passed{0};
  bool operator==(const VCounts& o) const {
    return digest == o.digest && send_counts == o.send_counts && send_displs == o.send_displs &&
           recv_counts == o.recv_counts && recv_displs == o.recv_displs;
  }
};

/// The C API name of a kind ("weftAllReduce"), for messages.
const char* CollApiName(CollKind kind);
/// The nonblocking form's name ("weftIAllReduce"), for messages.
const char* CollNonblockingName(CollKind kind);
/// Lower-case short name ("allreduce"), for tools and plan descriptions.
const char* CollShortName(CollKind kind);

/// Arguments of one call. `count` is the API's count argument (per rank for AllGather and
/// Gather, per block for ReduceScatter, AllToAll and Scatter; this rank's own count for the
/// v-collectives: its sendcount for AllGatherV and GatherV, its recvcount for ScatterV and
/// ReduceScatterV, 0 for AllToAllV); `root` is the peer for Send/Recv.
struct CollArgs {
  CollKind kind = CollKind::kBarrier;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
  weftDataType_t type = weftInt8;
  weftRedOp_t op = weftSum;
  int root = 0;
  bool in_place = false;  // set by ValidateArgs
  /// Every rank's buffers lie in node-shared weftMemAlloc memory (set by AgreeZeroCopy).
  bool zero_copy = false;
  /// Shared slots are written with streaming stores (Comm::SlotsStreamed when the program is
  /// looked up or built): the choice of schedule depends on it.
  bool slots_streamed = false;
  /// Made inside a weftGroupStart/End group (plan/group.h): started with the group's other
  /// calls, so a send or receive to this rank itself is fine.
  bool grouped = false;
  /// The count arrays of a v-collective (IsVKind), else null: part of the call's shape (the
  /// program cache keeps compiled v-programs under them).
  std::shared_ptr<const VCounts> v;
};

/// CollArgs from a C API call's arguments (root doubles as the peer of Send/Recv).
inline CollArgs MakeArgs(CollKind kind, const void* send, void* recv, size_t count,
                         weftDataType_t type, weftRedOp_t op, int root) {
  CollArgs a;
  a.kind = kind;
  a.send = send;
  a.recv = recv;
  a.count = count;
  a.type = type;
  a.op = op;
  a.root = root;
  return a;
}

/// The allreduce of one byte (max) that a barrier is compiled as; its buffers are bound by the
/// program (CompiledColl::bind_own_bytes).
inline CollArgs BarrierAsAllReduce(const CollArgs& barrier) {
  CollArgs a = barrier;
  a.kind = CollKind::kAllReduce;
  a.count = 1;
  a.type = weftUint8;
  a.op = weftMax;
  a.in_place = false;
  a.zero_copy = false;
  return a;
}

/// Byte extents of the buffers this rank touches; 0 when it touches none.
struct Extents {
  size_t send = 0, recv = 0;
};
/// This rank's extents for a call with element size es; false if they overflow or a buffer of
/// the call (on any rank) would span more than 2^48 bytes.
bool ComputeExtents(const Comm& comm, const CollArgs& a, size_t es, Extents* e);

/// Checks every argument against comm; on success sets args->in_place. Errors:
/// weftInvalidArgument (bad type/op/root/peer, null or partly overlapping buffers, sizes
/// that overflow) with the reason recorded on comm. *seen_only_here (if given) is set when the
/// error is one no other rank can see: a buffer of the root of a reduce or bcast, which the
/// other ranks do not have, so they go on into the collective and wait for this one.
Status ValidateArgs(Comm& comm, CollArgs* args, bool* seen_only_here = nullptr);

/// Collective check that all ranks passed the same kind, count, type, op and root
/// (WEFT_CHECK_ARGS=1), and that every rank's ValidateArgs passed (valid_here: this rank's):
/// a rank that passed learns of another's failure (weftRemoteError), so all leave together.
Status CheckArgsAgree(Comm& comm, const CollArgs& args, bool valid_here);

}  // namespace weft
