// The schedule compiler's front door: choose a recipe for a call shape (forced, else ranked by
// the cost model among every generator that accepts the shape) and build one rank's Program
// (generator, then the chunking pass).
#pragma once

#include <string>
#include <vector>

#include "sched/algos/generator.h"
#include "sched/recipe.h"
#include "tune/cost_model.h"

namespace weft::sched {

/// The recipes selection considers for spec, in order of preference on a tie. Each names an
/// accepting generator (checked by Decline). On a node's shared memory selection takes the
/// shared-memory schedule its measured size rule names (and, for alltoall under a calibrated
/// handover rate, the pairwise exchange beside it, for `model` to weigh); `every` lists all of
/// them and the point-to-point ones too (what a tuner measures).
std::vector<Recipe> CandidateRecipes(const CollSpec& spec, const GenEnv& env,
                                     const tune::CostModel& model, bool every = false);

/// Picks the recipe for spec: `forced` when non-null and accepted (else *why says why not and
/// false is returned), otherwise the candidate with the lowest modelled time (estimated from the
/// programs of a few ranks chosen from the spec, so every rank picks the same; compile.cc's
/// ModelUs). False when no generator accepts the shape (the caller falls back to native MPI).
bool SelectRecipe(const CollSpec& spec, const GenEnv& env, const tune::CostModel& model,
                  const Recipe* forced, Recipe* out, std::string* why);

/// A candidate and its modelled time (as SelectRecipe estimates it).
struct RankedRecipe {
  Recipe recipe;
  double model_us = 0;
};

/// SelectRecipe's choice first, then every other candidate (CandidateRecipes with `every`)
/// by modelled time, fastest first. For tuners: it builds every candidate.
std::vector<RankedRecipe> RankRecipes(const CollSpec& spec, const GenEnv& env,
                                      const tune::CostModel& model);

/// The largest buffer (of the call's largest side) up to which oneshot runs on a node's shared
/// memory; shmpipe (or, for gather and scatter, the tree and cma) runs above. Measured per
/// collective: compile.cc.
uint64_t OneShotMaxBytes(Coll c);

/// "" when recipe can build spec; otherwise why not.
std::string DeclineRecipe(const CollSpec& spec, const Recipe& recipe, const GenEnv& env);

/// Builds rank's Program for spec with recipe (accepted by DeclineRecipe).
ir::Program BuildProgram(const CollSpec& spec, const Recipe& recipe, int rank);

/// Every rank's Program (the simulator's and weft-plan's input).
std::vector<ir::Program> BuildAllPrograms(const CollSpec& spec, const Recipe& recipe);

/// Elements of which counts must be multiples for the program to rescale exactly (0: never).
uint64_t RecipeScaleUnit(const CollSpec& spec, const Recipe& recipe);

}  // namespace weft::sched
