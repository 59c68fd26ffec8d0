// The recipe families the simulator property tests sweep: every generator with the factor
// shapes that exercise its branches (folding, full exchange, mixed radices, chunking), as a
// function of the rank count.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sched/algos/generator.h"
#include "sched/coll_spec.h"
#include "sched/recipe.h"

namespace weft::simtest {

/// One family: a name, the collectives it serves, and its recipe at P ranks.
struct Family {
  std::string name;
  std::vector<sched::Coll> colls;
  std::function<sched::Recipe(int nranks)> recipe;
  bool order_preserving = false;  // also run with the non-commutative test op
  bool shared_memory = false;
  int max_nranks = 1 << 30;  // the generator declines beyond this (a stated restriction)
};

/// Every family.
const std::vector<Family>& Families();

/// The types and ops the sweeps rotate through.
inline constexpr weftDataType_t kTypes[] = {weftInt8,    weftUint8,   weftInt32,   weftUint32,
                                            weftInt64,   weftUint64,  weftFloat16, weftFloat32,
                                            weftFloat64, weftBfloat16};
inline constexpr weftRedOp_t kOps[] = {weftSum, weftProd, weftMax, weftMin};

/// Runs one case: the recipe is accepted, its programs verify, and the simulator (with the
/// spec's node map in its model) gives every rank the reference result. "" or the failure with
/// the spec and recipe named.
std::string SimulateCase(const sched::CollSpec& spec, const sched::Recipe& recipe,
                         const sched::GenEnv& env);

/// A placement from its shape text ("2x3", "4x3:rr", "1+2+3"); a test failure if it does not
/// parse.
std::shared_ptr<const Topology> Shape(const std::string& text);
/// A placement no launcher makes: ranks dealt to nodes of sizes 1..4 in shuffled order.
std::shared_ptr<const Topology> Scrambled(int nranks, unsigned seed);
/// A call of coll with count elements of dtype over the placement shape ("2x3", "3+1", ...).
sched::CollSpec SpecOn(sched::Coll coll, const char* shape, uint64_t count,
                       weftDataType_t dtype = weftFloat64);

/// rexch's factors over n ranks: radix-2 reduce_scatter steps, then the mirrored allgather.
std::vector<int> HalvingDoubling(int n);
/// The composition of a node level's recipe and a network level's.
sched::Recipe Hierarchical(sched::Recipe node, sched::Recipe net);

}  // namespace weft::simtest
