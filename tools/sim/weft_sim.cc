// weft-sim: runs the compiled schedule of one collective on P virtual ranks in one process,
// checks every rank's result and predicts the time under the cost model. Ends with a line
// "PASS" or "FAIL: <why>" (exit status 1 on FAIL) after "predicted_us: <number>"; with
// --calls N (N > 1) the prediction is the time per call of N calls back to back, as a loop of
// calls measures it (sim.h).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/spec_args.h"
#include "compile/compile.h"
#include "sched/ir/verify.h"
#include "sim/sim.h"

namespace {

struct SimFlags {
  uint64_t mem_budget = 4ull << 30;
  uint64_t seed = 1;
  int calls = 1;
};

bool Extra(int argc, char** argv, int* i, void* ctx) {
  auto* f = static_cast<SimFlags*>(ctx);
  const std::string a = argv[*i];
  if (*i + 1 >= argc) return false;
  if (a == "--mem-budget-mib") {
    f->mem_budget = std::strtoull(argv[++*i], nullptr, 10) << 20;
    return true;
  }
  if (a == "--seed") {
    f->seed = std::strtoull(argv[++*i], nullptr, 10);
    return true;
  }
  if (a == "--calls") {
    const long n = std::strtol(argv[++*i], nullptr, 10);
    if (n < 1 || n > 1000) return false;
    f->calls = static_cast<int>(n);
    return true;
  }
  return false;
}

int Fail(const std::string& why) {
  std::printf("FAIL: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  weft::tools::SpecArgs a;
  SimFlags flags;
  if (argc >= 2 && (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help"))) {
    std::printf("usage: weft-sim %s  [--seed S] [--mem-budget-mib M] [--calls N]\n",
                weft::tools::SpecUsage());
    return 0;
  }
  if (!weft::tools::ParseSpecArgs(argc, argv, &a, Extra, &flags)) {
    std::fprintf(stderr, "weft-sim: %s\nusage: weft-sim %s", a.rest_error.c_str(),
                 weft::tools::SpecUsage());
    return 2;
  }
  if (!weft::tools::ChooseRecipe(&a)) return 1;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  std::vector<weft::ir::Program> ps = weft::sched::BuildAllPrograms(a.spec, a.recipe);
  const double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::string why;
  if (!weft::ir::VerifyMatching(ps, &why)) return Fail("verifier: " + why);
  std::printf("programs: %d built in %.1f ms, verified (bounds, in-flight buffers, matching)\n",
              a.spec.nranks, build_ms);

  weft::sim::SimOptions opt;
  opt.model = a.model;
  opt.seed = flags.seed;
  // Data check at the requested count when it fits the memory budget, else at the largest
  // halving of the count that does (same generator, same P; the timing replay below always
  // uses the requested count).
  weft::sched::CollSpec check = a.spec;
  std::vector<weft::ir::Program> check_ps;
  const std::vector<weft::ir::Program>* data_ps = &ps;
  while (weft::sim::SimFootprintBytes(check, *data_ps) > flags.mem_budget && check.count > 1) {
    check.count /= 2;
    check_ps = weft::sched::BuildAllPrograms(check, a.recipe);
    data_ps = &check_ps;
  }
  weft::sim::SimResult data = weft::sim::Simulate(check, *data_ps, opt);
  if (!data.pass) return Fail(data.why);
  if (check.count == a.spec.count) {
    std::printf("data: every rank's result matches the rank-order reference (count %llu)\n",
                static_cast<unsigned long long>(check.count));
  } else {
    std::printf(
        "data: checked at count %llu (count %llu needs more than --mem-budget-mib %llu);"
        " matches the reference\n",
        static_cast<unsigned long long>(check.count), static_cast<unsigned long long>(a.spec.count),
        static_cast<unsigned long long>(flags.mem_budget >> 20));
  }
  weft::sim::SimResult timing = data;
  if (data_ps != &ps || flags.calls > 1) {
    opt.check_data = false;
    opt.calls = flags.calls;
    timing = weft::sim::Simulate(a.spec, ps, opt);
    if (!timing.pass) return Fail(timing.why);
  }
  std::printf("messages: %llu  bytes_sent: %llu\n",
              static_cast<unsigned long long>(timing.messages),
              static_cast<unsigned long long>(timing.bytes_sent));
  if (flags.calls > 1) std::printf("calls: %d back to back, time per call\n", flags.calls);
  std::printf("predicted_us: %.3f\n", timing.predicted_us);
  std::printf("PASS\n");
  return 0;
}
