// How the simulator's replay charges the cost model's per-call terms.
#include <gtest/gtest.h>

#include "compile/compile.h"
#include "sim/sim.h"
#include "tune/cost_model.h"

namespace weft::simtest {
namespace {

// The call's own cost is paid once per call on every rank, whatever the schedule's length:
// a one-round and a two-round allreduce both move by exactly that much.
TEST(SimModel, CallOverheadIsChargedOncePerCall) {
  sched::CollSpec spec;
  spec.coll = sched::Coll::kAllReduce;
  spec.nranks = 4;
  spec.count = 2;
  spec.dtype = weftFloat32;
  for (const sched::Recipe& r : {sched::Recipe{"rexch", {4}, 0}, sched::Recipe{"rexch", {2, 2}, 0},
                                 sched::Recipe{"ring", {}, 0}}) {
    const std::vector<ir::Program> ps = sched::BuildAllPrograms(spec, r);
    sim::SimOptions opt;
    const sim::SimResult base = sim::Simulate(spec, ps, opt);
    ASSERT_TRUE(base.why.empty()) << base.why;
    opt.model.call_overhead_us = 0.3;
    const double with = sim::Simulate(spec, ps, opt).predicted_us;
    EXPECT_NEAR(with - base.predicted_us, 0.3, 1e-9) << sched::RecipeText(r);
    EXPECT_NEAR(tune::EstimateProgramUs(ps[0], opt.model) -
                    tune::EstimateProgramUs(ps[0], sim::SimOptions{}.model),
                0.3, 1e-9);
  }
}

}  // namespace
}  // namespace weft::simtest
