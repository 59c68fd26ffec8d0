// MPI_Allgatherv with unequal counts, MPI_Gatherv and MPI_Scatterv (and their nonblocking forms)
// on weft's one-node mailbox schedules (weftAllGatherV, weftGatherV, weftScatterV). Served
// where every rank of the communicator is on one node with its segment (ServesOneNodeV: the
// same on every rank); elsewhere MPI's routine runs, after the served nonblocking calls on the
// communicator. What moves is bytes, so the choice needs nothing a rank's own datatype decides;
// each side is described as bytes by VSide (packed where its datatype is not contiguous).
#include <memory>
#include <vector>

#include "capi/interposer_hooks.h"
#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"
#include "shim_stats.h"
#include "shim_vside.h"

using namespace weft::shim;

namespace {

enum class VKind { kAllGatherV, kGatherV, kScatterV };

// A served call's sides and weft's arrays for them, kept until the call completes.
struct VCall {
  VKind kind = VKind::kAllGatherV;
  VSide in, out;  // send and receive sides; a side this rank does not have stays empty
  bool has_in = false, has_out = false;
  const char* src = nullptr;  // weft's sendbuff
  char* dst = nullptr;        // weft's recvbuff
  weftDataType_t type = weftUint8;
  size_t count = 0;  // this rank's own count (send for gathers, receive for scatterv)
  std::vector<size_t> counts, displs;  // the arrays (receive for gathers, send for scatterv)
  int root = 0;
  weftComm_t comm = nullptr;
};

// The arrays of one side of length n from VSide's bytes, in elements of es bytes.
void Arrays(const VSide& v, size_t es, VCall* c) {
  DivideInto(v.counts(), es, &c->counts);
  DivideInto(v.offsets(), es, &c->displs);
}

// Serve (a VCall, packed) or native (null). arrays/counts are the v side (receive for the
// gathers, send for scatterv), one/scalar the other side's single block. Sets *err on a packing
// error.
std::shared_ptr<VCall> PrepareV(VKind kind, const char* fn, bool nonblocking, const void* s,
                                MPI_Datatype st, void* r, MPI_Datatype rt, int one, const int* vc,
                                const int* vd, int root, MPI_Comm comm, int* err) {
  *err = MPI_SUCCESS;
  Fallback why;
  weftComm_t wc = CommFor(comm, &why, !nonblocking);
  if (wc == nullptr) {
    NoteFallback(why, fn);
    return nullptr;
  }
  if (!weft::ServesOneNodeV(wc)) {
    NoteFallback(kind == VKind::kAllGatherV ? Fallback::kUneven : Fallback::kMpiRoutine, fn);
    return nullptr;
  }
  int n = 0, me = 0;
  PMPI_Comm_size(comm, &n);
  PMPI_Comm_rank(comm, &me);
  const bool rooted = kind != VKind::kAllGatherV;
  const bool at_root = !rooted || me == root;
  // Which side holds the arrays, and whether this rank has each side: MPI_IN_PLACE is the
  // root's (rooted) or everyone's (allgatherv) and stands for the block already in place.
  const bool gathers = kind != VKind::kScatterV;
  const bool in_place = gathers ? s == MPI_IN_PLACE : r == MPI_IN_PLACE;
  std::shared_ptr<VCall> c = ReusableCall<VCall>(!nonblocking);
  c->kind = kind;
  c->root = rooted ? root : 0;
  c->comm = wc;
  const bool v_side = at_root;  // the arrays are significant here
  const bool one_side = !(in_place && at_root);
  TypeShape vshape, oshape;
  const MPI_Datatype vt = gathers ? rt : st, ot = gathers ? st : rt;
  if ((v_side && !DescribeType(vt, &vshape)) || (one_side && !DescribeType(ot, &oshape))) {
    NoteFallback(Fallback::kDatatype, fn);  // MPI reports an invalid handle
    return nullptr;
  }
  VSide& vs = gathers ? c->out : c->in;
  VSide& os = gathers ? c->in : c->out;
  const int zero = 0;
  if ((v_side && !vs.Init(gathers ? r : s, vc, vd, n, vt, vshape, comm, nonblocking)) ||
      (one_side && !os.Init(gathers ? s : r, &one, &zero, 1, ot, oshape, comm, nonblocking))) {
    // Negative or overflowing counts: an erroneous call, which MPI's routine reports as it
    // would without weft.
    NoteFallback(Fallback::kDatatype, fn);
    return nullptr;
  }
  CountCall(fn, true);
  (gathers ? c->has_out : c->has_in) = v_side;
  (gathers ? c->has_in : c->has_out) = one_side;
  // What the run reads: the send side, and in place the receive side (the block in place is in
  // it, and a packed copy must hold it).
  if (c->has_in && (*err = c->in.Pack()) != MPI_SUCCESS) return nullptr;
  if (gathers && in_place && (*err = c->out.Pack()) != MPI_SUCCESS) return nullptr;
  const size_t unit =
      (v_side ? vshape : oshape).basic != MPI_DATATYPE_NULL ? (v_side ? vshape : oshape).size : 1;
  size_t es = 1;
  c->type = ElementFor(
      {c->has_in ? &c->in.counts() : nullptr, c->has_in ? &c->in.offsets() : nullptr,
       c->has_out ? &c->out.counts() : nullptr, c->has_out ? &c->out.offsets() : nullptr},
      unit, &es);
  if (v_side) {
    Arrays(vs, es, c.get());
  } else {  // a reused call's arrays are another call's
    c->counts.clear();
    c->displs.clear();
  }
  if (gathers) {
    c->dst = c->has_out ? c->out.bytes() : nullptr;
    // In place, this rank's block is at its own displacement of the receive buffer.
    c->src = in_place ? c->out.bytes() + c->out.offsets()[me] : c->in.bytes();
    c->count = (in_place ? c->out.counts()[me] : c->in.counts()[0]) / es;
  } else {
    c->src = c->has_in ? c->in.bytes() : nullptr;
    c->dst = in_place ? c->in.bytes() + c->in.offsets()[me] : c->out.bytes();
    c->count = (in_place ? c->in.counts()[me] : c->out.counts()[0]) / es;
  }
  return c;
}

// The call on weft: blocking when request is null.
weftResult_t LaunchV(VCall& c, weftRequest_t* request) {
  const size_t* counts = c.counts.empty() ? nullptr : c.counts.data();
  const size_t* displs = c.displs.empty() ? nullptr : c.displs.data();
  switch (c.kind) {
    case VKind::kAllGatherV:
      return request
                 ? weftIAllGatherV(c.src, c.count, c.dst, counts, displs, c.type, c.comm, request)
                 : weftAllGatherV(c.src, c.count, c.dst, counts, displs, c.type, c.comm, nullptr);
    case VKind::kGatherV:
      return request ? weftIGatherV(c.src, c.count, c.dst, counts, displs, c.type, c.root, c.comm,
                                    request)
                     : weftGatherV(c.src, c.count, c.dst, counts, displs, c.type, c.root, c.comm,
                                   nullptr);
    case VKind::kScatterV:
      return request ? weftIScatterV(c.src, counts, displs, c.dst, c.count, c.type, c.root, c.comm,
                                     request)
                     : weftScatterV(c.src, counts, displs, c.dst, c.count, c.type, c.root, c.comm,
                                    nullptr);
  }
  return weftInternalError;
}

// Runs a prepared call; the receive side is unpacked when it completes.
int Serve(const std::shared_ptr<VCall>& c, const char* fn, MPI_Comm comm, MPI_Request* req) {
  weftRequest_t started = nullptr;
  const weftResult_t res = LaunchV(*c, req ? &started : nullptr);
  if (res != weftSuccess) return Finish(res, comm, fn);
  auto unpack = [c] { return c->has_out ? c->out.Unpack() : MPI_SUCCESS; };
  if (req == nullptr) return unpack();
  auto buf = std::make_shared<Buffers>();
  buf->unpack = unpack;  // holds both sides until completion
  return AddNonblocking(started, std::move(buf), comm, req);
}

}  // namespace

