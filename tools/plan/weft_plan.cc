// weft-plan: prints the compiled schedule of one collective: the recipe (given or chosen by
// the cost model), the ir Program of one rank (or all) and its bytecode.
//   weft-plan allreduce -p 8 -n 1M --recipe rexch:-4,-2,2,4 [--rank R|all] [--bytecode]
//   weft-plan allreduce -p 1024 -n 1K --topology 8x128 --candidates   every candidate recipe
//                         with the estimate selection ranked it by (the chosen one first)
//   weft-plan --list      the generators, what they serve and their factors
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/parse_int.h"
#include "common/spec_args.h"
#include "compile/compile.h"
#include "sched/ir/text.h"
#include "sched/ir/verify.h"
#include "sched/passes/bytecode.h"

namespace {

struct PlanFlags {
  int rank = 0;
  bool all = false, bytecode = false, candidates = false;
};

bool Extra(int argc, char** argv, int* i, void* ctx) {
  auto* f = static_cast<PlanFlags*>(ctx);
  const std::string a = argv[*i];
  if (a == "--bytecode") return f->bytecode = true;
  if (a == "--candidates") return f->candidates = true;
  if (a == "--rank" && *i + 1 < argc) {
    const std::string v = argv[++*i];
    if (v == "all") {
      f->all = true;
      return true;
    }
    long long rank = 0;
    if (!weft::tools::ParseInt(v, 0, weft::tools::kMaxRanks - 1, &rank)) return false;
    f->rank = static_cast<int>(rank);
    return true;
  }
  return false;
}

void List() {
  for (const weft::sched::Generator* g : weft::sched::AllGenerators()) {
    std::string serves;
    for (int c = 0; c < weft::sched::kNumColls; ++c) {
      if (g->Serves(static_cast<weft::sched::Coll>(c))) {
        serves += std::string(serves.empty() ? "" : ",") +
                  weft::sched::CollName(static_cast<weft::sched::Coll>(c));
      }
    }
    std::printf("%-9s %-34s %s%s\n", g->name(), serves.c_str(), g->summary(),
                g->OrderPreserving() ? " [order-preserving]" : "");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && !std::strcmp(argv[1], "--list")) {
    List();
    return 0;
  }
  if (argc >= 2 && (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help"))) {
    std::printf(
        "usage: weft-plan %s  [--rank R|all] [--bytecode] [--candidates]\n"
        "       weft-plan --list\n",
        weft::tools::SpecUsage());
    return 0;
  }
  weft::tools::SpecArgs a;
  PlanFlags f;
  if (!weft::tools::ParseSpecArgs(argc, argv, &a, Extra, &f)) {
    std::fprintf(stderr, "weft-plan: %s\nusage: weft-plan %s", a.rest_error.c_str(),
                 weft::tools::SpecUsage());
    return 2;
  }
  if (f.rank < 0 || f.rank >= a.spec.nranks) {
    std::fprintf(stderr, "weft-plan: --rank out of range\n");
    return 2;
  }
  if (f.candidates && a.has_recipe) {
    std::fprintf(stderr, "weft-plan: --candidates lists what selection weighs: drop --recipe\n");
    return 2;
  }
  if (f.candidates) {  // what selection weighed, not one program
    const auto ranked = weft::sched::RankRecipes(a.spec, a.env, a.model);
    if (ranked.empty()) return 1;
    std::printf("spec: %s\n", weft::sched::SpecText(a.spec).c_str());
    for (size_t i = 0; i < ranked.size(); ++i) {
      std::printf("%s %10.3f us  %s\n", i == 0 ? "chosen   " : "candidate", ranked[i].model_us,
                  weft::sched::RecipeText(ranked[i].recipe).c_str());
    }
    return 0;
  }
  if (!weft::tools::ChooseRecipe(&a)) return 1;
  const uint64_t unit = weft::sched::RecipeScaleUnit(a.spec, a.recipe);
  for (int r = f.all ? 0 : f.rank; r < (f.all ? a.spec.nranks : f.rank + 1); ++r) {
    const weft::ir::Program p = weft::sched::BuildProgram(a.spec, a.recipe, r);
    std::string why;
    if (!weft::ir::VerifyProgram(p, &why)) {
      std::printf("FAIL: %s\n", why.c_str());
      return 1;
    }
    std::fputs(weft::ir::PrintProgram(p).c_str(), stdout);
    if (f.bytecode) {
      std::fputs(weft::sched::DumpBytecode(weft::sched::Lower(p, a.spec.count, unit)).c_str(),
                 stdout);
    }
  }
  return 0;
}
