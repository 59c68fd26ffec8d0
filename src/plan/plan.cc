#include "plan/plan.h"

#include <memory>
#include <mutex>
#include <unordered_set>

#include "core/log.h"
#include "native/native_colls.h"

namespace weft {
namespace {

std::mutex g_mu;
std::unordered_set<const Plan*> g_live;

}  // namespace

Status CreatePlan(Comm& comm, const CollArgs& args, Plan** out) {
  auto plan = std::make_unique<Plan>();
  plan->comm = &comm;
  plan->args = args;
  WEFT_CHECK(ValidateArgs(comm, &plan->args));
  WEFT_CHECK(BuildNative(comm, plan->args, &plan->program));
  plan->description = DescribeNative(comm, plan->args, plan->program);
  WEFT_INFO(kPlan, "plan %p: %s", static_cast<void*>(plan.get()), plan->description.c_str());
  comm.live_plans.fetch_add(1);
  std::lock_guard<std::mutex> lk(g_mu);
  g_live.insert(plan.get());
  *out = plan.release();
  return weftSuccess;
}

void DestroyPlan(Plan* plan) {
  {
    std::lock_guard<std::mutex> lk(g_mu);
    g_live.erase(plan);
  }
  if (IsLiveComm(plan->comm)) plan->comm->live_plans.fetch_sub(1);
  delete plan;
}

bool IsLivePlan(const Plan* plan) {
  std::lock_guard<std::mutex> lk(g_mu);
  return plan != nullptr && g_live.count(plan) != 0;
}

}  // namespace weft
