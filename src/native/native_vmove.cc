// AllGatherV, AllToAllV, GatherV and ScatterV on the native MPI routines. The count arrays
// become MPI's int counts and displacements once, when the program is built: in bytes when
// every value fits an int, else in elements of one contiguous type the size of the datatype
// (both describe the same bytes, so two ranks may choose differently and still match).
// Validation (coll/vcoll_args.h) has kept every element count and displacement below 2^31.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "native/mpi_quirks.h"
#include "native/native_colls.h"

namespace weft {
namespace {

// One side's arrays in MPI's units.
struct IntArrays {
  std::vector<int> counts, displs;
  const int* c() const { return counts.empty() ? nullptr : counts.data(); }
  const int* d() const { return displs.empty() ? nullptr : displs.data(); }
};

bool FitsBytes(const std::vector<size_t>& v, size_t es) {
  for (size_t x : v) {
    if (x > INT_MAX / es) return false;
  }
  return true;
}

IntArrays ToUnits(const std::vector<size_t>& counts, const std::vector<size_t>& displs,
                  size_t unit) {
  IntArrays out;
  for (size_t x : counts) out.counts.push_back(static_cast<int>(x * unit));
  for (size_t x : displs) out.displs.push_back(static_cast<int>(x * unit));
  return out;
}

}  // namespace

Status BuildNativeVMovement(Comm& comm, const CollArgs& a, NativeProgram* p) {
  const VCounts& v = *a.v;
  const size_t es = TypeSize(a.type);
  // Bytes when every value this rank passes fits an int as bytes, else elements.
  const bool bytes = a.count <= INT_MAX / es && FitsBytes(v.send_counts, es) &&
                     FitsBytes(v.send_displs, es) && FitsBytes(v.recv_counts, es) &&
                     FitsBytes(v.recv_displs, es);
  MPI_Datatype t = MPI_BYTE;
  const size_t unit = bytes ? es : 1;
  if (!bytes) {
    int e = PMPI_Type_contiguous(static_cast<int>(es), MPI_BYTE, &t);
    if (e == MPI_SUCCESS) e = PMPI_Type_commit(&t);
    if (e != MPI_SUCCESS) return comm.FailMpi(e, "building the element type of a v-collective");
    p->Own(t);
  }
  // Shared by the step's copies (std::function copies its lambda).
  auto send = std::make_shared<const IntArrays>(ToUnits(v.send_counts, v.send_displs, unit));
  auto recv = std::make_shared<const IntArrays>(ToUnits(v.recv_counts, v.recv_displs, unit));
  const int n = static_cast<int>(a.count * unit);
  const bool in_place = a.in_place;
  const int root = a.root;
  MPI_Comm mc = comm.mpi;
  NativeStep s;
  switch (a.kind) {
    case CollKind::kAllGatherV:
      s.what = "MPI_Allgatherv";
      s.call = [=](const Bind& b, MPI_Request* r) {
        const void* sb = in_place ? MPI_IN_PLACE : b.send;
        return r ? PMPI_Iallgatherv(sb, n, t, b.recv, recv->c(), recv->d(), t, mc, r)
                 : PMPI_Allgatherv(sb, n, t, b.recv, recv->c(), recv->d(), t, mc);
      };
      break;
    case CollKind::kAllToAllV: {
      s.what = "MPI_Alltoallv";
      // Where the library's nonblocking in-place form is wrong, that form runs out of place
      // from a copy of the receive buffer (the blocks to send are where they will be received).
      unsigned char* copy = nullptr;
      size_t copy_bytes = 0;
      if (in_place && GetMpiQuirks().in_place_ialltoallv_wrong) {
        for (size_t j = 0; j < v.recv_counts.size(); ++j) {
          copy_bytes = std::max(copy_bytes, (v.recv_displs[j] + v.recv_counts[j]) * es);
        }
        copy = static_cast<unsigned char*>(p->Scratch(copy_bytes));
      }
      s.call = [=](const Bind& b, MPI_Request* r) {
        if (r != nullptr && copy != nullptr) {
          std::memcpy(copy, b.recv, copy_bytes);
          return PMPI_Ialltoallv(copy, recv->c(), recv->d(), t, b.recv, recv->c(), recv->d(), t, mc,
                                 r);
        }
        const void* sb = in_place ? MPI_IN_PLACE : b.send;
        return r ? PMPI_Ialltoallv(sb, send->c(), send->d(), t, b.recv, recv->c(), recv->d(), t, mc,
                                   r)
                 : PMPI_Alltoallv(sb, send->c(), send->d(), t, b.recv, recv->c(), recv->d(), t, mc);
      };
      break;
    }
    case CollKind::kGatherV:
      s.what = "MPI_Gatherv";
      s.call = [=](const Bind& b, MPI_Request* r) {
        const void* sb = in_place ? MPI_IN_PLACE : b.send;
        return r ? PMPI_Igatherv(sb, n, t, b.recv, recv->c(), recv->d(), t, root, mc, r)
                 : PMPI_Gatherv(sb, n, t, b.recv, recv->c(), recv->d(), t, root, mc);
      };
      break;
    case CollKind::kScatterV:
      s.what = "MPI_Scatterv";
      s.call = [=](const Bind& b, MPI_Request* r) {
        void* rb = in_place ? MPI_IN_PLACE : b.recv;
        return r ? PMPI_Iscatterv(b.send, send->c(), send->d(), t, rb, n, t, root, mc, r)
                 : PMPI_Scatterv(b.send, send->c(), send->d(), t, rb, n, t, root, mc);
      };
      break;
    default:
      return comm.Fail(weftInternalError, "BuildNativeVMovement: not a v-collective");
  }
  p->steps.push_back(std::move(s));
  p->note = bytes ? "counts in bytes" : "counts in elements of a contiguous type";
  return weftSuccess;
}

}  // namespace weft
