// Persistent collectives (MPI 4's MPI_*_init, Open MPI 4.1's MPIX_*_init) and the request
// calls for them. A request weft serves is a real, never-started native persistent request
// (so MPI_Request_free and the user's bookkeeping work on it) paired with a weft plan:
// MPI_Start runs the plan instead. The Wait/Test family completes served requests itself and
// hands the native calls the rest with served slots set to MPI_REQUEST_NULL. (Passing the
// inactive native request to PMPI_Wait is not enough: MPICH 4.0.2 waits on a never-started
// persistent collective for ever.)
#include <sched.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/dtype.h"
#include "shim_colls.h"
#include "shim_state.h"

#if MPI_VERSION >= 4
#define WEFT_PCOLL(name) MPI_##name##_init
#define WEFT_PPCOLL(name) PMPI_##name##_init
#define WEFT_HAVE_PCOLL 1
#elif defined(OPEN_MPI)
#include <mpi-ext.h>  // defines OMPI_HAVE_MPI_EXT_PCOLLREQ where the extension is built
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define WEFT_PCOLL(name) MPIX_##name##_init
#define WEFT_PPCOLL(name) PMPIX_##name##_init
#define WEFT_HAVE_PCOLL 1
#endif
#endif

#ifdef WEFT_HAVE_PCOLL

using namespace weft::shim;

namespace {

struct Served {
  weftPlan_t plan = nullptr;
  bool active = false;
  std::shared_ptr<Buffers> buf;  // packs before each start, unpacks after each completion
};

std::mutex g_mu;
std::unordered_map<MPI_Request, Served> g_served;

Served* Find(MPI_Request r) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto it = g_served.find(r);
  return it == g_served.end() ? nullptr : &it->second;
}

// Makes the native persistent request and, for a call weft serves, the weft plan behind it.
int Serve(const CallArgs& a, MPI_Request* req, const NativeFn& native) {
  Route route = Prepare(a);
  int rc = native();  // a real request in every case: MPI_Request_free and the user's
  if (rc != MPI_SUCCESS || route.comm == nullptr) return rc;  // bookkeeping work on it
  // An empty signature makes an empty plan on every rank; it runs no step.
  weftPlan_t plan = nullptr;
  weftResult_t made = Launch(a, route, &plan);
  if (made != weftSuccess) {
    // The native request stays valid and runs natively. Plan creation is collective, as
    // MPI_*_init is, and bad arguments fail it alike on every rank, so every rank makes the
    // same choice here.
    return Finish(made, a.comm, a.fn);
  }
  std::lock_guard<std::mutex> lk(g_mu);
  g_served[*req] = Served{plan, false, route.buf};
  return MPI_SUCCESS;
}

// Completes a served request's plan; runs its fix-up.
int CompleteServed(Served* s) {
  if (!s->active) return MPI_SUCCESS;
  weftResult_t r = weftPlanWait(s->plan);
  s->active = false;
  if (r != weftSuccess) return MPI_ERR_OTHER;
  return s->buf->After();
}

// Polls a served request; true once complete (fix-up done).
bool TestServed(Served* s) {
  if (!s->active) return true;
  int done = 0;
  if (weftPlanTest(s->plan, &done) != weftSuccess || done) {
    s->active = false;
    if (done) s->buf->After();
    return true;
  }
  return false;
}

// The status of a completed served request: empty, as for a completed persistent collective.
void EmptyStatus(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
}

// A request array with the served requests replaced by MPI_REQUEST_NULL, for the native
// completion calls (which then ignore them), and the served ones with their positions.
struct Masked {
  Masked(int n, const MPI_Request reqs[]) : reqs(reqs, reqs + n) {
    for (int i = 0; i < n; ++i) {
      if (Served* s = Find(reqs[i])) {
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

int WEFT_PCOLL(Allreduce)(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return Serve(
        {Kind::kAllreduce, "MPI_Allreduce_init", s, r, size_t(n), dt, size_t(n), dt, op, 0, comm},
        req, [&] { return WEFT_PPCOLL(Allreduce)(s, r, n, dt, op, comm, info, req); });
  });
}

int WEFT_PCOLL(Reduce)(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return Serve(
        {Kind::kReduce, "MPI_Reduce_init", s, r, size_t(n), dt, size_t(n), dt, op, root, comm}, req,
        [&] { return WEFT_PPCOLL(Reduce)(s, r, n, dt, op, root, comm, info, req); });
  });
}

int WEFT_PCOLL(Bcast)(void* buf, int n, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* req) {
  return Guard([&] {
    return Serve({Kind::kBcast, "MPI_Bcast_init", buf, buf, size_t(n), dt, size_t(n), dt,
                  MPI_OP_NULL, root, comm},
                 req, [&] { return WEFT_PPCOLL(Bcast)(buf, n, dt, root, comm, info, req); });
  });
}

