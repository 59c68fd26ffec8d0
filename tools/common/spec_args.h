// Command-line parsing shared by weft-plan and weft-sim: a collective shape and a recipe.
#pragma once

#include <string>

#include "sched/algos/generator.h"
#include "sched/coll_spec.h"
#include "sched/recipe.h"
#include "tune/cost_model.h"

namespace weft::tools {

/// The most ranks a tool simulates or plans for.
inline constexpr long long kMaxRanks = 1 << 16;
/// The most bytes of buffers, over all ranks, a call may name. The tools never hold more than
/// weft-sim's --mem-budget-mib of them (its data check halves the count until it fits, and
/// its timing replay holds none), so this only bounds the arithmetic: 1 TiB lets 2048 ranks
/// name 64 KiB alltoall blocks.
inline constexpr long long kMaxCallBytes = 1ll << 40;

/// What the command line asked for.
struct SpecArgs {
  sched::CollSpec spec;
  bool has_recipe = false;
  sched::Recipe recipe;
  sched::GenEnv env;
  tune::CostModel model;
  std::string rest_error;  // set by Parse on a bad argument
};

/// Parses "<collective> -p P -n COUNT [--dtype T] [--op O] [--root R] [--in-place]
/// [--recipe R] [--topology NxR]" plus the flags `extra` accepts (it returns false for a flag it
/// does not know; i is advanced past consumed values). Counts take K/M/G suffixes (x1024).
bool ParseSpecArgs(int argc, char** argv, SpecArgs* out,
                   bool (*extra)(int argc, char** argv, int* i, void* ctx), void* ctx);

/// The usage text of the shared part.
const char* SpecUsage();

/// Chooses the recipe (the given one or the cost model's) and prints "recipe: ...". False with
/// a message on stderr when none applies.
bool ChooseRecipe(SpecArgs* a);

}  // namespace weft::tools
