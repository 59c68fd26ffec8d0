// MPI_Alltoallv and MPI_Ialltoallv on weft (weftAllToAllV: the node-aware schedule where the ranks
// span nodes and the model picks it, else the native routine inside weft). Served whenever weft
// serves the communicator and both datatypes can be described: what moves is bytes, so the choice
// needs nothing a rank's own datatype decides. A side whose datatype is contiguous (dense, extent =
// size) runs on the user's buffer with byte displacements; any other layout is packed block by
// block into one contiguous buffer and unpacked after.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "capi/interposer_hooks.h"
#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"
#include "shim_stats.h"
#include "shim_vside.h"

using namespace weft::shim;

namespace {

// A served call's two sides and weft's arrays for them, kept until the call completes.
struct VCall {
  VSide in, out;
  bool in_place = false;
  weftDataType_t type = weftUint8;
  std::vector<size_t> scount, sdispl, rcount, rdispl;
  weftComm_t comm = nullptr;
};

// Serve (a VCall, packed) or native (null). The choice needs only the communicator: what moves
// is bytes. Sets *rc on a packing error.
std::shared_ptr<VCall> PrepareV(const char* fn, bool nonblocking, const void* s, const int* sc,
                                const int* sd, MPI_Datatype st, void* r, const int* rc,
                                const int* rd, MPI_Datatype rt, MPI_Comm comm, int* err) {
  *err = MPI_SUCCESS;
  std::shared_ptr<VCall> c = ReusableCall<VCall>(!nonblocking);
  c->in_place = s == MPI_IN_PLACE;
  TypeShape sshape, rshape;
  // Invalid handles are MPI's to report (every rank of a correct program passes valid ones).
  if (!DescribeType(rt, &rshape) || (!c->in_place && !DescribeType(st, &sshape))) {
    NoteFallback(Fallback::kDatatype, fn);
    return nullptr;
  }
  Fallback why;
  c->comm = CommFor(comm, &why);
  if (c->comm == nullptr) {
    NoteFallback(why, fn);
    return nullptr;
  }
  // Where weft would only call MPI's routine (one node, or the model keeps MPI's), the
  // interposer calls it directly: serving it cost 0.55-0.74x of MPI_Alltoallv from 64 B to
  // 4 KiB per rank at 2 ranks (WEFT_SCHEDULES=0 weft-bench alltoallv -b 8 -e 1M -f 8), for
  // nothing gained.
  if (!weft::ServesAllToAllV(c->comm, nonblocking, c->in_place)) {
    NoteFallback(Fallback::kMpiRoutine, fn);
    return nullptr;
  }
  int n = 0;
  PMPI_Comm_size(comm, &n);
  if (!c->out.Init(r, rc, rd, n, rt, rshape, comm, nonblocking) ||
      (!c->in_place && !c->in.Init(s, sc, sd, n, st, sshape, comm, nonblocking))) {
    // Negative or overflowing counts: an erroneous call, which MPI's routine reports as it
    // would without weft.
    NoteFallback(Fallback::kDatatype, fn);
    return nullptr;
  }
  CountCall(fn, true);
  VSide& send = c->in_place ? c->out : c->in;
  *err = send.Pack();
  if (*err != MPI_SUCCESS) return nullptr;
  size_t es = 1;
  const size_t unit = rshape.basic != MPI_DATATYPE_NULL ? rshape.size : 1;
  c->type =
      ElementFor({&send.counts(), &send.offsets(), &c->out.counts(), &c->out.offsets()}, unit, &es);
  DivideInto(send.counts(), es, &c->scount);
  DivideInto(send.offsets(), es, &c->sdispl);
  DivideInto(c->out.counts(), es, &c->rcount);
  DivideInto(c->out.offsets(), es, &c->rdispl);
  return c;
}

// The call on weft: blocking when request is null.
weftResult_t LaunchV(VCall& c, weftRequest_t* request) {
  const void* src = c.in_place ? c.out.bytes() : c.in.bytes();
  return request ? weftIAllToAllV(src, c.scount.data(), c.sdispl.data(), c.out.bytes(),
                                  c.rcount.data(), c.rdispl.data(), c.type, c.comm, request)
                 : weftAllToAllV(src, c.scount.data(), c.sdispl.data(), c.out.bytes(),
                                 c.rcount.data(), c.rdispl.data(), c.type, c.comm, nullptr);
}

}  // namespace

namespace weft::shim {

int AllToAllV(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r,
              const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* req,
              const NativeFn& native) {
  const char* fn = req ? "MPI_Ialltoallv" : "MPI_Alltoallv";
  int err = MPI_SUCCESS;
  std::shared_ptr<VCall> c = PrepareV(fn, req != nullptr, s, sc, sd, st, r, rc, rd, rt, comm, &err);
  if (err != MPI_SUCCESS) return err;
  if (c == nullptr) return req ? native() : RunNative(comm, native);
  weftRequest_t started = nullptr;
  const weftResult_t res = LaunchV(*c, req ? &started : nullptr);
  if (res != weftSuccess) return Finish(res, comm, fn);
  if (req == nullptr) return c->out.Unpack();
  auto buf = std::make_shared<Buffers>();
  buf->unpack = [c] { return c->out.Unpack(); };  // holds both sides until completion
  return AddNonblocking(started, std::move(buf), comm, req);
}

}  // namespace weft::shim

extern "C" {

int MPI_Alltoallv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  return Guard([&] {
    return AllToAllV(s, sc, sd, st, r, rc, rd, rt, comm, nullptr,
                     [&] { return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, comm); });
  });
}

int MPI_Ialltoallv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r,
                   const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request* req) {
  return Guard([&] {
    return AllToAllV(s, sc, sd, st, r, rc, rd, rt, comm, req,
                     [&] { return PMPI_Ialltoallv(s, sc, sd, st, r, rc, rd, rt, comm, req); });
  });
}

}  // extern "C"
