// A persistent collective: arguments bound and lowered once, started many times.
#pragma once

#include <string>

#include "call/coll_args.h"
#include "coll/executable.h"
#include "coll/progress.h"
#include "device/buffer_route.h"

/// The object behind weftPlan_t.
struct weftPlan {
  weft::Comm* comm = nullptr;  // null once weftCommAbort detached the plan
  weft::CollArgs args;
  /// Host buffers: what runs (a compiled schedule or the native routine); null for device
  /// buffers.
  std::unique_ptr<weft::Executable> program;
  /// Its current start, queued with the communicator's other nonblocking executions.
  weft::Execution exec;
  /// Device buffers: each start stages them through host memory (device/staged_coll.h) and
  /// completes before returning; `program` stays empty.
  weft::device::BufferRoute route;
  std::string description;  // DescribeCollective, made once at creation
};

namespace weft {

using Plan = weftPlan;

/// Validates and lowers args into a new plan registered as live.
Status CreatePlan(Comm& comm, const CollArgs& args, Plan** out);
/// Unregisters and deletes a plan.
void DestroyPlan(Plan* plan);
/// weftCommAbort: abandons any execution of comm's live plans and detaches them from comm, so
/// that they can only be freed (their other calls report the abort).
void DetachPlans(Comm& comm);
/// True while plan was created and not yet freed.
bool IsLivePlan(const Plan* plan);

}  // namespace weft
