#include "coll/choose_recipe.h"

#include <algorithm>
#include <iterator>
#include <mutex>

#include "comm/comm.h"
#include "compile/compile.h"
#include "core/log.h"
#include "core/params.h"
#include "tune/overrides.h"
#include "tune/wisdom.h"

namespace weft {
namespace {

bool ToSpec(const Comm& comm, const CollArgs& a, sched::CollSpec* s) {
  const ScheduledKind* k = std::find_if(std::begin(kScheduledKinds), std::end(kScheduledKinds),
                                        [&](const ScheduledKind& x) { return x.kind == a.kind; });
  if (k == std::end(kScheduledKinds)) return false;
  s->coll = k->coll;
  s->nranks = comm.size;
  s->count = a.count;
  s->dtype = a.type;
  s->op = a.op;
  s->root = a.root;
  s->in_place = a.in_place;
  s->nodes = comm.node_map;
  return true;
}

// WEFT_RECIPE parsed once per process; a text that does not parse is reported once.
const sched::Recipe* ForcedRecipe() {
  static std::once_flag once;
  static sched::Recipe recipe;
  static bool have = false;
  std::call_once(once, [] {
    const std::string text = GetParams().WEFT_RECIPE;
    if (text.empty()) return;
    std::string why;
    have = sched::ParseRecipe(text, &recipe, &why);
    if (!have) WEFT_WARN(kColl, "WEFT_RECIPE=%s ignored: %s", text.c_str(), why.c_str());
  });
  return have ? &recipe : nullptr;
}

// WEFT_TUNE parsed once per process; a text that does not parse is reported once and ignored
// whole (a partial table would choose differently from what the user wrote).
const std::vector<tune::Override>& TuneOverrides() {
  static std::once_flag once;
  static std::vector<tune::Override> overrides;
  std::call_once(once, [] {
    const std::string text = GetParams().WEFT_TUNE;
    std::string why;
    if (!text.empty() && !tune::ParseOverrides(text, &overrides, &why)) {
      overrides.clear();
      WEFT_WARN(kColl, "WEFT_TUNE ignored: %s", why.c_str());
    }
  });
  return overrides;
}

// True when `recipe` applies to the call; else says at INFO why `source` passes it on.
bool Applies(const SelectionInput& in, const sched::Recipe& recipe, const char* source,
             const std::string& entry) {
  const std::string why = sched::DeclineRecipe(in.spec, recipe, in.env);
  if (why.empty()) {
    WEFT_INFO(kColl, "%s %s decides %s", source, entry.c_str(), sched::SpecText(in.spec).c_str());
    return true;
  }
  WEFT_INFO(kColl, "%s %s does not apply to %s (%s); passing the choice on", source, entry.c_str(),
            sched::SpecText(in.spec).c_str(), why.c_str());
  return false;
}

// The entry of `table` for the call, if one matches and its recipe applies.
bool FromTable(const SelectionInput& in, const std::vector<tune::Override>& table,
               const char* source, sched::Recipe* out) {
  const tune::Override* o =
      tune::FindOverride(table, in.spec.coll, in.spec.count * sched::ElemBytes(in.spec));
  if (o == nullptr || !Applies(in, o->recipe, source, o->text)) return false;
  *out = o->recipe;
  return true;
}

}  // namespace

CollKind KindOfColl(sched::Coll coll) {
  for (const ScheduledKind& k : kScheduledKinds) {
    if (k.coll == coll) return k.kind;
  }
  return CollKind::kAllReduce;  // unreachable: the table names every sched::Coll
}

bool MakeSelectionInput(const Comm& comm, const CollArgs& args, SelectionInput* in) {
  if (GetParams().WEFT_SCHEDULES == 0 || !ToSpec(comm, args, &in->spec)) return false;
  // Shared-memory schedules need every rank on one node (node rank == rank); across nodes, a
  // hierarchical recipe's node level may use each node's segment.
  in->env.shared_memory = comm.one_node_segment();
  in->env.node_shared_memory = comm.nodes_share_memory;
  in->env.single_copy = in->env.shared_memory && comm.single_copy;
  in->env.node_single_copy = in->env.node_shared_memory && comm.single_copy;
  in->env.oversubscribed = comm.some_machine_oversubscribed;
  // weftMemAlloc maps a rank's memory in its node peers (every node's, across nodes).
  in->env.zero_copy = (in->env.shared_memory || in->env.node_shared_memory) && args.zero_copy;
  in->env.slots_streamed = in->env.shared_memory && args.slots_streamed;
  in->model = tune::CostModel{};
  in->model.peer_buffers_mapped = in->env.zero_copy;
  if (comm.topo.num_nodes() > 1) {
    in->model.nodes = in->spec.nodes;
    in->model.inter = {static_cast<double>(comm.net_latency_us), comm.net_gbits / 8.0};
  }
  // Calibrated parameters replace the defaults (and WEFT_NET_*, where the section measured
  // the network: it was taken on this very shape).
  if (comm.wisdom) tune::ApplyParams(*comm.wisdom, &in->model);
  return true;
}

bool ChooseRecipe(const Comm& comm, const SelectionInput& call, sched::Recipe* out,
                  std::string* why, const char** decided_by) {
  // At 4 ranks on round-robin virtual nodes an in-place bcast's root chose tree:2/tree:2 here
  // while the others chose a flat tree, and the job hung (mp.coll_matrix.np4.vnodes2rr.leader).
  SelectionInput in = call;
  in.spec.in_place = false;
  if (comm.tool_recipe &&
      Applies(in, *comm.tool_recipe, "tool recipe", sched::RecipeText(*comm.tool_recipe))) {
    *out = *comm.tool_recipe;
    *decided_by = "tool";
    return true;
  }
  // WEFT_RECIPE and WEFT_TUNE only where every rank of the communicator has the same
  // (comm.selection_knobs_agreed), or ranks would choose apart; likewise comm.wisdom is set
  // only where every rank holds the same section.
  if (comm.selection_knobs_agreed) {
    const sched::Recipe* forced = ForcedRecipe();
    if (forced != nullptr && Applies(in, *forced, "WEFT_RECIPE", sched::RecipeText(*forced))) {
      *out = *forced;
      *decided_by = "WEFT_RECIPE";
      return true;
    }
    if (FromTable(in, TuneOverrides(), "WEFT_TUNE entry", out)) {
      *decided_by = "WEFT_TUNE";
      return true;
    }
  }
  // weft-tune measures calls on ordinary buffers; a call on weftMemAlloc memory that every
  // rank shares has zerocopy, which it never timed, so the model's rule decides those.
  if (comm.wisdom && !in.env.zero_copy && FromTable(in, comm.wisdom->ranges, "wisdom range", out)) {
    *decided_by = "wisdom";
    return true;
  }
  *decided_by = "model";
  return sched::SelectRecipe(in.spec, in.env, in.model, nullptr, out, why);
}

}  // namespace weft
