#include "native/native_colls.h"

#include <algorithm>
#include <climits>

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
      a.kind == CollKind::kReduceScatter) {
    s += std::string(" op=") + OpName(a.op);
  }
  if (a.kind == CollKind::kReduce || a.kind == CollKind::kBroadcast)
    s += " root=" + std::to_string(a.root);
  s += std::string(" in_place=") + (a.in_place ? "1" : "0") +
       " nranks=" + std::to_string(comm.size) + ": native MPI, " + std::to_string(p.steps.size()) +
       " call(s)";
  if (*p.note) s += std::string(", ") + p.note;
  return s;
}

Status BuildNative(Comm& comm, const CollArgs& args, NativeProgram* p) {
  switch (args.kind) {
    case CollKind::kAllReduce:
    case CollKind::kReduce:
    case CollKind::kReduceScatter:
      return BuildNativeReduction(comm, args, p);
    default:
      return BuildNativeMovement(comm, args, p);
  }
}

}  // namespace weft
