// The MPI completion calls (Wait/Test and their -all/-any/-some forms, MPI_Request_free) over
// arrays that mix the requests weft serves (shim_requests.h) with native ones. A program that
// never had a served request goes straight to the native routine after one atomic load.
#include <sched.h>

#include <chrono>
#include <vector>

#include "capi/interposer_hooks.h"
#include "shim_requests.h"

using namespace weft::shim;

namespace {

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

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (!AnyServed()) return PMPI_Wait(req, status);
  return Guard([&] {
    if (Served* s = FindPersistent(*req)) {
      int rc = CompletePersistent(s);
      EmptyStatus(status, rc);
      return rc;
    }
    WaitNonblocking(*req);  // a served nonblocking call: its generalized request completes
    return WaitProgressing(req, status);
  });
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (!AnyServed()) return PMPI_Waitall(n, reqs, statuses);
  return Guard([&] {
    // In the array's order: weft completes older executions first, whatever the order here.
    for (int i = 0; i < n; ++i) WaitNonblocking(reqs[i]);
    Masked m(n, reqs);
    for (Served* s : m.served) {
      int rc = CompletePersistent(s);
      if (rc != MPI_SUCCESS) return rc;
    }
    int rc = WaitallProgressing(n, m.reqs.data(), statuses);  // served slots are MPI_REQUEST_NULL
    m.CopyBack(reqs);
    return rc;
  });
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (!AnyServed()) return PMPI_Test(req, flag, status);
  return Guard([&] {
    if (Served* s = FindPersistent(*req)) {
      int rc = MPI_SUCCESS;
      *flag = TestPersistent(s, &rc) ? 1 : 0;
      if (*flag) EmptyStatus(status, rc);
      return rc;
    }
    ProgressServed();  // completes a served nonblocking call that is done
    return PMPI_Test(req, flag, status);
  });
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (!AnyServed()) return PMPI_Testall(n, reqs, flag, statuses);
  return Guard([&] {
    ProgressServed();
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
  if (!AnyServed()) {
    return PMPI_Testany(n, reqs, index, flag, status);
  }
  return Guard([&] {
    ProgressServed();
    Masked m(n, reqs);
    if (m.served.empty()) return PMPI_Testany(n, reqs, index, flag, status);
    bool served_active = false;
    for (size_t k = 0; k < m.served.size(); ++k) {
      Served* s = m.served[k];
      if (!PersistentActive(s)) continue;
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
  if (!AnyServed()) return PMPI_Waitany(n, reqs, index, status);
  return PollWithin(
      [&](int* rc) {
        int flag = 0;
        *rc = MPI_Testany(n, reqs, index, &flag, status);
        return *rc != MPI_SUCCESS || flag;
      },
      [&] { ExpireServed(n, reqs, "MPI_Waitany"); });
}

int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (!AnyServed()) {
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
  }
  return Guard([&] {
    ProgressServed();
    Masked m(n, reqs);
    if (m.served.empty()) return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    const bool ignore = statuses == MPI_STATUSES_IGNORE;
    int done = 0;
    int served_rc = MPI_SUCCESS;
    bool served_active = false;
    for (size_t k = 0; k < m.served.size(); ++k) {
      Served* s = m.served[k];
      if (!PersistentActive(s)) continue;
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
  if (!AnyServed()) {
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
  if (!AnyServed()) return PMPI_Request_free(req);
  return Guard([&] { return FreeServed(req); });
}

}  // extern "C"
