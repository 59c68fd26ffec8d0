// Host reduction kernels for every (type, op). Integer Sum/Prod wrap in two's complement
// (computed in unsigned arithmetic, so no undefined behaviour and no saturation); fp16 and
// bf16 are computed in fp32 and rounded once per call.
#pragma once

#include <cstddef>

#include "weft/weft.h"

namespace weft {

/// inout[i] = inout[i] op in[i] for i < n. Avg combines as Sum (the division is separate).
void ReduceInPlace(void* inout, const void* in, size_t n, weftDataType_t type, weftRedOp_t op);

/// dst[i] = a[i] op b[i] for i < n; dst must not overlap a or b (use ReduceInPlace for that).
void ReduceTwo(void* dst, const void* a, const void* b, size_t n, weftDataType_t type,
               weftRedOp_t op);

/// data[i] /= divisor for a floating type (fp16/bf16 through fp32).
void DivideFloats(void* data, size_t n, weftDataType_t type, double divisor);

}  // namespace weft
