#include "native/native_colls.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/dtype.h"
#include "core/params.h"

namespace weft {

size_t NativeChunkElems(size_t elem_bytes, int mpi_per_elem) {
  int64_t limit = GetParams().WEFT_NATIVE_CHUNK_BYTES;
  size_t bytes = limit > 0 ? static_cast<size_t>(limit) : static_cast<size_t>(INT_MAX);
  return std::clamp<size_t>(bytes / elem_bytes, 1, INT_MAX / mpi_per_elem);
}

std::string DescribeNative(const Comm& comm, const CollArgs& a, const NativeProgram& p) {
  std::string s = std::string(CollShortName(a.kind)) + " count=" + std::to_string(a.count);
  if (a.kind != CollKind::kBarrier) s += std::string(" type=") + TypeName(a.type);
  if (a.kind == CollKind::kAllReduce || a.kind == CollKind::kReduce ||
      a.kind == CollKind::kReduceScatter || a.kind == CollKind::kReduceScatterV ||
      a.kind == CollKind::kScan || a.kind == CollKind::kExScan) {
    s += std::string(" op=") + OpName(a.op);
  }
  if (a.kind == CollKind::kReduce || a.kind == CollKind::kBroadcast ||
      a.kind == CollKind::kGather || a.kind == CollKind::kScatter || a.kind == CollKind::kGatherV ||
      a.kind == CollKind::kScatterV) {
    s += " root=" + std::to_string(a.root);
  }
  s += std::string(" in_place=") + (a.in_place ? "1" : "0") +
       " nranks=" + std::to_string(comm.size) + ": native MPI, " + std::to_string(p.steps.size()) +
       " call(s)";
  if (*p.note) s += std::string(", ") + p.note;
  return s;
}

namespace {

// One rank: every collective's result is its input (x op nothing = x; the mean of one value is
// itself), so the program is at most one local copy and calls no MPI at all.
void BuildSingleRank(const CollArgs& a, NativeProgram* p) {
  const size_t bytes = a.count * TypeSize(a.type);
  NativeStep s;
  s.what = "local copy";
  if (bytes > 0 && !a.in_place && a.kind != CollKind::kBarrier) {
    s.before = [bytes](const Bind& b) { std::memcpy(b.recv, b.send, bytes); };
  }
  s.call = [](const Bind&, MPI_Request* r) {
    if (r != nullptr) *r = MPI_REQUEST_NULL;  // completes at the first test
    return MPI_SUCCESS;
  };
  p->steps.push_back(std::move(s));
  p->note = "one rank: local copy, no MPI";
}

}  // namespace

Status BuildNative(Comm& comm, const CollArgs& args, NativeProgram* p) {
  // (The v-collectives' blocks and ExScan's empty result at rank 0 are not one plain copy:
  // they run their MPI routine, which needs no peer at one rank.)
  if (comm.size == 1 && args.kind != CollKind::kSend && args.kind != CollKind::kRecv &&
      !IsVKind(args.kind) && args.kind != CollKind::kExScan) {
    BuildSingleRank(args, p);
    return weftSuccess;
  }
  switch (args.kind) {
    case CollKind::kAllReduce:
    case CollKind::kReduce:
    case CollKind::kReduceScatter:
    case CollKind::kReduceScatterV:
      return BuildNativeReduction(comm, args, p);
    case CollKind::kScan:
    case CollKind::kExScan:
      return BuildNativeScan(comm, args, p);
    case CollKind::kAllGatherV:
    case CollKind::kAllToAllV:
    case CollKind::kGatherV:
    case CollKind::kScatterV:
      return BuildNativeVMovement(comm, args, p);
    default:
      return BuildNativeMovement(comm, args, p);
  }
}

}  // namespace weft
