#include "time_recipes.h"

#include <mpi.h>

#include <algorithm>
#include <memory>

#include "coll/choose_recipe.h"
#include "coll/program_cache.h"
#include "core/dtype.h"
#include "plan/plan.h"

namespace weft::tune_tool {
namespace {

struct PlanDeleter {
  void operator()(Plan* p) const { DestroyPlan(p); }
};
using PlanPtr = std::unique_ptr<Plan, PlanDeleter>;

// A plan of shape on buffers, built with `recipe` forced (null: the library's own choice).
bool MakePlan(Comm& comm, const CallShape& shape, const sched::Recipe* recipe, unsigned char* send,
              unsigned char* recv, PlanPtr* out, std::string* err) {
  comm.tool_recipe = recipe ? std::make_shared<const sched::Recipe>(*recipe) : nullptr;
  CollArgs a = MakeArgs(shape.kind, send, recv, shape.count, shape.type, weftSum, 0);
  Status st = ValidateArgs(comm, &a);
  Plan* p = nullptr;
  if (st == weftSuccess) st = CreatePlan(comm, a, &p);
  comm.tool_recipe = nullptr;
  if (st != weftSuccess) {
    *err = comm.LastError();
    return false;
  }
  out->reset(p);
  return true;
}

std::string RecipeOf(const Plan& p) {
  const CompiledColl* c = p.program ? p.program->compiled() : nullptr;
  return c ? sched::RecipeText(c->recipe) : "native";
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

bool RootExtents(const Comm& comm, const CallShape& shape, Extents* e) {
  const CollArgs a =
      MakeArgs(shape.kind, nullptr, nullptr, shape.count, shape.type, weftSum, comm.rank);
  return ComputeExtents(comm, a, TypeSize(shape.type), e);
}

std::vector<sched::RankedRecipe> Candidates(Comm& comm, const CallShape& shape) {
  // Selection reads the shape, not the buffers (an out-of-place call on ordinary memory).
  const CollArgs a = MakeArgs(shape.kind, nullptr, nullptr, shape.count, shape.type, weftSum, 0);
  SelectionInput in;
  if (!MakeSelectionInput(comm, a, &in)) return {};
  return sched::RankRecipes(in.spec, in.env, in.model);
}

bool TimeRecipes(Comm& comm, const CallShape& shape, const std::vector<sched::Recipe>& forced,
                 int reps, double turn_us, std::vector<Timing>* timings, std::string* err) {
  Extents ext;
  if (!RootExtents(comm, shape, &ext)) {
    *err = "buffers too large";
    return false;
  }
  std::vector<unsigned char> send(std::max<size_t>(ext.send, 1), 1);
  std::vector<unsigned char> recv(std::max<size_t>(ext.recv, 1), 0);
  std::vector<PlanPtr> plans(forced.size() + 1);
  if (!MakePlan(comm, shape, nullptr, send.data(), recv.data(), &plans[0], err)) return false;
  for (size_t i = 0; i < forced.size(); ++i) {
    if (!MakePlan(comm, shape, &forced[i], send.data(), recv.data(), &plans[i + 1], err)) {
      return false;
    }
  }
  auto run = [&](Plan* p, int iters, double* us) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      if (weftPlanStart(p, nullptr) != weftSuccess || weftPlanWait(p) != weftSuccess) {
        *err = comm.LastError();
        return false;
      }
    }
    *us = (MPI_Wtime() - t0) * 1e6 / iters;
    return true;
  };
  // Warm each plan once, and size the turn by the default's time (every rank the same).
  std::vector<double> first(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!run(plans[i].get(), 1, &first[i])) return false;
  }
  double one = 0;
  {
    double t = first[0];
    MPI_Allreduce(&t, &one, 1, MPI_DOUBLE, MPI_MAX, comm.mpi);
  }
  const int iters = std::clamp(static_cast<int>(turn_us / std::max(one, 0.1)), 1, 2000);
  std::vector<std::vector<double>> per(plans.size());
  std::vector<double> mine(plans.size()), slowest(plans.size());
  for (int r = 0; r < reps; ++r) {
    // Each turn starts with another plan: none always runs first after the barrier. A plan's
    // turn begins with one call untimed, so it measures the plan's calls after its own, as an
    // application's repeated call runs: at 32 MiB (one call a turn) a bcast's cma took
    // 3,241-6,364 us without it and lost to shmpipe in 2 of 5 regret runs, 2,937-3,399 us with
    // it and won all 5 (bench/tuning/regret-xeon/warm-call).
    for (size_t j = 0; j < plans.size(); ++j) {
      const size_t i = (j + r) % plans.size();
      double warm = 0;
      MPI_Barrier(comm.mpi);
      if (!run(plans[i].get(), 1, &warm) || !run(plans[i].get(), iters, &mine[i])) return false;
    }
    MPI_Allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX,
                  comm.mpi);
    for (size_t i = 0; i < plans.size(); ++i) per[i].push_back(slowest[i]);
  }
  timings->clear();
  for (size_t i = 0; i < plans.size(); ++i) {
    timings->push_back({RecipeOf(*plans[i]), Median(per[i])});
  }
  return true;
}

}  // namespace weft::tune_tool
