// The recipe families the simulator property tests sweep: every generator with the factor
// shapes that exercise its branches (folding, full exchange, mixed radices, chunking), as a
// function of the rank count.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

}  // namespace weft::simtest
