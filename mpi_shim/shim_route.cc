// Serve or native, and the buffers a served call runs on. The choice uses only what every rank
// of the call shares: the communicator (and whether weft's setup worked on it, agreed when it
// was made), the op, and the type signature: its basic type and byte count. MPI lets ranks
// pass different datatypes of one signature (a vector on the root, MPI_INT elsewhere), so a
// rank's layout never decides; a layout with gaps is packed into a contiguous buffer instead.
#include <cstring>

#include "capi/interposer_hooks.h"
#include "core/dtype.h"
#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"
#include "shim_stats.h"

namespace weft::shim {
namespace {

bool IsReduction(Kind k) {
  return k == Kind::kAllreduce || k == Kind::kReduce || k == Kind::kReduceScatterBlock ||
         k == Kind::kReduceScatter || k == Kind::kScan || k == Kind::kExscan;
}

bool Mul(size_t a, size_t b, size_t* out) { return !__builtin_mul_overflow(a, b, out); }

int CommSize(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

int RankOf(weftComm_t c) {
  int rank = 0;
  weftCommUserRank(c, &rank);
  return rank;
}

// A call MPI must handle (and report, where the arguments are wrong): no decision of weft's.
Route Native(Fallback why, const char* fn) {
  NoteFallback(why, fn);
  return Route{};
}

// Serve-or-native for a reduction: the signature's one basic type must be one weft reduces and
// the op one weft has. Sets the element count and type.
bool RouteReduction(const CallArgs& a, const TypeShape& shape, Route* route, Fallback* why) {
  weftDataType_t t;
  weftRedOp_t o;
  if (shape.basic == MPI_DATATYPE_NULL || !ReductionType(shape.basic, &t)) {
    *why = Fallback::kDatatype;
    return false;
  }
  if (!ReductionOp(a.op, &o) || (a.op != MPI_SUM && SumOnly(shape.basic))) {
    *why = Fallback::kOp;
    return false;
  }
  const size_t per_element = shape.size / TypeSize(t);  // basic elements in one MPI element
  if (!Mul(a.scount, per_element, &route->count)) {
    *why = Fallback::kDatatype;
    return false;
  }
  route->type = t;
  route->op = o;
  return true;
}

// Lays out a served call's buffers. False on an element count that overflows.
bool Layout(const CallArgs& a, const TypeShape& sshape, const TypeShape& rshape, Route* route) {
  Buffers& b = *route->buf;
  const bool in_place = a.s == MPI_IN_PLACE;
  const size_t p = static_cast<size_t>(CommSize(a.comm));
  const int rank = RankOf(route->comm);
  const bool at_root = rank == a.root;
  size_t nr = a.rcount, ns = a.scount;  // elements on each side, in the user's datatypes
  switch (a.kind) {
    case Kind::kAllgather:
      if (!Mul(a.rcount, p, &nr)) return false;
      break;
    case Kind::kAlltoall:  // in place the send count is ignored (it may be -1)
      if (!Mul(a.rcount, p, &nr) || (!in_place && !Mul(a.scount, p, &ns))) return false;
      break;
    case Kind::kReduceScatterBlock:
      if (!Mul(a.scount, p, &ns)) return false;
      nr = in_place ? ns : a.scount;  // in place, the input fills the receive buffer
      break;
    case Kind::kReduceScatter:  // scount: the sum of the blocks
      nr = in_place ? ns : a.rcount;
      break;
    default:
      nr = a.scount;
  }
  const bool has_out = a.kind != Kind::kReduce || at_root;
  if (has_out && !b.out.Init(a.r, nr, a.rt, rshape, a.comm, !a.blocking)) return false;
  if (!in_place && a.kind != Kind::kBcast) {
    if (!b.in.Init(a.s, ns, a.st, sshape, a.comm, !a.blocking)) return false;
    b.pack_in = true;
  }
  b.dst = has_out ? b.out.bytes() : a.r;
  b.src = in_place ? b.out.bytes() : b.in.bytes();
  b.pack_out = in_place;
  b.unpack_out = has_out;
  switch (a.kind) {
    case Kind::kBcast:  // one buffer: the root's data goes out, the others' comes in
      b.src = b.dst;
      b.pack_out = at_root;
      b.unpack_out = !at_root;
      break;
    case Kind::kAllgather:
      if (in_place) b.src = b.out.bytes() + rank * route->count;
      break;
    case Kind::kReduceScatterBlock:
      if (in_place) {
        // MPI's in-place result goes to the start of the buffer; weft's to block `rank`.
        const size_t block = route->count * TypeSize(route->type);
        char* start = b.out.bytes();
        char* mine = start + rank * block;
        b.dst = mine;
        b.fix = [start, mine, block] {
          if (mine != start) std::memmove(start, mine, block);
        };
      }
      break;
    case Kind::kReduceScatter:
      if (in_place) {  // as above, block `rank` after the blocks before it
        const size_t es = TypeSize(route->type);
        size_t before = 0;
        for (int q = 0; q < rank; ++q) before += b.block_counts[q];
        char* start = b.out.bytes();
        char* mine = start + before * es;
        const size_t bytes = b.block_counts[rank] * es;
        b.dst = mine;
        b.fix = [start, mine, bytes] {
          if (mine != start) std::memmove(start, mine, bytes);
        };
      }
      break;
    default:
      break;
  }
  return true;
}

// Gather and scatter: only the root has the other side (P blocks), and MPI_IN_PLACE is the
// root's (gather: sendbuf; scatter: recvbuf). The block's bytes are what every rank shares: a
// gather's senders and a scatter's receivers know them from their own side, the root from its
// P-block side (MPI requires the signatures to match, so a root whose two sides differ is an
// erroneous call: MPI's routine reports it).
Route PrepareRootedMove(const CallArgs& a) {
  constexpr size_t kNegative = size_t{1} << 63;
  const bool gather = a.kind == Kind::kGather;
  // An inter-communicator's root and buffers mean other things (MPI_ROOT, the remote group):
  // decided before any of them is read.
  int inter = 0;
  if (PMPI_Comm_test_inter(a.comm, &inter) != MPI_SUCCESS) {
    return Native(Fallback::kSetupFailed, a.fn);  // an invalid communicator: MPI reports it
  }
  if (inter) return Native(Fallback::kInterComm, a.fn);
  const int size = CommSize(a.comm);
  int me = 0;
  PMPI_Comm_rank(a.comm, &me);
  if (a.root < 0 || a.root >= size) return Native(Fallback::kDatatype, a.fn);  // MPI reports it
  const bool at_root = me == a.root;
  const bool in_place = at_root && (gather ? a.s == MPI_IN_PLACE : a.r == MPI_IN_PLACE);
  // This rank's one-block side (absent at an in-place root) and the root's P-block side.
  const bool has_block = !in_place;
  const size_t block_count = gather ? a.scount : a.rcount;
  const MPI_Datatype block_type = gather ? a.st : a.rt;
  const size_t many_count = gather ? a.rcount : a.scount;
  const MPI_Datatype many_type = gather ? a.rt : a.st;
  TypeShape block_shape, many_shape;
  size_t block_bytes = 0, many_bytes = 0;
  if (has_block && ((block_count & kNegative) || !DescribeType(block_type, &block_shape) ||
                    !Mul(block_count, block_shape.size, &block_bytes))) {
    return Native(Fallback::kDatatype, a.fn);
  }
  if (at_root && ((many_count & kNegative) || !DescribeType(many_type, &many_shape) ||
                  !Mul(many_count, many_shape.size, &many_bytes))) {
    return Native(Fallback::kDatatype, a.fn);
  }
  if (at_root && has_block && block_bytes != many_bytes) return Native(Fallback::kMismatch, a.fn);
  Route route;
  route.count = has_block ? block_bytes : many_bytes;
  if (route.count == 0) {  // an empty signature on every rank
    CountCall(a.fn, true);
    route.empty = true;
    return route;
  }
  Fallback why = Fallback::kDatatype;
  route.comm = CommFor(a.comm, &why, !a.nonblocking);
  if (route.comm == nullptr) return Native(why, a.fn);
  route.buf = CallBuffers(a.blocking);
  Buffers& b = *route.buf;
  const size_t p = static_cast<size_t>(size);
  size_t many = 0;
  if (at_root && !Mul(many_count, p, &many)) return Native(Fallback::kDatatype, a.fn);
  // The block side: a gather's input (packed), a scatter's output (unpacked).
  PackedView& block_view = gather ? b.in : b.out;
  PackedView& many_view = gather ? b.out : b.in;
  if (has_block && !block_view.Init(gather ? a.s : a.r, block_count, block_type, block_shape,
                                    a.comm, !a.blocking)) {
    return Native(Fallback::kDatatype, a.fn);
  }
  if (at_root &&
      !many_view.Init(gather ? a.r : a.s, many, many_type, many_shape, a.comm, !a.blocking)) {
    return Native(Fallback::kDatatype, a.fn);
  }
  char* const own_block = at_root ? many_view.bytes() + me * route.count : nullptr;
  if (gather) {
    b.pack_in = has_block;
    b.pack_out = in_place;  // the root's own block is read from its receive buffer
    b.unpack_out = at_root;
    b.src = has_block ? b.in.bytes() : own_block;
    b.dst = at_root ? b.out.bytes() : nullptr;
  } else {
    b.pack_in = at_root;
    b.unpack_out = has_block;  // in place, the root's block stays where it is
    b.src = at_root ? b.in.bytes() : nullptr;
    b.dst = has_block ? b.out.bytes() : own_block;
  }
  CountCall(a.fn, true);
  return route;
}

}  // namespace

std::shared_ptr<Buffers> CallBuffers(bool blocking) {
  std::shared_ptr<Buffers> b = ReusableCall<Buffers>(blocking);
  b->pack_in = b->pack_out = b->unpack_out = false;
  b->src = nullptr;
  b->dst = nullptr;
  b->fix = nullptr;
  b->unpack = nullptr;
  b->then = nullptr;
  return b;
}

int Buffers::Before() {
  int rc = pack_in ? in.Pack() : MPI_SUCCESS;
  if (rc == MPI_SUCCESS && pack_out) rc = out.Pack();
  return rc;
}

int Buffers::After() {
  int rc = MPI_SUCCESS;
  if (unpack) {
    rc = unpack();
  } else {
    if (fix) fix();
    if (unpack_out) rc = out.Unpack();
  }
  return rc == MPI_SUCCESS && then ? then() : rc;
}

Route Prepare(const CallArgs& a) {
  if (a.kind == Kind::kGather || a.kind == Kind::kScatter) return PrepareRootedMove(a);
  // A negative int or MPI_Count arrives here with its top bit set: MPI's routine reports it.
  constexpr size_t kNegative = size_t{1} << 63;
  const bool in_place = a.s == MPI_IN_PLACE;
  const bool reduction = IsReduction(a.kind);
  // In place, allgather and alltoall ignore the send count and type (MPI_IN_PLACE, -1,
  // MPI_DATATYPE_NULL is common, as in MPICH's own tests), which then must not decide.
  const bool send_ignored = in_place && !reduction && a.kind != Kind::kBcast;
  if (((send_ignored ? 0 : a.scount) | a.rcount) & kNegative) {
    return Native(Fallback::kDatatype, a.fn);
  }
  // Reductions and Bcast have one datatype for both sides.
  const MPI_Datatype rt = reduction || a.kind == Kind::kBcast ? a.st : a.rt;
  CallArgs args = a;
  args.rt = rt;
  TypeShape sshape, rshape;
  if (!DescribeType(rt, &rshape)) return Native(Fallback::kDatatype, a.fn);  // MPI reports it
  const bool has_send = !in_place && !reduction && a.kind != Kind::kBcast;
  if (has_send && !DescribeType(a.st, &sshape)) return Native(Fallback::kDatatype, a.fn);
  if (!has_send) sshape = rshape;
  // Bytes each rank sends and receives per peer (movement) or in all (reductions): shared.
  size_t sbytes = 0, rbytes = 0;
  const size_t rcount = reduction || a.kind == Kind::kBcast ? a.scount : a.rcount;
  if (!Mul(has_send ? a.scount : rcount, sshape.size, &sbytes) ||
      !Mul(rcount, rshape.size, &rbytes)) {
    return Native(Fallback::kDatatype, a.fn);  // MPI reports the count
  }
  if (has_send && sbytes != rbytes) return Native(Fallback::kMismatch, a.fn);
  Route route;
  Fallback why = Fallback::kDatatype;
  if (reduction) {
    if (!RouteReduction(a, rshape, &route, &why)) return Native(why, a.fn);
  } else {
    route.count = rbytes;
  }
  if (rbytes == 0) {  // an empty signature on every rank: nothing to move or reduce
    CountCall(a.fn, true);
    route.empty = true;
    return route;
  }
  route.comm = CommFor(a.comm, &why, !a.nonblocking);
  if (route.comm == nullptr) return Native(why, a.fn);
  // Unequal blocks run compiled on one node only (ServesOneNodeV: the same on every rank).
  if (a.kind == Kind::kReduceScatter && !ServesOneNodeV(route.comm)) {
    return Native(Fallback::kUneven, a.fn);
  }
  route.buf = CallBuffers(a.blocking);
  if (a.kind == Kind::kReduceScatter) {
    const size_t per_element = route.count / a.scount;  // basic elements in one MPI element
    std::vector<size_t>& blocks = route.buf->block_counts;
    blocks.resize(static_cast<size_t>(CommSize(a.comm)));
    for (size_t q = 0; q < blocks.size(); ++q) {
      blocks[q] = static_cast<size_t>(a.counts[q]) * per_element;
    }
  }
  if (!Layout(args, sshape, rshape, &route)) return Native(Fallback::kDatatype, a.fn);
  CountCall(a.fn, true);
  return route;
}

weftResult_t Launch(const CallArgs& a, const Route& route, weftPlan_t* plan,
                    weftRequest_t* request) {
  const Buffers& b = *route.buf;
  const size_t n = route.count;
  weftComm_t c = route.comm;
  // One of three forms of each call: persistent (plan), nonblocking (request), blocking.
  switch (a.kind) {
    case Kind::kAllreduce:
      return plan      ? weftAllReduceInit(b.src, b.dst, n, route.type, route.op, c, plan)
             : request ? weftIAllReduce(b.src, b.dst, n, route.type, route.op, c, request)
                       : weftAllReduce(b.src, b.dst, n, route.type, route.op, c, nullptr);
    case Kind::kReduce:
      return plan      ? weftReduceInit(b.src, b.dst, n, route.type, route.op, a.root, c, plan)
             : request ? weftIReduce(b.src, b.dst, n, route.type, route.op, a.root, c, request)
                       : weftReduce(b.src, b.dst, n, route.type, route.op, a.root, c, nullptr);
    case Kind::kBcast:
      return plan      ? weftBroadcastInit(b.src, b.dst, n, weftUint8, a.root, c, plan)
             : request ? weftIBroadcast(b.src, b.dst, n, weftUint8, a.root, c, request)
                       : weftBroadcast(b.src, b.dst, n, weftUint8, a.root, c, nullptr);
    case Kind::kAllgather:
      return plan      ? weftAllGatherInit(b.src, b.dst, n, weftUint8, c, plan)
             : request ? weftIAllGather(b.src, b.dst, n, weftUint8, c, request)
                       : weftAllGather(b.src, b.dst, n, weftUint8, c, nullptr);
    case Kind::kAlltoall:
      return plan      ? weftAllToAllInit(b.src, b.dst, n, weftUint8, c, plan)
             : request ? weftIAllToAll(b.src, b.dst, n, weftUint8, c, request)
                       : weftAllToAll(b.src, b.dst, n, weftUint8, c, nullptr);
    case Kind::kReduceScatterBlock:
      return plan      ? weftReduceScatterInit(b.src, b.dst, n, route.type, route.op, c, plan)
             : request ? weftIReduceScatter(b.src, b.dst, n, route.type, route.op, c, request)
                       : weftReduceScatter(b.src, b.dst, n, route.type, route.op, c, nullptr);
    case Kind::kReduceScatter: {
      const size_t* counts = b.block_counts.data();
      return plan      ? weftInternalError  // MPI_Reduce_scatter_init is not intercepted
             : request ? weftIReduceScatterV(b.src, b.dst, counts, route.type, route.op, c, request)
                       : weftReduceScatterV(b.src, b.dst, counts, route.type, route.op, c, nullptr);
    }
    case Kind::kGather:
      return plan      ? weftInternalError  // no persistent gather is intercepted
             : request ? weftIGather(b.src, b.dst, n, weftUint8, a.root, c, request)
                       : weftGather(b.src, b.dst, n, weftUint8, a.root, c, nullptr);
    case Kind::kScatter:
      return plan      ? weftInternalError
             : request ? weftIScatter(b.src, b.dst, n, weftUint8, a.root, c, request)
                       : weftScatter(b.src, b.dst, n, weftUint8, a.root, c, nullptr);
    case Kind::kScan:
      return plan      ? weftInternalError  // no persistent scan is intercepted
             : request ? weftIScan(b.src, b.dst, n, route.type, route.op, c, request)
                       : weftScan(b.src, b.dst, n, route.type, route.op, c, nullptr);
    case Kind::kExscan:
      return plan      ? weftInternalError
             : request ? weftIExScan(b.src, b.dst, n, route.type, route.op, c, request)
                       : weftExScan(b.src, b.dst, n, route.type, route.op, c, nullptr);
  }
  return weftInternalError;
}

int Run(CallArgs a, const NativeFn& native, std::function<int()> then) {
  a.blocking = true;
  Route route = Prepare(a);
  if (route.empty) return MPI_SUCCESS;
  if (route.comm == nullptr) return RunNative(a.comm, native);
  route.buf->then = std::move(then);
  int rc = route.buf->Before();
  if (rc != MPI_SUCCESS) return rc;
  weftResult_t r = Launch(a, route, nullptr, nullptr);
  if (r != weftSuccess) return Finish(r, a.comm, a.fn);
  return route.buf->After();
}

int Post(CallArgs a, MPI_Request* req, const NativeFn& native, std::function<int()> then) {
  a.nonblocking = true;
  Route route = Prepare(a);
  if (route.empty) return CompletedRequest(req);
  if (route.comm == nullptr) return native();
  route.buf->then = std::move(then);
  int rc = route.buf->Before();  // the send side is packed now: MPI lets it change only after
  if (rc != MPI_SUCCESS) return rc;
  weftRequest_t started = nullptr;
  weftResult_t r = Launch(a, route, nullptr, &started);
  if (r != weftSuccess) return Finish(r, a.comm, a.fn);
  return AddNonblocking(started, route.buf, a.comm, req);
}

int RunNative(MPI_Comm comm, const NativeFn& native) {
  CompleteServedOn(comm);
  return native();
}

int Finish(weftResult_t r, MPI_Comm comm, const char* fn) {
  return r == weftSuccess ? MPI_SUCCESS : MpiErrorFrom(r, comm, fn);
}

}  // namespace weft::shim
