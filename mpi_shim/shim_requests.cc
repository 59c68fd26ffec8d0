#include "shim_requests.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "capi/interposer_hooks.h"

using namespace weft::shim;

namespace {

// What a served nonblocking call's generalized request reports when the user completes it.
struct GrequestState {
  int error = MPI_SUCCESS;
};

// A completed served request's status: empty, as for a completed collective.
void EmptyStatus(MPI_Status* status, int error) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = error;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
}

int QueryFn(void* extra, MPI_Status* status) {
  const int error = static_cast<GrequestState*>(extra)->error;
  EmptyStatus(status, error);
  return error;
}
int FreeFn(void* extra) {
  delete static_cast<GrequestState*>(extra);
  return MPI_SUCCESS;
}
int CancelFn(void*, int) { return MPI_SUCCESS; }  // a collective is never cancelled

struct Served {
  weftPlan_t plan = nullptr;          // persistent
  bool active = false;                // persistent: started and not yet completed
  weftRequest_t request = nullptr;    // nonblocking: weft's request, running
  GrequestState* grequest = nullptr;  // nonblocking: null once the user freed the request
  MPI_Comm comm = MPI_COMM_NULL;      // nonblocking: the user's communicator
  std::shared_ptr<Buffers> buf;       // packs before a start, unpacks after completion
};

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

Served* FindPersistent(MPI_Request r) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_served.find(r);
  return it == g_served.end() || it->second.plan == nullptr ? nullptr : &it->second;
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

// Completes weft's part of handle if it is a served nonblocking call.
void WaitNonblocking(MPI_Request handle) {
  Served s;
  if (!TakeNonblocking(handle, &s)) return;
  FinishNonblocking(handle, s, weftRequestWait(&s.request));
}

// Advances every served nonblocking call without blocking (weft advances the communicators'
// queues in start order) and completes those that are done.
void Progress() {
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

// The interposer's polling waits (MPI_Waitany, MPI_Waitsome):
// poll() until it returns true (its MPI result in *rc), yielding between polls (ranks may
// outnumber cores). weft's part keeps weft's deadline: after WEFT_TIMEOUT_S in which no poll
// succeeded, expire() breaks the communicators of the served requests still waited on, and
// the next poll reports their error. Native requests alone keep MPI's behaviour (no deadline).
template <typename Poll, typename Expire>
int PollWithin(Poll poll, Expire expire) {
  using Clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::seconds(weft::WaitTimeoutSeconds());
  auto since = Clock::now();
  for (uint32_t i = 0;; ++i) {
    int rc = MPI_SUCCESS;
    if (poll(&rc)) return rc;
    sched_yield();
    if ((i & 15) == 0 && Clock::now() - since > timeout) {
      expire();
      since = Clock::now();
    }
  }
}

// A request array with the served persistent requests replaced by MPI_REQUEST_NULL, for the
// native completion calls (which then ignore them), and those requests with their positions.
// (Passing the inactive native request is not enough: MPICH 4.0.2 waits for ever on a
// never-started persistent collective.)
struct Masked {
  Masked(int n, const MPI_Request reqs[]) : reqs(reqs, reqs + n) {
    for (int i = 0; i < n; ++i) {
      if (Served* s = FindPersistent(reqs[i])) {
        served.push_back(s);
        served_index.push_back(i);
        this->reqs[i] = MPI_REQUEST_NULL;
      }
    }
  }
  // Native completion may have freed non-persistent requests: copy those handles back,
  // leaving the served (persistent) handles as they were.
  void CopyBack(MPI_Request out[]) const {
    size_t k = 0;
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (k < served_index.size() && served_index[k] == static_cast<int>(i)) {
        ++k;
        continue;
      }
      out[i] = reqs[i];
    }
  }
  std::vector<MPI_Request> reqs;
  std::vector<Served*> served;
  std::vector<int> served_index;
};