int WEFT_PCOLL(Allgather)(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                          MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return Serve({Kind::kAllgather, "MPI_Allgather_init", s, r, size_t(sn), st, size_t(rn), rt,
                  MPI_OP_NULL, 0, comm},
                 req,
                 [&] { return WEFT_PPCOLL(Allgather)(s, sn, st, r, rn, rt, comm, info, req); });
  });
}

int WEFT_PCOLL(Alltoall)(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return Serve({Kind::kAlltoall, "MPI_Alltoall_init", s, r, size_t(sn), st, size_t(rn), rt,
                  MPI_OP_NULL, 0, comm},
                 req, [&] { return WEFT_PPCOLL(Alltoall)(s, sn, st, r, rn, rt, comm, info, req); });
  });
}

int WEFT_PCOLL(Reduce_scatter_block)(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op,
                                     MPI_Comm comm, MPI_Info info, MPI_Request* req) {
  return Guard([&] {
    return Serve(
        {Kind::kReduceScatterBlock, "MPI_Reduce_scatter_block_init", s, r, size_t(n), dt, size_t(n),
         dt, op, 0, comm},
        req, [&] { return WEFT_PPCOLL(Reduce_scatter_block)(s, r, n, dt, op, comm, info, req); });
  });
}

int MPI_Start(MPI_Request* req) {
  if (Served* s = Find(*req)) {
    int rc = s->buf->Before();
    if (rc != MPI_SUCCESS) return rc;
    if (weftPlanStart(s->plan, nullptr) != weftSuccess) return MPI_ERR_REQUEST;
    s->active = true;
    return MPI_SUCCESS;
  }
  return PMPI_Start(req);
}

int MPI_Startall(int n, MPI_Request reqs[]) {
  for (int i = 0; i < n; ++i) {
    int rc = MPI_Start(&reqs[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  if (Served* s = Find(*req)) {
    int rc = CompleteServed(s);
    EmptyStatus(status);
    return rc;
  }
  return PMPI_Wait(req, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  Masked m(n, reqs);
  if (m.served.empty()) return PMPI_Waitall(n, reqs, statuses);
  for (Served* s : m.served) {
    int rc = CompleteServed(s);
    if (rc != MPI_SUCCESS) return rc;
  }
  int rc = PMPI_Waitall(n, m.reqs.data(), statuses);  // served slots are MPI_REQUEST_NULL
  m.CopyBack(reqs);
  return rc;
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (Served* s = Find(*req)) {
    *flag = TestServed(s) ? 1 : 0;
    if (*flag) EmptyStatus(status);
    return MPI_SUCCESS;
  }
  return PMPI_Test(req, flag, status);
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  Masked m(n, reqs);
  if (m.served.empty()) return PMPI_Testall(n, reqs, flag, statuses);
  bool served_done = true;
  for (Served* s : m.served) served_done &= TestServed(s);
  if (!served_done) {  // MPI_Testall must not complete some requests and report false
    *flag = 0;
    return MPI_SUCCESS;
  }
  int rc = PMPI_Testall(n, m.reqs.data(), flag, statuses);
  m.CopyBack(reqs);
  return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  Masked m(n, reqs);
  if (m.served.empty()) return PMPI_Testany(n, reqs, index, flag, status);
  bool served_active = false;
  for (size_t k = 0; k < m.served.size(); ++k) {
    Served* s = m.served[k];
    if (!s->active) continue;
    if (TestServed(s)) {
      *index = m.served_index[k];
      *flag = 1;
      EmptyStatus(status);
      return MPI_SUCCESS;
    }
    served_active = true;
  }
  int rc = PMPI_Testany(n, m.reqs.data(), index, flag, status);
  m.CopyBack(reqs);
  // "No active request" is only true when no plan runs either.
  if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && served_active) *flag = 0;
  return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  for (;;) {
    int flag = 0;
    int rc = MPI_Testany(n, reqs, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    sched_yield();  // ranks may outnumber cores
  }
}

int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  Masked m(n, reqs);
  if (m.served.empty()) return PMPI_Testsome(n, reqs, outcount, indices, statuses);
  const bool ignore = statuses == MPI_STATUSES_IGNORE;
  int done = 0;
  bool served_active = false;
  for (size_t k = 0; k < m.served.size(); ++k) {
    Served* s = m.served[k];
    if (!s->active) continue;
    if (TestServed(s)) {
      indices[done] = m.served_index[k];
      if (!ignore) EmptyStatus(&statuses[done]);
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
  return MPI_SUCCESS;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  for (;;) {
    int rc = MPI_Testsome(n, reqs, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    sched_yield();  // ranks may outnumber cores
  }
}

int MPI_Request_free(MPI_Request* req) {
  weftPlan_t plan = nullptr;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    auto it = g_served.find(*req);
    if (it != g_served.end()) {
      plan = it->second.plan;
      g_served.erase(it);
    }
  }
  if (plan != nullptr) weftPlanFree(plan);  // completes an active execution first
  return PMPI_Request_free(req);
}

}  // extern "C"

#endif  // WEFT_HAVE_PCOLL
