#include "sched/algos/generator.h"

#include "sched/algos/registry.h"

namespace weft::sched {

std::string Generator::Decline(const CollSpec& spec, const std::vector<int>& factors,
                               const GenEnv& env) const {
  if (!Serves(spec.coll)) return std::string(name()) + " does not serve " + CollName(spec.coll);
  if (spec.nranks < 1) return "no ranks";
  if (Reduces(spec.coll) && spec.op == weftAvg) {
    // An average needs a division after the last reduction; the native path provides it.
    return "avg runs on the native path";
  }
  if (Reduces(spec.coll) && !Commutative(spec.op) && !OrderPreserving()) {
    return std::string(name()) + " reorders operands; the op is not commutative";
  }
  for (int f : factors) {
    if (f == 0) return "factor 0";
  }
  return DeclineShape(spec, factors, env);
}

const std::vector<const Generator*>& AllGenerators() {
  static const std::vector<const Generator*> all = {
      &RecursiveExchange(), &Ring(),          &CyclicShift(),
      &KaryTree(),          &CopyIn(),        &OneShot(),
      &ShmPipeline(),       &SingleCopy(),    &ZeroCopy(),
      &PairwiseAllToAll(),  &BruckAllToAll(), &NodeAllToAll(),
      &NodePairAllToAll(),  &ScanDoubling()};
  return all;
}

const Generator* FindGenerator(const std::string& name) {
  for (const Generator* g : AllGenerators()) {
    if (name == g->name()) return g;
  }
  return nullptr;
}

}  // namespace weft::sched
