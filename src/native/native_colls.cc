#include "native/native_colls.h"

#include <algorithm>
#include <climits>

#include "core/params.h"

namespace weft {

size_t NativeChunkElems(size_t elem_bytes) {
  int64_t limit = GetParams().WEFT_NATIVE_CHUNK_BYTES;
  size_t bytes = limit > 0 ? static_cast<size_t>(limit) : static_cast<size_t>(INT_MAX);
  return std::clamp<size_t>(bytes / elem_bytes, 1, INT_MAX);
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
