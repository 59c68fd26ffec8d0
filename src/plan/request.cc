#include "plan/request.h"

#include <memory>
#include <mutex>

#include "coll/build_collective.h"
#include "core/hot_path.h"
#include "core/live_set.h"
#include "core/log.h"

namespace weft {
namespace {

LiveSet<Request> g_live;

void Unregister(Request* r) {
  g_live.Remove(r);
  if (r->comm != nullptr) {
    std::lock_guard<std::mutex> lk(r->comm->plans_mu);
    r->comm->requests.erase(r);
  }
}

// Frees a completed request and returns its result s.
Status Finish(Request* r, Status s) {
  const bool aborted = r->aborted;
  Unregister(r);
  delete r;
  if (aborted && s != weftSuccess) {
    return FailNoComm(s, "the request's communicator was aborted before it completed");
  }
  return s;
}

}  // namespace
}  // namespace weft

void weftRequest::Completed() {
  held.reset();
  if (freed) {
    weft::Unregister(this);
    delete this;
  }
}

namespace weft {

WEFT_HOT Status StartRequest(Comm& comm, const CollArgs& call, Request** out) {
  // Chosen as for the blocking call and the plan of this shape (run_blocking.cc, plan.cc): the
  // same program whichever form runs it.
  CollArgs args = call;
  args.slots_streamed = comm.SlotsStreamed();
  auto r = std::make_unique<Request>();
  r->comm = &comm;
  {
    std::lock_guard<std::mutex> lk(comm.progress_mu);
    // An instance of this shape that no request in flight is running, else a new one (kept
    // as a further instance, up to the cache's limit).
    ProgramRef program = CacheOf(comm).FindIdle(args);
    if (program == nullptr) {
      std::unique_ptr<Executable> built;
      WEFT_CHECK(BuildCollective(comm, args, &built));
      WEFT_TRACE(kColl, "built: %s", DescribeCollective(comm, args, *built).c_str());
      program = comm.cache->Keep(args, std::move(built));
    }
    r->held = program;
    WEFT_CHECK(StartExecutionLocked(
        comm, r.get(), program.get(),
        Bind{static_cast<const char*>(args.send), static_cast<char*>(args.recv)}));
  }
  {
    std::lock_guard<std::mutex> lk(comm.plans_mu);
    comm.requests.insert(r.get());
  }
  g_live.Add(r.get());
  *out = r.release();
  return weftSuccess;
}

Request* CompletedRequest(Status s) {
  auto* r = new Request;
  r->status = s;
  g_live.Add(r);
  return r;
}

WEFT_HOT Status WaitRequest(Request* r) {
  if (r->comm == nullptr) return Finish(r, r->status);  // complete at its start, or aborted
  return Finish(r, WaitExecution(*r->comm, r));
}

WEFT_HOT Status TestRequest(Request* r, bool* done) {
  *done = true;
  if (r->comm == nullptr) return Finish(r, r->status);
  bool finished = false;
  const Status s = TestExecution(*r->comm, r, &finished);
  if (!finished) {
    *done = false;
    return s;
  }
  return Finish(r, s);
}

void FreeRequest(Request* r) {
  if (r->comm != nullptr) {
    std::lock_guard<std::mutex> lk(r->comm->progress_mu);
    if (r->queued) {
      // Still running: the communicator's progress deletes it when it completes.
      g_live.Remove(r);
      r->freed = true;
      return;
    }
  }
  Unregister(r);
  delete r;
}

void DetachRequests(Comm& comm) {
  std::set<Request*> requests;
  {
    std::lock_guard<std::mutex> lk(comm.plans_mu);
    requests.swap(comm.requests);
  }
  for (Request* r : requests) {  // AbandonExecutions completed the queued ones
    r->comm = nullptr;
    r->aborted = true;
  }
}

WEFT_HOT bool IsLiveRequest(const Request* r) { return g_live.Contains(r); }

int LiveRequests(Comm& comm) {
  std::lock_guard<std::mutex> lk(comm.plans_mu);
  return static_cast<int>(comm.requests.size());
}

}  // namespace weft
