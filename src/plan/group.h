// Groups (weftGroupStart/weftGroupEnd, NCCL's ncclGroupStart/End): the calls a thread makes
// between them are prepared (validated) at once, started together at the outermost End as
// nonblocking requests, in the order made, and completed together before End returns. So a
// ring exchange of weftSend/weftRecv, or sends and receives to every peer, cannot deadlock:
// every receive is posted before any rank waits.
#pragma once

#include "call/coll_args.h"

namespace weft {

/// This thread is between weftGroupStart and its matching weftGroupEnd.
bool InGroup();
/// weftGroupStart: groups nest; only the outermost End starts the calls.
void GroupStart();
/// Queues a prepared call (host buffers, arguments validated) for the group's End.
void GroupAdd(Comm& comm, const CollArgs& args);
/// weftGroupEnd: at the outermost, starts every queued call and completes them all, advancing
/// every one while any is incomplete (a send's later pieces may need its peer's receive to
/// advance); weftTimeout after WEFT_TIMEOUT_S. Returns the first failure.
Status GroupEnd();

}  // namespace weft
