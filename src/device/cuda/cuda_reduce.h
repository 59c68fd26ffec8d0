// Device reduce kernels of the CUDA backend (cuda_reduce.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "weft/weft.h"

namespace weft::device {

/// dst = srcs[0] op ... op srcs[k-1] over n elements, launched on stream (fp16/bf16 through
/// fp32). srcs is a host array; dst may be one of the sources.
cudaError_t LaunchReduce(void* dst, const void* const* srcs, int k, size_t n, weftDataType_t t,
                         weftRedOp_t op, cudaStream_t stream);

}  // namespace weft::device
