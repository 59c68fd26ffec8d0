// The table of requests the interposer serves (shim_requests.h); the MPI completion calls
// that read it are in shim_completion.cc.
#include "shim_requests.h"

#include <sched.h>

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "capi/interposer_hooks.h"

namespace {

// What a served nonblocking call's generalized request reports when the user completes it.
struct GrequestState {
  int error = MPI_SUCCESS;
};

int QueryFn(void* extra, MPI_Status* status) {
  const int error = static_cast<GrequestState*>(extra)->error;
  weft::shim::EmptyStatus(status, error);
  return error;
}
int FreeFn(void* extra) {
  delete static_cast<GrequestState*>(extra);
  return MPI_SUCCESS;
}
int CancelFn(void*, int) { return MPI_SUCCESS; }  // a collective is never cancelled

}  // namespace

namespace weft::shim {

// A completed served request's status: empty, as for a completed collective.
void EmptyStatus(MPI_Status* status, int error) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = error;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
}

struct Served {
  weftPlan_t plan = nullptr;          // persistent
  bool active = false;                // persistent: started and not yet completed
  weftRequest_t request = nullptr;    // nonblocking: weft's request, running
  GrequestState* grequest = nullptr;  // nonblocking: null once the user freed the request
  MPI_Comm comm = MPI_COMM_NULL;      // nonblocking: the user's communicator
  std::shared_ptr<Buffers> buf;       // packs before a start, unpacks after completion
};

namespace {

std::mutex g_mu;
std::unordered_map<MPI_Request, Served> g_served;
std::vector<Served> g_orphans;  // nonblocking calls whose request the user freed while running
// Entries of g_served and g_orphans: zero in a program weft never served a request of, whose
// completion calls then go straight to the native routine.
std::atomic<int> g_count{0};
// Nonblocking entries (each has a weft request running): native waits must advance them.
std::atomic<int> g_running{0};

void Recount() {  // under g_mu
  int running = static_cast<int>(g_orphans.size());
  for (const auto& [h, s] : g_served) running += s.request != nullptr;
  g_running.store(running, std::memory_order_release);
  g_count.store(static_cast<int>(g_served.size() + g_orphans.size()), std::memory_order_release);
}

// Weft's part of a nonblocking call is done with r: unpacks, records the result and completes
// the generalized request (unless the user freed it), which the native call then reports.
void FinishNonblocking(MPI_Request handle, Served& s, weftResult_t r) {
  const int error = r == weftSuccess ? s.buf->After() : MPI_ERR_OTHER;
  if (s.grequest != nullptr) {
    s.grequest->error = error;
    PMPI_Grequest_complete(handle);
  }
}

// Takes a served nonblocking entry out of the table; false if handle is not one.
bool TakeNonblocking(MPI_Request handle, Served* out) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_served.find(handle);
  if (it == g_served.end() || it->second.request == nullptr) return false;
  *out = std::move(it->second);
  g_served.erase(it);
  Recount();
  return true;
}

}  // namespace

Served* FindPersistent(MPI_Request r) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_served.find(r);
  return it == g_served.end() || it->second.plan == nullptr ? nullptr : &it->second;
}

// Completes weft's part of handle if it is a served nonblocking call.
void WaitNonblocking(MPI_Request handle) {
  Served s;
  if (!TakeNonblocking(handle, &s)) return;
  FinishNonblocking(handle, s, weftRequestWait(&s.request));
}

