// k-way reduction, the kernel behind the ir's `reduce`: dst = srcs[0] op srcs[1] op ... in that
// order, element-wise. Works block by block through a small buffer, so dst may be any one of
// the sources; fp16 and bf16 accumulate in fp32 and round once per element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "weft/weft.h"

namespace weft {

/// Reduces k >= 1 sources of n elements each into dst. `op` may also be the simulator's test
/// op ir::kOpMatMul2x2 (with type uint64). `stream`: write dst with non-temporal stores
/// (StreamCopy; the caller fences before anyone else reads dst).
void KWayReduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t type,
                weftRedOp_t op, bool stream = false);

/// One 2x2 matrix product a * b on four uint16 entries packed in a uint64 (row-major, low
/// bits first), arithmetic mod 2^16.
uint64_t MatMul2x2(uint64_t a, uint64_t b);

}  // namespace weft
