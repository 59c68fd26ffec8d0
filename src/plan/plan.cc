#include "plan/plan.h"

#include <memory>
#include <string>

#include "coll/build_collective.h"
#include "coll/zero_copy_agreement.h"
#include "core/hot_path.h"
#include "core/live_set.h"
#include "core/log.h"

namespace weft {
namespace {

LiveSet<Plan> g_live;

}  // namespace

Status CreatePlan(Comm& comm, const CollArgs& args, Plan** out) {
  auto plan = std::make_unique<Plan>();
  plan->comm = &comm;
  plan->args = args;
  bool seen_only_here = false;
  if (Status valid = ValidateArgs(comm, &plan->args, &seen_only_here); valid != weftSuccess) {
    // The other ranks' plans would wait for this rank's at their starts: break and tell them.
    if (seen_only_here) comm.Break(valid);
    return valid;
  }
  WEFT_CHECK(device::RouteBuffers(comm, plan->args, &plan->route));
  if (plan->route.any_device()) {
    plan->description = std::string(CollShortName(args.kind)) +
                        " count=" + std::to_string(args.count) +
                        ": device buffers, staged through host memory in pipelined chunks "
                        "(each chunk runs the host schedule chosen for its size)";
    plan->description +=
        "; above one chunk, each start agrees with the other ranks on a path that skips "
        "staging where every rank can take it (docs/devices.md: NCCL, device to device between "
        "node peers, a device-aware MPI)";
  } else {
    WEFT_CHECK(AgreeZeroCopy(comm, &plan->args));
    plan->args.slots_streamed = comm.SlotsStreamed();
    WEFT_CHECK(BuildCollective(comm, plan->args, &plan->program));
    plan->description = DescribeCollective(comm, plan->args, *plan->program);
  }
  WEFT_INFO(kPlan, "plan %p: %s", static_cast<void*>(plan.get()), plan->description.c_str());
  comm.live_plans.fetch_add(1);
  {
    std::lock_guard<std::mutex> lk(comm.plans_mu);
    comm.plans.insert(plan.get());
  }
  g_live.Add(plan.get());
  *out = plan.release();
  return weftSuccess;
}

void DestroyPlan(Plan* plan) {
  g_live.Remove(plan);
  if (plan->comm != nullptr && IsLiveComm(plan->comm)) {
    plan->comm->live_plans.fetch_sub(1);
    std::lock_guard<std::mutex> lk(plan->comm->plans_mu);
    plan->comm->plans.erase(plan);
  }
  delete plan;
}

void DetachPlans(Comm& comm) {
  std::set<Plan*> plans;
  {
    std::lock_guard<std::mutex> lk(comm.plans_mu);
    plans.swap(comm.plans);
  }
  for (Plan* plan : plans) {
    if (plan->program)
      plan->program->Abandon();  // frees what refers to the communicator, while it still exists
    plan->comm = nullptr;
  }
  comm.live_plans.store(0);
}

WEFT_HOT bool IsLivePlan(const Plan* plan) { return g_live.Contains(plan); }

}  // namespace weft
