#include "sched/compile.h"

#include <algorithm>
#include <limits>

#include "sched/algos/registry.h"
#include "sched/passes/chunk.h"
#include "sched/patterns/butterfly.h"

namespace weft::sched {

std::vector<Recipe> CandidateRecipes(const CollSpec& spec, const GenEnv& env) {
  std::vector<Recipe> out;
  auto add = [&](const char* gen, std::vector<int> factors, uint64_t chunk = 0) {
    Recipe r{gen, std::move(factors), chunk};
    if (DeclineRecipe(spec, r, env).empty()) out.push_back(r);
  };
  const std::vector<int> radices = patterns::RadicesUpTo(spec.nranks, 4);
  const uint64_t bytes = spec.count * ElemBytes(spec);
  // oneshot (shared memory; declines without a node segment) is a default candidate only for
  // allreduce up to 4 KiB: at 2 ranks it measured 0.83-1.34x native there against 0.72-0.83x
  // for the point-to-point schedules (8 KiB: 0.65x, so not beyond), but each call opens with an
  // implicit barrier (a slot is rewritten only after every peer has read it) and copies in and out
  // serially, which cost bcast and reduce 0.4-0.7x and reduce_scatter 0.72x at 64 B. copyin is not
  // a default candidate: 0.5-0.6x below 2 KiB and 0.8x from 128 KiB up (three synchronising phases;
  // the input moves twice). WEFT_RECIPE selects either anywhere. (Measured with
  // WEFT_RECIPE=oneshot / copyin / rexch:-2,2 mpiexec -n 2 weft-bench allreduce -b 8 -e 4M -f 4,
  // and with weft-bench all -b 8 -e 4M -f 8 while oneshot was a candidate everywhere.)
  if (spec.coll == Coll::kAllReduce && bytes <= (4u << 10)) add("oneshot", {});
  switch (spec.coll) {
    case Coll::kAllReduce: {
      add("rexch", RecursiveExchange().DefaultFactors(spec));
      add("rexch", radices);  // recursive doubling: latency-optimal for small vectors
      std::vector<int> two = patterns::RadicesUpTo(spec.nranks, 2);
      std::vector<int> f;
      for (int r : two) f.push_back(-r);
      f.insert(f.end(), two.rbegin(), two.rend());
      add("rexch", f);
      add("ring", {});
      add("tree", {2});
      break;
    }
    case Coll::kReduceScatter: {
      std::vector<int> f;
      for (int r : radices) f.push_back(-r);
      add("rexch", f);
      add("shift", {2});
      add("ring", {});
      break;
    }
    case Coll::kAllGather:
      add("rexch", std::vector<int>(radices.rbegin(), radices.rend()));
      add("shift", {2});
      add("ring", {});
      break;
    case Coll::kBroadcast:
      add("tree", {2});
      add("tree", {4});
      if (bytes >= (256u << 10)) add("tree", {2}, 64u << 10);
      break;
    case Coll::kReduce:
      add("tree", {2});
      add("tree", {4});
      if (bytes >= (256u << 10)) add("tree", {2}, 64u << 10);
      break;
    case Coll::kAllToAll:
      add("pairwise", {4});
      add("bruck", {});
      break;
  }
  return out;
}

std::string DeclineRecipe(const CollSpec& spec, const Recipe& recipe, const GenEnv& env) {
  const Generator* g = FindGenerator(recipe.generator);
  if (g == nullptr) return "unknown generator '" + recipe.generator + "'";
  std::string why = g->Decline(spec, recipe.factors, env);
  if (why.empty() && recipe.chunk_bytes) why = passes::DeclineChunking(spec);
  if (why.empty() && recipe.chunk_bytes && !g->Pipelinable()) {
    why = recipe.generator + " does not number its steps, so it is not chunked";
  }
  return why;
}

ir::Program BuildProgram(const CollSpec& spec, const Recipe& recipe, int rank) {
  const Generator* g = FindGenerator(recipe.generator);
  if (recipe.chunk_bytes == 0) return g->Generate(spec, recipe.factors, rank);
  return passes::Pipeline(spec, recipe.chunk_bytes, rank, [&](const CollSpec& piece) {
    return g->Generate(piece, recipe.factors, rank);
  });
}

std::vector<ir::Program> BuildAllPrograms(const CollSpec& spec, const Recipe& recipe) {
  std::vector<ir::Program> ps;
  ps.reserve(spec.nranks);
  for (int r = 0; r < spec.nranks; ++r) ps.push_back(BuildProgram(spec, recipe, r));
  return ps;
}

uint64_t RecipeScaleUnit(const CollSpec& spec, const Recipe& recipe) {
  if (recipe.chunk_bytes) return 0;  // the number of chunks follows the count
  return FindGenerator(recipe.generator)->ScaleUnit(spec, recipe.factors);
}

bool SelectRecipe(const CollSpec& spec, const GenEnv& env, const tune::CostModel& model,
                  const Recipe* forced, Recipe* out, std::string* why) {
  if (forced != nullptr) {
    *why = DeclineRecipe(spec, *forced, env);
    if (!why->empty()) return false;
    *out = *forced;
    return true;
  }
  const std::vector<Recipe> cands = CandidateRecipes(spec, env);
  if (cands.empty()) {
    *why = "no generator accepts " + SpecText(spec);
    return false;
  }
  if (cands.size() == 1) {
    *out = cands[0];
    return true;
  }
  double best = std::numeric_limits<double>::infinity();
  const int P = spec.nranks;
  const double latency = std::min(model.intra.latency_us, model.inter.latency_us);
  for (const Recipe& r : cands) {
    // A schedule whose latency alone loses is not built: a ring at P = 4096 has 8190 rounds,
    // and building it made selection cost milliseconds.
    if (FindGenerator(r.generator)->MinRounds(spec) * latency >= best) continue;
    double worst = 0;
    for (int rank : {0, P / 2, P - 1}) {
      worst = std::max(worst, tune::EstimateProgramUs(BuildProgram(spec, r, rank), model));
    }
    if (worst < best) {
      best = worst;
      *out = r;
    }
  }
  return true;
}

}  // namespace weft::sched
