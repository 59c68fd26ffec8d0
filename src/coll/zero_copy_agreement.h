// Whether a call may take the zero-copy schedules: every rank's buffers must lie in
// weftMemAlloc memory, and every rank must choose the same schedule, so the ranks agree.
#pragma once

#include "call/coll_args.h"
#include "comm/comm.h"

namespace weft {

/// AgreeZeroCopy on a communicator where weftMemAlloc made shared memory (a->zero_copy is
/// false on entry).
Status AgreeZeroCopyShared(Comm& comm, CollArgs* a);

/// Collective over comm for validated collective args (no-op unless weftMemAlloc made shared
/// memory on comm and the call is large): sets a->zero_copy when every rank's buffers lie in
/// it. Local knowledge is not enough: every rank must choose the same schedule. Inline: every
/// call asks, and most communicators have no such memory.
inline Status AgreeZeroCopy(Comm& comm, CollArgs* a) {
  a->zero_copy = false;
  return comm.mem_shared ? AgreeZeroCopyShared(comm, a) : weftSuccess;
}

}  // namespace weft
