// Non-temporal (streaming) stores: a result written this way bypasses the caches, so writing
// it costs no read-for-ownership of the destination lines and evicts nothing the pipeline still
// needs. For large results a caller will not re-read at once (docs/intra-node.md has the
// measurements that set when weft uses them).
#pragma once

#include <cstddef>

namespace weft {

/// Copies n bytes from src to dst (no overlap) with non-temporal stores where the CPU has them
/// (x86-64: SSE2); plain memcpy for short copies and elsewhere. Stores are weakly ordered:
/// call StreamFence before another thread or process may read dst.
void StreamCopy(void* dst, const void* src, size_t n);

/// Orders earlier non-temporal stores before later stores (x86: sfence; elsewhere nothing).
void StreamFence();

}  // namespace weft
