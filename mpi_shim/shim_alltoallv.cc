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

using namespace weft::shim;

namespace {

// One side of the call (send or receive) as contiguous bytes.
class VSide {
 public:
  // counts and displs in the user's datatype. False on sizes that overflow. keep: hold a
  // duplicate of a derived t for packing and unpacking after the call returns (nonblocking).
  bool Init(const void* buf, const int* counts, const int* displs, int n, MPI_Datatype t,
            const TypeShape& shape, MPI_Comm comm, bool keep) {
    user_ = static_cast<char*>(const_cast<void*>(buf));
    type_ = t;
    shape_ = shape;
    comm_ = comm;
    direct_ = shape.dense && static_cast<size_t>(shape.extent) == shape.size && shape.true_lb >= 0;
    size_t packed = 0;
    for (int j = 0; j < n; ++j) {
      if (counts[j] < 0 || displs[j] < 0) return false;
      const size_t c = static_cast<size_t>(counts[j]);
      size_t bytes = 0, at = 0;
      if (__builtin_mul_overflow(c, shape.size, &bytes)) return false;
      if (direct_) {
        if (__builtin_mul_overflow(static_cast<size_t>(displs[j]), shape.size, &at) ||
            __builtin_add_overflow(at, static_cast<size_t>(shape.true_lb), &at)) {
          return false;
        }
      } else {
        at = packed;
        if (__builtin_add_overflow(packed, bytes, &packed)) return false;
      }
      counts_.push_back(bytes);
      offsets_.push_back(at);
      user_displs_.push_back(displs[j]);
      user_counts_.push_back(counts[j]);
    }
    if (!direct_) {
      // Unpacked at completion: the program may have freed a derived type by then.
      if (keep) type_ = KeepType(t, &owned_);
      temp_.assign(std::max<size_t>(packed, 1), 0);
    }
    return true;
  }
  char* bytes() { return direct_ ? user_ : temp_.data(); }
  const std::vector<size_t>& counts() const { return counts_; }
  const std::vector<size_t>& offsets() const { return offsets_; }
  int Pack() { return Move(true); }
  int Unpack() { return Move(false); }

 private:
  int Move(bool pack) {
    if (direct_) return MPI_SUCCESS;
    for (size_t j = 0; j < counts_.size(); ++j) {
      if (counts_[j] == 0) continue;
      PackedView v;
      char* block = user_ + static_cast<MPI_Aint>(user_displs_[j]) * shape_.extent;
      if (!v.Init(block, user_counts_[j], type_, shape_, comm_, false)) return MPI_ERR_COUNT;
      char* at = temp_.data() + offsets_[j];
      if (!pack) std::memcpy(v.bytes(), at, counts_[j]);
      const int rc = pack ? v.Pack() : v.Unpack();
      if (rc != MPI_SUCCESS) return rc;
      if (pack) std::memcpy(at, v.bytes(), counts_[j]);
    }
    return MPI_SUCCESS;
  }
  char* user_ = nullptr;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;  // the program's, or owned_'s
  OwnedType owned_;
  TypeShape shape_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool direct_ = true;
  std::vector<size_t> counts_, offsets_;  // bytes
  std::vector<int> user_displs_, user_counts_;
  std::vector<char> temp_;
};

// weft's element for these byte counts: bytes while every value fits MPI's int (what weft's
// v-calls take), else elements of `unit` bytes where every value divides.
weftDataType_t ElementFor(const std::vector<const std::vector<size_t>*>& all, size_t unit,
                          size_t* es) {
  size_t top = 0;
  bool divides = unit > 1;
  for (const auto* v : all) {
    for (size_t x : *v) {
      top = std::max(top, x);
      divides = divides && x % unit == 0;
    }
  }
  *es = 1;
  if (top <= static_cast<size_t>(INT_MAX) || !divides) return weftUint8;
  *es = unit;
  switch (unit) {
    case 2:
      return weftFloat16;  // moved, never converted
    case 4:
      return weftUint32;
    case 8:
      return weftUint64;
    default:
      *es = 1;
      return weftUint8;
  }
}

std::vector<size_t> Divided(const std::vector<size_t>& v, size_t es) {
  std::vector<size_t> out(v);
  for (size_t& x : out) x /= es;
  return out;
}

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
  auto c = std::make_shared<VCall>();
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
  c->scount = Divided(send.counts(), es);
  c->sdispl = Divided(send.offsets(), es);
  c->rcount = Divided(c->out.counts(), es);
  c->rdispl = Divided(c->out.offsets(), es);
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
