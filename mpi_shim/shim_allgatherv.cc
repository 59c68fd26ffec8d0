// MPI_Allgatherv and MPI_Iallgatherv with equal counts run as weft's allgather; unequal counts
// run weft's allgatherv on one node and MPI's routine across nodes (shim_vcolls.cc). The choice
// is shared: recvcounts is significant on every rank and each
// entry's bytes match rank j's send signature everywhere, so entries equal in one rank's
// receive type are equal in every rank's. The displacements are this rank's layout alone: where
// they are not the allgather's (block j at j x count), this rank gathers into a contiguous
// buffer and moves each block to its displacement after, so every rank still runs the same
// collective.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "shim_colls.h"
#include "shim_requests.h"
#include "shim_state.h"
#include "shim_stats.h"

using namespace weft::shim;

namespace {

bool EqualCounts(const int* counts, int n) {
  for (int j = 1; j < n; ++j) {
    if (counts[j] != counts[0]) return false;
  }
  return n > 0 && counts[0] >= 0;
}

bool AllgatherLayout(const int* displs, int count, int n) {
  for (int j = 0; j < n; ++j) {
    if (static_cast<long long>(displs[j]) != static_cast<long long>(j) * count) return false;
  }
  return true;
}

// The gathered blocks in signature order, and where this rank's layout wants each.
struct Scattered {
  std::vector<char> bytes;
  size_t block = 0;  // bytes of one rank's block
  void* r = nullptr;
  std::vector<int> displs;
  int count = 0;
  MPI_Datatype rt = MPI_DATATYPE_NULL;  // the program's, or owned's
  OwnedType owned;  // nonblocking, placed at completion: the program may have freed rt by then
  MPI_Aint extent = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  // Moves block j to r + displs[j] elements (MPI's unpacking: the datatype's gaps stay as they
  // are). MPI error code.
  int Place() {
    for (size_t j = 0; j < displs.size(); ++j) {
      int pos = static_cast<int>(j * block);
      char* at = static_cast<char*>(r) + static_cast<MPI_Aint>(displs[j]) * extent;
      const int rc =
          PMPI_Unpack(bytes.data(), static_cast<int>(bytes.size()), &pos, at, count, rt, comm);
      if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
  }
};

// The allgather the call is, for this rank's layout; *place set where the blocks must be moved
// after the run. False: the call goes to MPI (the same on every rank).
bool AsAllgather(const char* fn, bool blocking, const void* s, int sn, MPI_Datatype st, void* r,
                 const int* rc, const int* rd, MPI_Datatype rt, MPI_Comm comm, CallArgs* a,
                 std::shared_ptr<Scattered>* place) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  const int count = rc[0];
  // Decided from what every rank shares (the datatypes' signatures, the bytes per rank),
  // whatever this rank's layout: a rank that went to MPI alone would leave the others waiting.
  TypeShape rshape, sshape;
  if (!DescribeType(rt, &rshape) || (s != MPI_IN_PLACE && !DescribeType(st, &sshape))) {
    NoteFallback(Fallback::kDatatype, fn);  // MPI reports an invalid handle
    return false;
  }
  size_t block = 0, total = 0;
  if (__builtin_mul_overflow(static_cast<size_t>(count), rshape.size, &block) ||
      __builtin_mul_overflow(block, static_cast<size_t>(n), &total) || total > INT32_MAX) {
    NoteFallback(Fallback::kDatatype, fn);  // past what MPI_Unpack takes: MPI's routine
    return false;
  }
  *a = {Kind::kAllgather, fn, s, r, size_t(sn), st, size_t(count), rt, MPI_OP_NULL, 0, comm};
  if (AllgatherLayout(rd, count, n)) return true;
  auto p = std::make_shared<Scattered>();
  p->bytes.assign(total, 0);
  p->block = block;
  p->r = r;
  p->displs.assign(rd, rd + n);
  p->count = count;
  p->rt = blocking ? rt : KeepType(rt, &p->owned);
  p->extent = rshape.extent;
  p->comm = comm;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  // In place, this rank's block is at its own displacement: it is the send side.
  const void* send = s == MPI_IN_PLACE ? static_cast<char*>(r) + rd[rank] * rshape.extent : s;
  const int scount = s == MPI_IN_PLACE ? count : sn;
  const MPI_Datatype stype = s == MPI_IN_PLACE ? rt : st;
  *a = {Kind::kAllgather, fn, send, p->bytes.data(), size_t(scount), stype, block, MPI_BYTE,
        MPI_OP_NULL,      0,  comm};
  *place = std::move(p);
  return true;
}

// What runs after the allgather: nothing where this rank's layout is the allgather's, else
// the blocks to their displacements (holding the buffer until then).
std::function<int()> Placing(const std::shared_ptr<Scattered>& place) {
  if (place == nullptr) return {};
  return [place] { return place->Place(); };
}

}  // namespace

namespace weft::shim {

int AllGatherV(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
               MPI_Datatype rt, MPI_Comm comm, MPI_Request* req, const NativeFn& native) {
  CallArgs a{};
  std::shared_ptr<Scattered> place;
  const char* fn = req ? "MPI_Iallgatherv" : "MPI_Allgatherv";
  int n = 0;
  PMPI_Comm_size(comm, &n);
  if (!EqualCounts(rc, n)) return UnequalAllGatherV(s, sn, st, r, rc, rd, rt, comm, req, native);
  if (!AsAllgather(fn, req == nullptr, s, sn, st, r, rc, rd, rt, comm, &a, &place)) {
    return req ? native() : RunNative(comm, native);
  }
  return req ? Post(a, req, native, Placing(place)) : Run(a, native, Placing(place));
}

}  // namespace weft::shim

extern "C" {

int MPI_Allgatherv(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
                   MPI_Datatype rt, MPI_Comm comm) {
  return Guard([&] {
    return AllGatherV(s, sn, st, r, rc, rd, rt, comm, nullptr,
                      [&] { return PMPI_Allgatherv(s, sn, st, r, rc, rd, rt, comm); });
  });
}

int MPI_Iallgatherv(const void* s, int sn, MPI_Datatype st, void* r, const int rc[], const int rd[],
                    MPI_Datatype rt, MPI_Comm comm, MPI_Request* req) {
  return Guard([&] {
    return AllGatherV(s, sn, st, r, rc, rd, rt, comm, req,
                      [&] { return PMPI_Iallgatherv(s, sn, st, r, rc, rd, rt, comm, req); });
  });
}

}  // extern "C"
