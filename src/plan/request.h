// A nonblocking collective (weftIAllReduce and friends): the program for its shape, taken from
// the communicator's cache (an instance no other request is running) or built, started on the
// call's buffers and queued with the communicator's other executions (coll/progress.h).
#pragma once

#include "coll/progress.h"
#include "coll/program_cache.h"

/// The object behind weftRequest_t.
struct weftRequest : weft::Execution {
  /// Null once weftCommAbort detached it, or for a request that completed at its start.
  weft::Comm* comm = nullptr;
  /// Held while it runs: the cache may evict the program meanwhile.
  weft::ProgramRef held;
  /// weftRequestFree came before completion: it deletes itself when it completes.
  bool freed = false;
  /// Its communicator was aborted (weftCommAbort) before the request was freed.
  bool aborted = false;

  void Completed() override;
};

namespace weft {

using Request = weftRequest;

/// Starts validated args (host memory, zero copy agreed) as a new request registered as live.
Status StartRequest(Comm& comm, const CollArgs& args, Request** out);
/// A request that is already complete with status s (a call served synchronously, such as one
/// on device buffers), registered as live.
Request* CompletedRequest(Status s);
/// Completes a request and frees it (weftRequestWait).
Status WaitRequest(Request* r);
/// Advances r's communicator; frees r and sets *done once it completes (weftRequestTest).
Status TestRequest(Request* r, bool* done);
/// Frees r: at once when complete, else when it completes (its buffers stay in use until then;
/// the communicator's later waits and tests advance it).
void FreeRequest(Request* r);
/// weftCommAbort: detaches comm's requests (after AbandonExecutions), so that they can only be
/// waited for (reporting the abort) or freed.
void DetachRequests(Comm& comm);
/// True while r was created and not yet freed.
bool IsLiveRequest(const Request* r);
/// Requests of comm not yet freed.
int LiveRequests(Comm& comm);

}  // namespace weft