// A native wait while weft runs nonblocking calls keeps advancing them: a peer may wait for
// this rank's part of one before it sends what this request waits for.
int WaitNative(MPI_Request* req, MPI_Status* status) {
  if (g_running.load(std::memory_order_acquire) == 0) return PMPI_Wait(req, status);
  for (;;) {
    int flag = 0;
    int rc = PMPI_Test(req, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    Progress();
    sched_yield();  // ranks may outnumber cores
  }
}

int WaitallNative(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (g_running.load(std::memory_order_acquire) == 0) return PMPI_Waitall(n, reqs, statuses);
  for (;;) {
    int flag = 0;
    int rc = PMPI_Testall(n, reqs, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
    Progress();
    sched_yield();
  }
}

}  // namespace

namespace weft::shim {

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

int WaitProgressing(MPI_Request* req, MPI_Status* status) { return WaitNative(req, status); }

int WaitallProgressing(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  return WaitallNative(n, reqs, statuses);
}

void ProgressServed() { Progress(); }

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

extern "C" {

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (g_count.load(std::memory_order_acquire) == 0) return PMPI_Wait(req, status);
  return Guard([&] {
    if (Served* s = FindPersistent(*req)) {
      int rc = CompletePersistent(s);
      EmptyStatus(status, rc);
      return rc;
    }
    WaitNonblocking(*req);  // a served nonblocking call: its generalized request completes
    return WaitNative(req, status);
  });
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (g_count.load(std::memory_order_acquire) == 0) return PMPI_Waitall(n, reqs, statuses);
  return Guard([&] {
    // In the array's order: weft completes older executions first, whatever the order here.
    for (int i = 0; i < n; ++i) WaitNonblocking(reqs[i]);
    Masked m(n, reqs);
    for (Served* s : m.served) {
      int rc = CompletePersistent(s);
      if (rc != MPI_SUCCESS) return rc;
    }
    int rc = WaitallNative(n, m.reqs.data(), statuses);  // served slots are MPI_REQUEST_NULL
    m.CopyBack(reqs);
    return rc;
  });
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (g_count.load(std::memory_order_acquire) == 0) return PMPI_Test(req, flag, status);
  return Guard([&] {
    if (Served* s = FindPersistent(*req)) {
      int rc = MPI_SUCCESS;
      *flag = TestPersistent(s, &rc) ? 1 : 0;
      if (*flag) EmptyStatus(status, rc);
      return rc;
    }
    Progress();  // completes a served nonblocking call that is done
    return PMPI_Test(req, flag, status);
  });
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (g_count.load(std::memory_order_acquire) == 0) return PMPI_Testall(n, reqs, flag, statuses);
  return Guard([&] {
    Progress();
    Masked m(n, reqs);
    if (m.served.empty()) return PMPI_Testall(n, reqs, flag, statuses);
    bool served_done = true;
    int served_rc = MPI_SUCCESS;
    for (Served* s : m.served) {
      int rc = MPI_SUCCESS;
      served_done &= TestPersistent(s, &rc);
      if (served_rc == MPI_SUCCESS) served_rc = rc;
    }
    if (!served_done) {  // MPI_Testall must not complete some requests and report false
      *flag = 0;
      return served_rc;
    }
    int rc = PMPI_Testall(n, m.reqs.data(), flag, statuses);
    m.CopyBack(reqs);
    return rc != MPI_SUCCESS ? rc : served_rc;
  });
}

int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  if (g_count.load(std::memory_order_acquire) == 0) {
    return PMPI_Testany(n, reqs, index, flag, status);
  }
  return Guard([&] {
    Progress();
    Masked m(n, reqs);
    if (m.served.empty()) return PMPI_Testany(n, reqs, index, flag, status);
    bool served_active = false;
    for (size_t k = 0; k < m.served.size(); ++k) {
      Served* s = m.served[k];
      if (!s->active) continue;
      int rc = MPI_SUCCESS;
      if (TestPersistent(s, &rc)) {
        *index = m.served_index[k];
        *flag = 1;
        EmptyStatus(status, rc);
        return rc;
      }
      served_active = true;
    }
    int rc = PMPI_Testany(n, m.reqs.data(), index, flag, status);
    m.CopyBack(reqs);
    // "No active request" is only true when no plan runs either.
    if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && served_active) *flag = 0;
    return rc;
  });
}

int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  if (g_count.load(std::memory_order_acquire) == 0) return PMPI_Waitany(n, reqs, index, status);
  return PollWithin(
      [&](int* rc) {
        int flag = 0;
        *rc = MPI_Testany(n, reqs, index, &flag, status);
        return *rc != MPI_SUCCESS || flag;
      },
      [&] { ExpireServed(n, reqs, "MPI_Waitany"); });
}

int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (g_count.load(std::memory_order_acquire) == 0) {
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
  }
  return Guard([&] {
    Progress();
    Masked m(n, reqs);
    if (m.served.empty()) return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    const bool ignore = statuses == MPI_STATUSES_IGNORE;
    int done = 0;
    int served_rc = MPI_SUCCESS;
    bool served_active = false;
    for (size_t k = 0; k < m.served.size(); ++k) {
      Served* s = m.served[k];
      if (!s->active) continue;
      int rc = MPI_SUCCESS;
      if (TestPersistent(s, &rc)) {
        indices[done] = m.served_index[k];
        if (!ignore) EmptyStatus(&statuses[done], rc);
        if (served_rc == MPI_SUCCESS) served_rc = rc;
        ++done;
      } else {
        served_active = true;
      }
    }
    int native_count = 0;
    int rc = PMPI_Testsome(n, m.reqs.data(), &native_count, indices + done,
                           ignore ? MPI_STATUSES_IGNORE : statuses + done);
    m.CopyBack(reqs);
    if (rc != MPI_SUCCESS) return rc;
    const bool native_none = native_count == MPI_UNDEFINED;  // no active native request
    *outcount = done + (native_none ? 0 : native_count);
    if (*outcount == 0 && native_none && !served_active) *outcount = MPI_UNDEFINED;
    return served_rc;
  });
}

int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (g_count.load(std::memory_order_acquire) == 0) {
    return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
  }
  return PollWithin(
      [&](int* rc) {
        *rc = MPI_Testsome(n, reqs, outcount, indices, statuses);
        return *rc != MPI_SUCCESS || *outcount != 0;
      },
      [&] { ExpireServed(n, reqs, "MPI_Waitsome"); });
}

int MPI_Request_free(MPI_Request* req) {
  if (g_count.load(std::memory_order_acquire) == 0) return PMPI_Request_free(req);
  return Guard([&] {
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
  });
}

}  // extern "C"