namespace weft::shim {

int UnequalAllGatherV(const void* s, int sn, MPI_Datatype st, void* r, const int rc[],
                      const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* req,
                      const NativeFn& native) {
  const char* fn = req ? "MPI_Iallgatherv" : "MPI_Allgatherv";
  int err = MPI_SUCCESS;
  auto c =
      PrepareV(VKind::kAllGatherV, fn, req != nullptr, s, st, r, rt, sn, rc, rd, 0, comm, &err);
  if (err != MPI_SUCCESS) return err;
  if (c == nullptr) return req ? native() : RunNative(comm, native);
  return Serve(c, fn, comm, req);
}

int GatherV(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
            MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req, const NativeFn& native) {
  const char* fn = req ? "MPI_Igatherv" : "MPI_Gatherv";
  int err = MPI_SUCCESS;
  auto c =
      PrepareV(VKind::kGatherV, fn, req != nullptr, s, st, r, rt, sn, rc, rd, root, comm, &err);
  if (err != MPI_SUCCESS) return err;
  if (c == nullptr) return req ? native() : RunNative(comm, native);
  return Serve(c, fn, comm, req);
}

int ScatterV(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r, int rn,
             MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req, const NativeFn& native) {
  const char* fn = req ? "MPI_Iscatterv" : "MPI_Scatterv";
  int err = MPI_SUCCESS;
  auto c =
      PrepareV(VKind::kScatterV, fn, req != nullptr, s, st, r, rt, rn, sc, sd, root, comm, &err);
  if (err != MPI_SUCCESS) return err;
  if (c == nullptr) return req ? native() : RunNative(comm, native);
  return Serve(c, fn, comm, req);
}

}  // namespace weft::shim

extern "C" {

int MPI_Gatherv(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
                MPI_Datatype rt, int root, MPI_Comm comm) {
  return Guard([&] {
    return GatherV(s, sn, st, r, rc, rd, rt, root, comm, nullptr,
                   [&] { return PMPI_Gatherv(s, sn, st, r, rc, rd, rt, root, comm); });
  });
}

int MPI_Igatherv(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return GatherV(s, sn, st, r, rc, rd, rt, root, comm, req,
                   [&] { return PMPI_Igatherv(s, sn, st, r, rc, rd, rt, root, comm, req); });
  });
}

int MPI_Scatterv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r, int rn,
                 MPI_Datatype rt, int root, MPI_Comm comm) {
  return Guard([&] {
    return ScatterV(s, sc, sd, st, r, rn, rt, root, comm, nullptr,
                    [&] { return PMPI_Scatterv(s, sc, sd, st, r, rn, rt, root, comm); });
  });
}

int MPI_Iscatterv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r, int rn,
                  MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return ScatterV(s, sc, sd, st, r, rn, rt, root, comm, req,
                    [&] { return PMPI_Iscatterv(s, sc, sd, st, r, rn, rt, root, comm, req); });
  });
}

}  // extern "C"
