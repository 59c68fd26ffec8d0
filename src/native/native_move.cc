// Broadcast, AllGather, AllToAll, Gather, Scatter, Barrier, Send and Recv on native MPI. Data moves
// as bytes: pieces of at most WEFT_NATIVE_CHUNK_BYTES for Broadcast and point-to-point, and one
// derived datatype of the exact block size for AllGather/AllToAll blocks past MPI's int counts.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "core/dtype.h"
#include "native/native_colls.h"

namespace weft {
namespace {

constexpr int kP2PTag = 0x7e;  // weft's own communicator: cannot collide with the user's tags

// `bytes` contiguous bytes as (count, type) with an int count.
struct ByteSpan {
  int count;
  MPI_Datatype type;
};

int MakeByteSpan(NativeProgram* p, size_t bytes, ByteSpan* out) {
  const size_t piece = NativeChunkElems(1);
  if (bytes <= piece) {
    *out = {static_cast<int>(bytes), MPI_BYTE};
    return MPI_SUCCESS;
  }
  const size_t q = bytes / piece, rem = bytes % piece;
  MPI_Datatype piece_t, body, whole = MPI_DATATYPE_NULL, sized;
  int e = PMPI_Type_contiguous(static_cast<int>(piece), MPI_BYTE, &piece_t);
  if (e) return e;
  e = PMPI_Type_contiguous(static_cast<int>(q), piece_t, &body);
  PMPI_Type_free(&piece_t);
  if (e) return e;
  if (rem == 0) {
    whole = body;
  } else {
    MPI_Datatype tail;
    if ((e = PMPI_Type_contiguous(static_cast<int>(rem), MPI_BYTE, &tail))) return e;
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(q * piece)};
    MPI_Datatype types[2] = {body, tail};
    e = PMPI_Type_create_struct(2, lens, displs, types, &whole);
    PMPI_Type_free(&tail);
    PMPI_Type_free(&body);
    if (e) return e;
  }
  e = PMPI_Type_create_resized(whole, 0, static_cast<MPI_Aint>(bytes), &sized);
  PMPI_Type_free(&whole);
  if (e) return e;
  if ((e = PMPI_Type_commit(&sized))) return e;
  p->Own(sized);
  *out = {1, sized};
  return MPI_SUCCESS;
}

void AddBroadcast(Comm& comm, const CollArgs& a, size_t bytes, NativeProgram* p) {
  const size_t piece = NativeChunkElems(1);
  MPI_Comm mc = comm.mpi;
  const int root = a.root;
  for (size_t off = 0; off < bytes; off += piece) {
    NativeStep s;
    s.what = "MPI_Bcast";
    const int n = static_cast<int>(std::min(piece, bytes - off));
    if (off == 0 && comm.rank == root && !a.in_place) {
      s.before = [=](const Bind& b) { std::memcpy(b.recv, b.send, bytes); };
    }
    s.call = [=](const Bind& b, MPI_Request* r) {
      char* buf = b.recv + off;
      return r ? PMPI_Ibcast(buf, n, MPI_BYTE, root, mc, r)
               : PMPI_Bcast(buf, n, MPI_BYTE, root, mc);
    };
    p->steps.push_back(std::move(s));
  }
}

void AddPointToPoint(Comm& comm, const CollArgs& a, size_t bytes, NativeProgram* p) {
  const size_t piece = NativeChunkElems(1);
  MPI_Comm mc = comm.mpi;
  const int peer = a.root;
  const bool is_send = a.kind == CollKind::kSend;
  p->point_to_point = true;
  for (size_t off = 0; off < bytes; off += piece) {
    NativeStep s;
    s.what = is_send ? "MPI_Send" : "MPI_Recv";
    const int n = static_cast<int>(std::min(piece, bytes - off));
    s.call = [=](const Bind& b, MPI_Request* r) {
      if (is_send) {
        const char* sb = b.send + off;
        return r ? PMPI_Isend(sb, n, MPI_BYTE, peer, kP2PTag, mc, r)
                 : PMPI_Send(sb, n, MPI_BYTE, peer, kP2PTag, mc);
      }
      char* rb = b.recv + off;
      return r ? PMPI_Irecv(rb, n, MPI_BYTE, peer, kP2PTag, mc, r)
               : PMPI_Recv(rb, n, MPI_BYTE, peer, kP2PTag, mc, MPI_STATUS_IGNORE);
    };
    p->steps.push_back(std::move(s));
  }
}

Status AddBlockExchange(Comm& comm, const CollArgs& a, size_t bytes, NativeProgram* p) {
  ByteSpan span;
  int e = MakeByteSpan(p, bytes, &span);
  if (e != MPI_SUCCESS) return comm.FailMpi(e, "building a datatype for a large block");
  MPI_Comm mc = comm.mpi;
  const bool gather = a.kind == CollKind::kAllGather;
  const bool in_place = a.in_place;
  NativeStep s;
  s.what = gather ? "MPI_Allgather" : "MPI_Alltoall";
  s.call = [=](const Bind& b, MPI_Request* r) {
    const void* sb = in_place ? MPI_IN_PLACE : b.send;
    void* rb = b.recv;
    if (gather) {
      return r ? PMPI_Iallgather(sb, span.count, span.type, rb, span.count, span.type, mc, r)
               : PMPI_Allgather(sb, span.count, span.type, rb, span.count, span.type, mc);
    }
    return r ? PMPI_Ialltoall(sb, span.count, span.type, rb, span.count, span.type, mc, r)
             : PMPI_Alltoall(sb, span.count, span.type, rb, span.count, span.type, mc);
  };
  p->steps.push_back(std::move(s));
  return weftSuccess;
}

// Gather and Scatter: one block per rank, MPI_IN_PLACE for the root's own block in place.
Status AddRootedBlock(Comm& comm, const CollArgs& a, size_t bytes, NativeProgram* p) {
  ByteSpan span;
  int e = MakeByteSpan(p, bytes, &span);
  if (e != MPI_SUCCESS) return comm.FailMpi(e, "building a datatype for a large block");
  MPI_Comm mc = comm.mpi;
  const bool gather = a.kind == CollKind::kGather;
  const bool in_place = a.in_place;  // only ever at the root
  const int root = a.root;
  NativeStep s;
  s.what = gather ? "MPI_Gather" : "MPI_Scatter";
  s.call = [=](const Bind& b, MPI_Request* r) {
    const int n = span.count;
    const MPI_Datatype t = span.type;
    if (gather) {
      const void* sb = in_place ? MPI_IN_PLACE : b.send;
      return r ? PMPI_Igather(sb, n, t, b.recv, n, t, root, mc, r)
               : PMPI_Gather(sb, n, t, b.recv, n, t, root, mc);
    }
    void* rb = in_place ? MPI_IN_PLACE : b.recv;
    return r ? PMPI_Iscatter(b.send, n, t, rb, n, t, root, mc, r)
             : PMPI_Scatter(b.send, n, t, rb, n, t, root, mc);
  };
  p->steps.push_back(std::move(s));
  return weftSuccess;
}

}  // namespace

