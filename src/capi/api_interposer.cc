#include "capi/interposer_hooks.h"
#include "coll/node_alltoallv_coll.h"
#include "coll/v_mailbox_coll.h"
#include "core/params.h"
#include "core/spin_wait.h"
#include "native/mpi_quirks.h"
#include "plan/plan.h"
#include "plan/request.h"

namespace weft {
namespace {

void Expire(Comm* comm, const char* what) {
  if (comm == nullptr) return;  // detached by weftCommAbort: it reports that already
  const int64_t s = WaitTimeoutSeconds();
  comm->Fail(weftTimeout,
             "%s: nothing completed in %lld s while weft's part waited on peers: a peer died, left "
             "or stopped (WEFT_TIMEOUT_S)",
             what, static_cast<long long>(s));
  comm->Break(weftTimeout);
}

}  // namespace

void ExpireRequest(weftRequest_t request, const char* what) {
  if (request != nullptr && IsLiveRequest(request)) Expire(request->comm, what);
}

void ExpirePlan(weftPlan_t plan, const char* what) {
  if (plan != nullptr && IsLivePlan(plan)) Expire(plan->comm, what);
}

bool ServesAllToAllV(weftComm_t comm, bool nonblocking, bool in_place) {
  if (!IsLiveComm(comm)) return false;
  return CommUsesNodeAllToAllV(*comm) || CommUsesVMailbox(*comm, CollKind::kAllToAllV) ||
         (nonblocking && in_place && GetMpiQuirks().in_place_ialltoallv_wrong);
}

bool ServesOneNodeV(weftComm_t comm) {
  return IsLiveComm(comm) && CommUsesVMailbox(*comm, CollKind::kGatherV);
}

int64_t WaitTimeoutSeconds() { return ClampTimeoutS(GetParams().WEFT_TIMEOUT_S); }

}  // namespace weft