void ProgressServed() {
  if (g_running.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lk(g_mu);
  for (auto it = g_served.begin(); it != g_served.end();) {
    Served& s = it->second;
    int done = 0;
    // weftRequestTest sets the handle to NULL once the request completes (and frees it).
    const weftResult_t r = s.request == nullptr ? weftSuccess : weftRequestTest(&s.request, &done);
    if (s.plan == nullptr && (done || r != weftSuccess)) {
      s.request = nullptr;
      FinishNonblocking(it->first, s, r);
      it = g_served.erase(it);
    } else {
      ++it;
    }
  }
  for (size_t i = 0; i < g_orphans.size();) {
    int done = 0;
    weftResult_t r = weftRequestTest(&g_orphans[i].request, &done);
    if (done || r != weftSuccess) {
      FinishNonblocking(MPI_REQUEST_NULL, g_orphans[i], r);
      g_orphans.erase(g_orphans.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  Recount();
}

// Completes a served persistent request's plan; runs its fix-up.
int CompletePersistent(Served* s) {
  if (!s->active) return MPI_SUCCESS;
  weftResult_t r = weftPlanWait(s->plan);
  s->active = false;
  if (r != weftSuccess) return MPI_ERR_OTHER;
  return s->buf->After();
}

// Polls a served persistent request; true once complete (fix-up done), with its result in *rc
// (MPI_ERR_OTHER when weft's part failed, as when a deadline passed).
bool TestPersistent(Served* s, int* rc) {
  *rc = MPI_SUCCESS;
  if (!s->active) return true;
  int done = 0;
  if (weftPlanTest(s->plan, &done) != weftSuccess) {
    s->active = false;
    *rc = MPI_ERR_OTHER;
    return true;
  }
  if (done) {
    s->active = false;
    *rc = s->buf->After();
    return true;
  }
  return false;
}

// Breaks, with weftTimeout, the communicators of the served requests in reqs that still run:
// a polling wait of the interposer's saw nothing complete for WEFT_TIMEOUT_S. Each then
// completes with the error at the next poll.
void ExpireServed(int n, const MPI_Request reqs[], const char* what) {
  std::lock_guard<std::mutex> lk(g_mu);
  for (int i = 0; i < n; ++i) {
    auto it = g_served.find(reqs[i]);
    if (it == g_served.end()) continue;
    Served& s = it->second;
    if (s.plan != nullptr && s.active) weft::ExpirePlan(s.plan, what);
    if (s.request != nullptr) weft::ExpireRequest(s.request, what);
  }
}

// A native wait while weft runs nonblocking calls keeps advancing them: a peer may wait for
// this rank's part of one before it sends what this request waits for.
int WaitProgressing(MPI_Request* req, MPI_Status* status) {
  if (g_running.load(std::memory_order_acquire) == 0) return PMPI_Wait(req, status);
  for (;;) {
    int flag = 0;
    int rc = PMPI_Test(req, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    ProgressServed();
    sched_yield();  // ranks may outnumber cores
  }
}

int WaitallProgressing(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (g_running.load(std::memory_order_acquire) == 0) return PMPI_Waitall(n, reqs, statuses);
  for (;;) {
    int flag = 0;
    int rc = PMPI_Testall(n, reqs, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
    ProgressServed();
    sched_yield();
  }
}

void AddPersistent(MPI_Request handle, weftPlan_t plan, std::shared_ptr<Buffers> buf) {
  std::lock_guard<std::mutex> lk(g_mu);
  Served s;
  s.plan = plan;
  s.buf = std::move(buf);
  g_served[handle] = std::move(s);
  Recount();
}

bool StartPersistent(MPI_Request handle, int* rc) {
  if (g_count.load(std::memory_order_acquire) == 0) return false;
  Served* s = FindPersistent(handle);
  if (s == nullptr) return false;
  *rc = s->buf->Before();
  if (*rc != MPI_SUCCESS) return true;
  if (weftPlanStart(s->plan, nullptr) != weftSuccess) {
    *rc = MPI_ERR_REQUEST;
    return true;
  }
  s->active = true;
  return true;
}

int AddNonblocking(weftRequest_t request, std::shared_ptr<Buffers> buf, MPI_Comm comm,
                   MPI_Request* handle) {
  auto* g = new GrequestState;
  int rc = PMPI_Grequest_start(QueryFn, FreeFn, CancelFn, g, handle);
  if (rc != MPI_SUCCESS) {
    delete g;
    weftRequestWait(&request);  // every rank runs it; this one cannot hand it out
    return rc;
  }
  std::lock_guard<std::mutex> lk(g_mu);
  Served s;
  s.request = request;
  s.grequest = g;
  s.buf = std::move(buf);
  s.comm = comm;
  g_served[*handle] = std::move(s);
  Recount();
  return MPI_SUCCESS;
}

bool NonblockingRunning() { return g_running.load(std::memory_order_acquire) != 0; }

void CompleteServedOn(MPI_Comm comm) {
  if (g_running.load(std::memory_order_acquire) == 0) return;
  std::vector<std::pair<MPI_Request, Served>> on_comm;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    for (auto it = g_served.begin(); it != g_served.end();) {
      if (it->second.request != nullptr && it->second.comm == comm) {
        on_comm.emplace_back(it->first, std::move(it->second));
        it = g_served.erase(it);
      } else {
        ++it;
      }
    }
    for (size_t i = 0; i < g_orphans.size();) {
      if (g_orphans[i].comm == comm) {
        on_comm.emplace_back(MPI_REQUEST_NULL, std::move(g_orphans[i]));
        g_orphans.erase(g_orphans.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
    Recount();
  }
  // weft completes a communicator's executions oldest first, whatever the order here; each
  // wait has weft's deadline.
  for (auto& [handle, s] : on_comm) FinishNonblocking(handle, s, weftRequestWait(&s.request));
}

bool AnyServed() { return g_count.load(std::memory_order_acquire) != 0; }

bool PersistentActive(const Served* s) { return s->active; }

int FreeServed(MPI_Request* req) {
  weftPlan_t plan = nullptr;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto it = g_served.find(*req);
    if (it != g_served.end() && it->second.plan != nullptr) {
      plan = it->second.plan;
      g_served.erase(it);
    } else if (it != g_served.end() && it->second.request != nullptr) {
      // Freed while running: weft's part goes on (the next completion calls advance it and
      // unpack its result); the generalized request completes now so MPI can free it.
      Served s = std::move(it->second);
      g_served.erase(it);
      s.grequest = nullptr;  // freed with the generalized request
      PMPI_Grequest_complete(*req);
      g_orphans.push_back(std::move(s));
    }
    Recount();
  }
  if (plan != nullptr) weftPlanFree(plan);  // completes an active execution first
  return PMPI_Request_free(req);
}

void ReleasePersistentAtFinalize() {
  std::vector<weftPlan_t> plans;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    for (auto it = g_served.begin(); it != g_served.end();) {
      if (it->second.plan == nullptr) {
        ++it;
        continue;
      }
      plans.push_back(it->second.plan);
      it = g_served.erase(it);  // its buffers (and their datatype duplicates) with it
    }
    Recount();
  }
  for (weftPlan_t plan : plans) weftPlanFree(plan);
}

int CompletedRequest(MPI_Request* handle) {
  auto* g = new GrequestState;
  int rc = PMPI_Grequest_start(QueryFn, FreeFn, CancelFn, g, handle);
  if (rc != MPI_SUCCESS) {
    delete g;
    return rc;
  }
  return PMPI_Grequest_complete(*handle);
}

}  // namespace weft::shim
