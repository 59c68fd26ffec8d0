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
/// accepting generator (checked by Decline).
std::vector<Recipe> CandidateRecipes(const CollSpec& spec, const GenEnv& env);

/// Picks the recipe for spec: `forced` when non-null and accepted (else *why says why not and
/// false is returned), otherwise the candidate with the lowest modelled time (the largest
/// estimate over ranks 0, P/2 and P-1, so every rank picks the same). False when no generator
/// accepts the shape (the caller falls back to native MPI).
bool SelectRecipe(const CollSpec& spec, const GenEnv& env, const tune::CostModel& model,
                  const Recipe* forced, Recipe* out, std::string* why);

/// "" when recipe can build spec; otherwise why not.
std::string DeclineRecipe(const CollSpec& spec, const Recipe& recipe, const GenEnv& env);

/// Builds rank's Program for spec with recipe (accepted by DeclineRecipe).
ir::Program BuildProgram(const CollSpec& spec, const Recipe& recipe, int rank);

/// Every rank's Program (the simulator's and weft-plan's input).
std::vector<ir::Program> BuildAllPrograms(const CollSpec& spec, const Recipe& recipe);

/// Elements of which counts must be multiples for the program to rescale exactly (0: never).
uint64_t RecipeScaleUnit(const CollSpec& spec, const Recipe& recipe);

}  // namespace weft::sched
