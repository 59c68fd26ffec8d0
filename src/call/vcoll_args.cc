#include "call/vcoll_args.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/dtype.h"

namespace weft {
namespace {

constexpr size_t kMaxBufferBytes = size_t{1} << 48;  // as ComputeExtents
constexpr size_t kMaxEntry = INT_MAX;                // MPI's int counts and displacements

std::vector<size_t> Copy(int n, const size_t* p) {
  return p == nullptr ? std::vector<size_t>() : std::vector<size_t>(p, p + n);
}

// The elements spanned by blocks (displs[i], counts[i]): the end of the farthest non-empty one.
bool Span(const std::vector<size_t>& counts, const std::vector<size_t>& displs, size_t* out) {
  size_t end = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    size_t e = 0;
    if (__builtin_add_overflow(displs[i], counts[i], &e)) return false;
    end = std::max(end, e);
  }
  *out = end;
  return true;
}

bool Bytes(size_t elems, size_t es, size_t* out) {
  return !__builtin_mul_overflow(elems, es, out) && *out <= kMaxBufferBytes;
}

// What this rank reads of the arrays.
struct Needs {
  bool send = false, recv = false;
};

Needs NeedsOf(const Comm& comm, const CollArgs& a) {
  const bool root = comm.rank == a.root;
  switch (a.kind) {
    case CollKind::kAllGatherV:
    case CollKind::kReduceScatterV:
      return {false, true};
    case CollKind::kAllToAllV:
      return {true, true};
    case CollKind::kGatherV:
      return {false, root};
    case CollKind::kScatterV:
      return {root, false};
    default:
      return {};
  }
}

// First index i with counts[i] or displs[i] past kMaxEntry, or -1.
int PastIntLimit(const std::vector<size_t>& counts, const std::vector<size_t>& displs) {
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > kMaxEntry || (i < displs.size() && displs[i] > kMaxEntry)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Two non-empty blocks that overlap, as indices (i, j), or (-1, -1).
std::pair<int, int> OverlappingBlocks(const std::vector<size_t>& counts,
                                      const std::vector<size_t>& displs) {
  std::vector<int> order;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) order.push_back(static_cast<int>(i));
  }
  std::sort(order.begin(), order.end(), [&](int x, int y) { return displs[x] < displs[y]; });
  for (size_t k = 1; k < order.size(); ++k) {
    const int p = order[k - 1], q = order[k];
    if (displs[p] + counts[p] > displs[q]) return {p, q};
  }
  return {-1, -1};
}

// The copied array a equals the caller's n entries at p (both absent, or the same values).
bool Same(const std::vector<size_t>& a, const size_t* p, int n) {
  if (p == nullptr || a.empty()) return p == nullptr && a.empty();
  return a.size() == static_cast<size_t>(n) && std::memcmp(a.data(), p, n * sizeof(size_t)) == 0;
}

size_t Prefix(const std::vector<size_t>& counts, int upto) {
  size_t sum = 0;
  for (int i = 0; i < upto; ++i) sum += counts[i];
  return sum;
}

}  // namespace

std::shared_ptr<const VCounts> CopyVCounts(int n, const size_t* send_counts,
                                           const size_t* send_displs, const size_t* recv_counts,
                                           const size_t* recv_displs) {
  auto v = std::make_shared<VCounts>();
  v->send_counts = Copy(n, send_counts);
  v->send_displs = Copy(n, send_displs);
  v->recv_counts = Copy(n, recv_counts);
  v->recv_displs = Copy(n, recv_displs);
  size_t h = static_cast<size_t>(n);
  for (const std::vector<size_t>* a :
       {&v->send_counts, &v->send_displs, &v->recv_counts, &v->recv_displs}) {
    h = h * 0x100000001b3ull ^ a->size();
    for (size_t x : *a) h = (h ^ x) * 0x100000001b3ull;  // FNV-1a over whole entries
  }
  v->digest = h;
  return v;
}

std::shared_ptr<const VCounts> VCountsFor(Comm& comm, const size_t* send_counts,
                                          const size_t* send_displs, const size_t* recv_counts,
                                          const size_t* recv_displs) {
  const std::shared_ptr<const VCounts>& last = comm.last_vcounts;
  if (last != nullptr && Same(last->send_counts, send_counts, comm.size) &&
      Same(last->send_displs, send_displs, comm.size) &&
      Same(last->recv_counts, recv_counts, comm.size) &&
      Same(last->recv_displs, recv_displs, comm.size)) {
    return last;
  }
  comm.last_vcounts = CopyVCounts(comm.size, send_counts, send_displs, recv_counts, recv_displs);
  return comm.last_vcounts;
}

