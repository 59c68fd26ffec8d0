#include "call/coll_args.h"

#include <cstdint>

#include "call/vcoll_args.h"
#include "core/dtype.h"
#include "core/hot_path.h"

namespace weft {
namespace {

bool UsesOp(CollKind k) {
  return k == CollKind::kAllReduce || k == CollKind::kReduce || k == CollKind::kReduceScatter ||
         k == CollKind::kReduceScatterV || k == CollKind::kScan || k == CollKind::kExScan;
}

bool UsesRoot(CollKind k) {
  return k == CollKind::kReduce || k == CollKind::kBroadcast || k == CollKind::kGather ||
         k == CollKind::kScatter || k == CollKind::kGatherV || k == CollKind::kScatterV;
}

bool UsesPeer(CollKind k) { return k == CollKind::kSend || k == CollKind::kRecv; }

bool Mul(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }

// The most bytes one rank's buffer of a call may span: 2^48 (256 TiB), past the 2^47 bytes of
// user address space that x86-64 and AArch64 give a process with 4-level page tables. A count
// beyond it cannot describe real memory, whichever rank holds that buffer: reduce's non-roots
// and bcast's receivers check the root's size too, so every rank rejects it alike.
constexpr size_t kMaxBufferBytes = size_t{1} << 48;

}  // namespace

WEFT_HOT bool ComputeExtents(const Comm& comm, const CollArgs& a, size_t es, Extents* e) {
  if (a.v != nullptr) return ComputeVExtents(comm, a, es, e);
  size_t bytes = 0;
  if (!Mul(a.count, es, &bytes)) return false;
  size_t all = 0;
  if (!Mul(bytes, static_cast<size_t>(comm.size), &all)) return false;
  const bool blocks = a.kind == CollKind::kAllGather || a.kind == CollKind::kReduceScatter ||
                      a.kind == CollKind::kAllToAll || a.kind == CollKind::kGather ||
                      a.kind == CollKind::kScatter;
  if ((blocks ? all : bytes) > kMaxBufferBytes) return false;
  const bool root = comm.rank == a.root;
  switch (a.kind) {
    case CollKind::kAllReduce:
    case CollKind::kScan:
      *e = {bytes, bytes};
      break;
    case CollKind::kExScan:  // rank 0's result is undefined (MPI): it writes no byte there
      *e = {bytes, comm.rank == 0 ? 0 : bytes};
      break;
    case CollKind::kReduce:
      *e = {bytes, root ? bytes : 0};
      break;
    case CollKind::kBroadcast:
      *e = {root ? bytes : 0, bytes};
      break;
    case CollKind::kAllGather:
      *e = {bytes, all};
      break;
    case CollKind::kReduceScatter:
      *e = {all, bytes};
      break;
    case CollKind::kAllToAll:
      *e = {all, all};
      break;
    case CollKind::kSend:
      *e = {bytes, 0};
      break;
    case CollKind::kRecv:
      *e = {0, bytes};
      break;
    case CollKind::kBarrier:
      *e = {0, 0};
      break;
    case CollKind::kGather:  // the root receives every rank's block
      *e = {bytes, root ? all : 0};
      break;
    case CollKind::kScatter:  // the root sends every rank's block
      *e = {root ? all : 0, bytes};
      break;
    default:  // a v-collective without its arrays
      return false;
  }
  return true;
}

namespace {

// The exact in-place form of each collective (NCCL's conventions).
bool IsInPlaceForm(const Comm& comm, const CollArgs& a, size_t es) {
  auto s = reinterpret_cast<uintptr_t>(a.send);
  auto r = reinterpret_cast<uintptr_t>(a.recv);
  if (a.v != nullptr) return IsInPlaceVForm(comm, a, es);
  const uintptr_t offset = static_cast<uintptr_t>(comm.rank) * a.count * es;
  switch (a.kind) {
    case CollKind::kAllGather:
    case CollKind::kGather:  // the root's own block already in place
      return s == r + offset;
    case CollKind::kReduceScatter:
    case CollKind::kScatter:
      return r == s + offset;
    default:
      return s == r;
  }
}

}  // namespace

namespace {

// Every kind's names, in the enum's order: the C API's blocking and nonblocking names and the
// short one. A table, not a switch: every blocking call names itself first (for its error
// texts), and the switch's compare chain was a visible part of an 8-byte call.
struct KindNames {
  const char* api;
  const char* nonblocking;  // null: no nonblocking form
  const char* short_name;
};
constexpr KindNames kKindNames[] = {
    {"weftAllReduce", "weftIAllReduce", "allreduce"},
    {"weftReduce", "weftIReduce", "reduce"},
    {"weftBroadcast", "weftIBroadcast", "broadcast"},
    {"weftAllGather", "weftIAllGather", "allgather"},
    {"weftReduceScatter", "weftIReduceScatter", "reduce_scatter"},
    {"weftAllToAll", "weftIAllToAll", "alltoall"},
    {"weftBarrier", "weftIBarrier", "barrier"},
    {"weftSend", nullptr, "send"},
    {"weftRecv", nullptr, "recv"},
    {"weftGather", "weftIGather", "gather"},
    {"weftScatter", "weftIScatter", "scatter"},
    {"weftAllGatherV", "weftIAllGatherV", "allgatherv"},
    {"weftAllToAllV", "weftIAllToAllV", "alltoallv"},
    {"weftGatherV", "weftIGatherV", "gatherv"},
    {"weftScatterV", "weftIScatterV", "scatterv"},
    {"weftReduceScatterV", "weftIReduceScatterV", "reduce_scatter_v"},
    {"weftScan", "weftIScan", "scan"},
    {"weftExScan", "weftIExScan", "exscan"},
};
constexpr size_t kNumKinds = sizeof(kKindNames) / sizeof(kKindNames[0]);
static_assert(kNumKinds == static_cast<size_t>(CollKind::kExScan) + 1,
              "one row per CollKind, in the enum's order");

const KindNames* NamesOf(CollKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kNumKinds ? &kKindNames[i] : nullptr;
}

}  // namespace

WEFT_HOT const char* CollApiName(CollKind kind) {
  const KindNames* n = NamesOf(kind);
  return n ? n->api : "weft?";
}

const char* CollNonblockingName(CollKind kind) {
  const KindNames* n = NamesOf(kind);
  return n && n->nonblocking ? n->nonblocking : "weft nonblocking call";
}

const char* CollShortName(CollKind kind) {
  const KindNames* n = NamesOf(kind);
  return n ? n->short_name : "?";
}

WEFT_HOT Status ValidateArgs(Comm& comm, CollArgs* a, bool* seen_only_here) {
  const char* fn = CollApiName(a->kind);
  if (seen_only_here != nullptr) *seen_only_here = false;
  a->in_place = false;
  if (a->kind == CollKind::kBarrier) return weftSuccess;
  if (!IsValidType(a->type)) {
    return comm.Fail(weftInvalidArgument, "%s: unknown datatype %d (valid: 0..%d)", fn,
                     static_cast<int>(a->type), weftNumTypes - 1);
  }
  if (UsesOp(a->kind) && !IsValidOp(a->op)) {
    return comm.Fail(weftInvalidArgument, "%s: unknown reduction op %d (valid: 0..%d)", fn,
                     static_cast<int>(a->op), weftNumOps - 1);
  }
  if ((UsesRoot(a->kind) || UsesPeer(a->kind)) && (a->root < 0 || a->root >= comm.size)) {
    return comm.Fail(weftInvalidArgument, "%s: %s %d is not a rank of this communicator (size %d)",
                     fn, UsesPeer(a->kind) ? "peer" : "root", a->root, comm.size);
  }
  if (UsesPeer(a->kind) && a->root == comm.rank && !a->grouped) {
    return comm.Fail(weftInvalidUsage,
                     "%s: peer %d is this rank; a blocking send to self would deadlock (inside "
                     "weftGroupStart/End it would not)",
                     fn, a->root);
  }
  // A buffer error of the root of a rooted collective is seen by the root alone: the other
  // ranks have no such buffer. Every other check fails alike on every rank that passes the
  // same arguments.
  auto buffer_error = [&](Status s) {
    if (seen_only_here != nullptr) {
      *seen_only_here = UsesRoot(a->kind) && comm.rank == a->root && comm.size > 1;
    }
    return s;
  };
  if (IsVKind(a->kind)) {
    const Status arrays = ValidateVArrays(comm, a);
    if (arrays != weftSuccess) return buffer_error(arrays);
  }
  const size_t es = TypeSize(a->type);
  Extents e;
  if (!ComputeExtents(comm, *a, es, &e)) {
    if (IsVKind(a->kind)) {
      return buffer_error(comm.Fail(
          weftInvalidArgument, "%s: the counts and displacements of %s span more than 2^48 bytes",
          fn, TypeName(a->type)));
    }
    return comm.Fail(weftInvalidArgument,
                     "%s: count %zu of %s overflows what a buffer can span (2^48 bytes)", fn,
                     a->count, TypeName(a->type));
  }
  if (e.send > 0 && a->send == nullptr) {
    return buffer_error(
        comm.Fail(weftInvalidArgument, "%s: sendbuff is NULL with count %zu", fn, a->count));
  }
  if (e.recv > 0 && a->recv == nullptr) {
    return buffer_error(
        comm.Fail(weftInvalidArgument, "%s: recvbuff is NULL with count %zu", fn, a->count));
  }
  if (e.send > 0 && e.recv > 0) {
    auto s = reinterpret_cast<uintptr_t>(a->send);
    auto r = reinterpret_cast<uintptr_t>(a->recv);
    if (s + e.send < s || r + e.recv < r) {
      return buffer_error(
          comm.Fail(weftInvalidArgument, "%s: a buffer wraps around the address space", fn));
    }
    const bool overlap = s < r + e.recv && r < s + e.send;
    if (overlap) {
      if (!IsInPlaceForm(comm, *a, es)) {
        return buffer_error(comm.Fail(
            weftInvalidArgument,
            "%s: sendbuff [%p, +%zu) and recvbuff [%p, +%zu) overlap but are not the in-place "
            "form",
            fn, a->send, e.send, static_cast<void*>(a->recv), e.recv));
      }
      a->in_place = true;
    }
  }
  return weftSuccess;
}

Status CheckArgsAgree(Comm& comm, const CollArgs& a, bool valid_here) {
  // max of v and max of -v give min and max at once; they agree iff every rank agrees.
  // A v-collective's counts differ by rank; CheckVCountsAgree checks them.
  const size_t count = IsVKind(a.kind) ? 0 : a.count;
  int64_t v[6] = {static_cast<int64_t>(a.kind),  static_cast<int64_t>(count),
                  static_cast<int64_t>(a.type),  UsesOp(a.kind) ? a.op : 0,
                  UsesRoot(a.kind) ? a.root : 0, valid_here ? 1 : 0};
  int64_t both[12];
  for (int i = 0; i < 6; ++i) {
    both[i] = v[i];
    both[6 + i] = -v[i];
  }
  int err = PMPI_Allreduce(MPI_IN_PLACE, both, 12, MPI_INT64_T, MPI_MAX, comm.mpi);
  if (err != MPI_SUCCESS) return comm.FailMpi(err, "WEFT_CHECK_ARGS: MPI_Allreduce");
  if (valid_here && -both[6 + 5] == 0) {  // the smallest "valid" is 0: a rank's check failed
    return comm.Fail(weftRemoteError,
                     "%s: another rank's arguments are invalid (its own error says which)",
                     CollApiName(a.kind));
  }
  static const char* kWhat[5] = {"operation", "count", "datatype", "op", "root"};
  for (int i = 0; i < 5; ++i) {
    if (both[i] != -both[6 + i]) {
      return comm.Fail(
          weftInvalidUsage,
          "%s: ranks disagree on the %s (this rank: %lld; range over ranks: %lld..%lld)",
          CollApiName(a.kind), kWhat[i], static_cast<long long>(v[i]),
          static_cast<long long>(-both[6 + i]), static_cast<long long>(both[i]));
    }
  }
  return weftSuccess;
}

}  // namespace weft
