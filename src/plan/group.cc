#include "plan/group.h"

#include <vector>

#include "core/params.h"
#include "core/spin_wait.h"
#include "plan/request.h"

namespace weft {
namespace {

struct Queued {
  Comm* comm;
  CollArgs args;
};

thread_local int t_depth = 0;
thread_local std::vector<Queued> t_queued;

// Polls before yielding: the group's peers usually post at about the same time.
constexpr uint64_t kSpins = 4096;

}  // namespace

bool InGroup() { return t_depth > 0; }

void GroupStart() { ++t_depth; }

void GroupAdd(Comm& comm, const CollArgs& args) { t_queued.push_back(Queued{&comm, args}); }

Status GroupEnd() {
  if (t_depth == 0) {
    return FailNoComm(weftInvalidUsage, "weftGroupEnd: no weftGroupStart to end");
  }
  if (--t_depth > 0) return weftSuccess;
  std::vector<Queued> queued;
  queued.swap(t_queued);
  Status first = weftSuccess;
  std::vector<Request*> running;
  running.reserve(queued.size());
  for (const Queued& q : queued) {
    Request* r = nullptr;
    first = StartRequest(*q.comm, q.args, &r);
    if (first != weftSuccess) break;  // what started still completes below
    running.push_back(r);
  }
  // Every request is tested in turn (each test advances its communicator's queue) until all
  // are complete: no wait blocks on one while a peer needs this rank to advance another.
  auto all_done = [&] {
    for (size_t i = 0; i < running.size();) {
      bool done = false;
      const Status s = TestRequest(running[i], &done);
      if (done) {
        if (first == weftSuccess) first = s;
        running[i] = running.back();
        running.pop_back();
      } else {
        ++i;
      }
    }
    return running.empty();
  };
  auto broken = [&] {
    for (Request* r : running) {
      if (r->comm != nullptr && r->comm->broken.load() != weftSuccess) return true;
    }
    return false;
  };
  if (SpinThenYield(all_done, kSpins, GetParams().WEFT_TIMEOUT_S, broken)) return first;
  // Given up: what still runs can no longer be trusted to finish.
  const bool was_broken = broken();
  const size_t left = running.size();
  for (Request* r : running) {
    if (r->comm != nullptr) r->comm->Break(weftTimeout);
    FreeRequest(r);
  }
  if (was_broken) {
    return FailNoComm(weftRemoteError,
                      "weftGroupEnd: %zu call(s) of the group cannot complete: the communicator "
                      "broke (weftCommGetAsyncError names why)",
                      left);
  }
  return FailNoComm(weftTimeout,
                    "weftGroupEnd: %zu call(s) of the group did not complete within "
                    "WEFT_TIMEOUT_S (a peer did not make its matching calls, or died)",
                    left);
}

}  // namespace weft