Status ValidateVArrays(Comm& comm, CollArgs* a) {
  const char* fn = CollApiName(a->kind);
  if (a->v == nullptr) return comm.Fail(weftInternalError, "%s: no count arrays", fn);
  const VCounts& v = *a->v;
  // What the checks below depend on besides the arrays (and this communicator, whose arrays
  // these are): the kind, the root (which arrays a rank reads) and the scalar count.
  const bool memo = a->root >= 0 && a->root < (1 << 23) && a->count <= kMaxEntry;
  const uint64_t key = memo ? 1 + static_cast<uint64_t>(a->kind) +
                                  (static_cast<uint64_t>(a->root) << 8) +
                                  (static_cast<uint64_t>(a->count) << 32)
                            : 0;
  if (key != 0 && v.passed.load(std::memory_order_relaxed) == key) {
    if (a->kind == CollKind::kReduceScatterV) a->count = v.recv_counts[comm.rank];
    return weftSuccess;
  }
  const Needs need = NeedsOf(comm, *a);
  const bool displs = a->kind != CollKind::kReduceScatterV;  // its blocks follow each other
  const bool send_named = a->kind == CollKind::kAllToAllV;   // MPI's sdispls/rdispls names
  const char* sc = "sendcounts";
  const char* sd = send_named ? "sdispls" : "displs";
  const char* rc = "recvcounts";
  const char* rd = send_named ? "rdispls" : "displs";
  if (need.send && v.send_counts.empty())
    return comm.Fail(weftInvalidArgument, "%s: %s is NULL", fn, sc);
  if (need.send && v.send_displs.empty())
    return comm.Fail(weftInvalidArgument, "%s: %s is NULL", fn, sd);
  if (need.recv && v.recv_counts.empty())
    return comm.Fail(weftInvalidArgument, "%s: %s is NULL", fn, rc);
  if (need.recv && displs && v.recv_displs.empty()) {
    return comm.Fail(weftInvalidArgument, "%s: %s is NULL", fn, rd);
  }
  if (a->count > kMaxEntry) {
    return comm.Fail(weftInvalidArgument,
                     "%s: count %zu is past 2^31-1 elements (MPI's int counts)", fn, a->count);
  }
  int bad = need.send ? PastIntLimit(v.send_counts, v.send_displs) : -1;
  if (bad < 0 && need.recv) bad = PastIntLimit(v.recv_counts, v.recv_displs);
  if (bad >= 0) {
    return comm.Fail(weftInvalidArgument,
                     "%s: the counts or displacements of rank %d are past 2^31-1 elements (MPI's "
                     "int counts)",
                     fn, bad);
  }
  // This rank's own block is described twice: once by the scalar count, once by the arrays.
  const int me = comm.rank;
  switch (a->kind) {
    case CollKind::kAllGatherV:
    case CollKind::kGatherV:
      if (need.recv && v.recv_counts[me] != a->count) {
        return comm.Fail(weftInvalidArgument,
                         "%s: recvcounts[%d] = %zu but this rank's sendcount is %zu", fn, me,
                         v.recv_counts[me], a->count);
      }
      break;
    case CollKind::kScatterV:
      if (need.send && v.send_counts[me] != a->count) {
        return comm.Fail(weftInvalidArgument,
                         "%s: sendcounts[%d] = %zu but this rank's recvcount is %zu", fn, me,
                         v.send_counts[me], a->count);
      }
      break;
    case CollKind::kAllToAllV:
      if (v.send_counts[me] != v.recv_counts[me]) {
        return comm.Fail(weftInvalidArgument,
                         "%s: sendcounts[%d] = %zu but recvcounts[%d] = %zu (this rank's block "
                         "to itself)",
                         fn, me, v.send_counts[me], me, v.recv_counts[me]);
      }
      break;
    case CollKind::kReduceScatterV:
      a->count = v.recv_counts[me];
      break;
    default:
      break;
  }
  if (need.recv && displs) {
    const auto [p, q] = OverlappingBlocks(v.recv_counts, v.recv_displs);
    if (p >= 0) {
      return comm.Fail(weftInvalidArgument,
                       "%s: the blocks received from ranks %d and %d overlap in recvbuff (%s)", fn,
                       p, q, rd);
    }
  }
  v.passed.store(key, std::memory_order_relaxed);
  return weftSuccess;
}

bool ComputeVExtents(const Comm& comm, const CollArgs& a, size_t es, Extents* e) {
  const VCounts& v = *a.v;
  const Needs need = NeedsOf(comm, a);
  size_t send = 0, recv = 0, own = 0;
  if (!Bytes(a.count, es, &own)) return false;
  size_t span = 0;
  switch (a.kind) {
    case CollKind::kAllGatherV:
    case CollKind::kGatherV:
      send = own;
      if (need.recv && !(Span(v.recv_counts, v.recv_displs, &span) && Bytes(span, es, &recv))) {
        return false;
      }
      break;
    case CollKind::kScatterV:
      recv = own;
      if (need.send && !(Span(v.send_counts, v.send_displs, &span) && Bytes(span, es, &send))) {
        return false;
      }
      break;
    case CollKind::kAllToAllV:
      if (!(Span(v.send_counts, v.send_displs, &span) && Bytes(span, es, &send))) return false;
      if (!(Span(v.recv_counts, v.recv_displs, &span) && Bytes(span, es, &recv))) return false;
      break;
    case CollKind::kReduceScatterV:
      recv = own;
      for (size_t c : v.recv_counts) {
        if (__builtin_add_overflow(span, c, &span)) return false;
      }
      if (!Bytes(span, es, &send)) return false;
      break;
    default:
      return false;
  }
  *e = {send, recv};
  return true;
}

