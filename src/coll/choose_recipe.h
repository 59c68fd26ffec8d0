// Which recipe a compiled collective runs, decided from what every rank of the communicator
// knows identically. In order, the first that names a recipe applying to the call decides:
// a tool's recipe (Comm::tool_recipe, weft-tune), WEFT_RECIPE, WEFT_TUNE's entries, the
// wisdom section's measured winners, and else the cost model (with the wisdom's calibrated
// parameters where there is a section). A recipe that does not apply to the call (its
// generator declines the shape) passes the decision on, logged at INFO.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "call/coll_args.h"
#include "sched/algos/generator.h"
#include "sched/coll_spec.h"
#include "sched/recipe.h"
#include "tune/cost_model.h"

namespace weft {

/// The call kinds that have compiled schedules, each with the schedule compiler's name for it.
struct ScheduledKind {
  CollKind kind;
  sched::Coll coll;
};
inline constexpr ScheduledKind kScheduledKinds[] = {
    {CollKind::kAllReduce, sched::Coll::kAllReduce},
    {CollKind::kReduceScatter, sched::Coll::kReduceScatter},
    {CollKind::kAllGather, sched::Coll::kAllGather},
    {CollKind::kBroadcast, sched::Coll::kBroadcast},
    {CollKind::kReduce, sched::Coll::kReduce},
    {CollKind::kAllToAll, sched::Coll::kAllToAll},
    {CollKind::kGather, sched::Coll::kGather},
    {CollKind::kScatter, sched::Coll::kScatter},
    {CollKind::kScan, sched::Coll::kScan},
    {CollKind::kExScan, sched::Coll::kExScan},
};

/// The call kind of a schedule compiler collective (every one has a kind).
CollKind KindOfColl(sched::Coll coll);

/// What selection sees for one call.
struct SelectionInput {
  sched::CollSpec spec;
  sched::GenEnv env;
  tune::CostModel model;
};

/// Fills *in for args on comm; false for kinds that have no schedules (gather, the
/// v-collectives, ...) or with WEFT_SCHEDULES=0.
bool MakeSelectionInput(const Comm& comm, const CollArgs& args, SelectionInput* in);

/// Chooses the recipe; false when none applies (the call runs native MPI). *decided_by names
/// what decided ("tool", "WEFT_RECIPE", "WEFT_TUNE", "wisdom", "model"). The choice is made for
/// the out-of-place shape whatever in.spec.in_place says: passing buffers in place is a rank's
/// own (MPI lets a bcast or reduce root alone do it), and every rank must choose alike; the
/// program is then built for the rank's own form, whose messages are the same.
bool ChooseRecipe(const Comm& comm, const SelectionInput& in, sched::Recipe* out, std::string* why,
                  const char** decided_by);

}  // namespace weft