Status BuildNativeMovement(Comm& comm, const CollArgs& a, NativeProgram* p) {
  const size_t bytes = a.count * TypeSize(a.type);
  switch (a.kind) {
    case CollKind::kBroadcast:
      AddBroadcast(comm, a, bytes, p);
      break;
    case CollKind::kSend:
    case CollKind::kRecv:
      AddPointToPoint(comm, a, bytes, p);
      break;
    case CollKind::kAllGather:
    case CollKind::kAllToAll:
      if (bytes > 0) WEFT_CHECK(AddBlockExchange(comm, a, bytes, p));
      break;
    case CollKind::kGather:
    case CollKind::kScatter:
      if (bytes > 0) WEFT_CHECK(AddRootedBlock(comm, a, bytes, p));
      break;
    case CollKind::kBarrier: {
      MPI_Comm mc = comm.mpi;
      NativeStep s;
      s.what = "MPI_Barrier";
      s.call = [=](const Bind&, MPI_Request* r) {
        return r ? PMPI_Ibarrier(mc, r) : PMPI_Barrier(mc);
      };
      p->steps.push_back(std::move(s));
      break;
    }
    default:
      return comm.Fail(weftInternalError, "BuildNativeMovement: not a data movement");
  }
  p->note = "moves bytes";
  return weftSuccess;
}

}  // namespace weft