bool IsInPlaceVForm(const Comm& comm, const CollArgs& a, size_t es) {
  const VCounts& v = *a.v;
  auto s = reinterpret_cast<uintptr_t>(a.send);
  auto r = reinterpret_cast<uintptr_t>(a.recv);
  const int me = comm.rank;
  switch (a.kind) {
    case CollKind::kAllGatherV:
      return s == r + v.recv_displs[me] * es;
    case CollKind::kGatherV:
      return me == a.root && s == r + v.recv_displs[me] * es;
    case CollKind::kScatterV:
      return me == a.root && r == s + v.send_displs[me] * es;
    case CollKind::kReduceScatterV:
      return r == s + Prefix(v.recv_counts, me) * es;
    case CollKind::kAllToAllV:
      return s == r && v.send_counts == v.recv_counts && v.send_displs == v.recv_displs;
    default:
      return false;
  }
}

Status CheckVCountsAgree(Comm& comm, const CollArgs& a) {
  const VCounts& v = *a.v;
  const int n = comm.size, me = comm.rank;
  static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as uint64");
  std::vector<uint64_t> got(n, 0);
  int e = MPI_SUCCESS;
  int bad_peer = -1;    // a peer whose count disagrees with this rank's array
  uint64_t expect = 0;  // ScatterV: what the root's sendcounts say this rank receives
  switch (a.kind) {
    case CollKind::kAllGatherV: {
      const uint64_t mine = a.count;
      e = PMPI_Allgather(&mine, 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T, comm.mpi);
      for (int i = 0; i < n && e == MPI_SUCCESS; ++i) {
        if (got[i] != v.recv_counts[i]) bad_peer = i;
      }
      break;
    }
    case CollKind::kAllToAllV:
      e = PMPI_Alltoall(v.send_counts.data(), 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T,
                        comm.mpi);
      for (int i = 0; i < n && e == MPI_SUCCESS; ++i) {
        if (got[i] != v.recv_counts[i]) bad_peer = i;
      }
      break;
    case CollKind::kGatherV: {
      const uint64_t mine = a.count;
      e = PMPI_Gather(&mine, 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T, a.root, comm.mpi);
      for (int i = 0; i < n && e == MPI_SUCCESS && me == a.root; ++i) {
        if (got[i] != v.recv_counts[i]) bad_peer = i;
      }
      break;
    }
    case CollKind::kScatterV: {
      e = PMPI_Scatter(v.send_counts.empty() ? nullptr : v.send_counts.data(), 1, MPI_UINT64_T,
                       &expect, 1, MPI_UINT64_T, a.root, comm.mpi);
      if (e == MPI_SUCCESS && expect != a.count) bad_peer = a.root;
      break;
    }
    case CollKind::kReduceScatterV: {
      // max of c and of -c over ranks give the range of every entry at once.
      std::vector<int64_t> both(2 * n);
      for (int i = 0; i < n; ++i) {
        both[i] = static_cast<int64_t>(v.recv_counts[i]);
        both[n + i] = -both[i];
      }
      e = PMPI_Allreduce(MPI_IN_PLACE, both.data(), 2 * n, MPI_INT64_T, MPI_MAX, comm.mpi);
      for (int i = 0; i < n && e == MPI_SUCCESS; ++i) {
        if (both[i] != -both[n + i]) bad_peer = i;
      }
      break;
    }
    default:
      return weftSuccess;
  }
  if (e != MPI_SUCCESS) return comm.FailMpi(e, "WEFT_CHECK_ARGS: exchanging counts");
  int any = bad_peer >= 0 ? 1 : 0;
  e = PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm.mpi);
  if (e != MPI_SUCCESS) return comm.FailMpi(e, "WEFT_CHECK_ARGS: agreeing on counts");
  const char* fn = CollApiName(a.kind);
  if (bad_peer >= 0) {
    if (a.kind == CollKind::kReduceScatterV) {
      return comm.Fail(weftInvalidUsage, "%s: ranks disagree on recvcounts[%d]", fn, bad_peer);
    }
    if (a.kind == CollKind::kScatterV) {
      return comm.Fail(weftInvalidUsage,
                       "%s: root %d sends this rank (%d) %llu elements but its recvcount is %zu",
                       fn, a.root, me, static_cast<unsigned long long>(expect), a.count);
    }
    return comm.Fail(weftInvalidUsage,
                     "%s: rank %d sends %llu elements to this rank (%d) but recvcounts[%d] = %zu",
                     fn, bad_peer, static_cast<unsigned long long>(got[bad_peer]), me, bad_peer,
                     v.recv_counts[bad_peer]);
  }
  if (any) {
    return comm.Fail(weftRemoteError,
                     "%s: another rank's counts do not match what this rank sends (its own error "
                     "says which)",
                     fn);
  }
  return weftSuccess;
}

}  // namespace weft
