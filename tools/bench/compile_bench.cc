// weft-compile-bench: what compiling a schedule costs, against what running one costs.
// Compile = choosing the recipe (cost model over the candidates), generating this rank's
// Program and lowering it to bytecode: what the first blocking call of a shape pays (later
// calls hit the cache). Timed in one process for allreduce of 1 MiB at P = 128 and P = 4096
// (ranks 0, P/2 and P-1: the median), and for the 8-byte allreduce at 2 ranks, whose execution
// is then timed for real under mpiexec -n 2 (weftAllReduce, median of the slowest rank).
//   mpiexec -n 2 weft-compile-bench [--iters N]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "compile/compile.h"
#include "sched/passes/bytecode.h"
#include "weft/weft.h"

namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Cost {
  std::string recipe;
  double select_us, build_us, lower_us;
  size_t instrs;
};

// shared_memory: whether the ranks share a node segment (what the library sees at 2 ranks on
// one node; the 128- and 4096-rank shapes are timed as multi-node, point-to-point only).
Cost CompileCost(const weft::sched::CollSpec& spec, int iters, bool shared_memory) {
  weft::sched::GenEnv env;
  env.shared_memory = shared_memory;
  weft::tune::CostModel model;
  std::vector<double> sel, build, lower;
  Cost c{};
  for (int i = 0; i < iters; ++i) {
    const int rank = (i % 3 == 0) ? 0 : (i % 3 == 1 ? spec.nranks / 2 : spec.nranks - 1);
    auto t0 = Clock::now();
    weft::sched::Recipe r;
    std::string why;
    weft::sched::SelectRecipe(spec, env, model, nullptr, &r, &why);
    auto t1 = Clock::now();
    const weft::ir::Program p = weft::sched::BuildProgram(spec, r, rank);
    auto t2 = Clock::now();
    const weft::sched::Bytecode bc =
        weft::sched::Lower(p, spec.count, weft::sched::RecipeScaleUnit(spec, r));
    auto t3 = Clock::now();
    sel.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    build.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    lower.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count());
    c.recipe = weft::sched::RecipeText(r);
    c.instrs = bc.code.size();
  }
  c.select_us = Median(sel);
  c.build_us = Median(build);
  c.lower_us = Median(lower);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    std::printf(
        "usage: mpiexec -n 2 weft-compile-bench [--iters N]\n"
        "  what compiling a schedule costs (select, build, lower) at P = 128 and 4096, and\n"
        "  against one 8-byte execution at the run's rank count (default 2000 iterations)\n");
    return 0;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, iters = 2000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--iters")) iters = std::max(10, std::atoi(argv[++i]));
  }
  weft::sched::CollSpec small{weft::sched::Coll::kAllReduce, 2, 1, weftFloat64};
  if (rank == 0) {
    std::printf(
        "# weft compile cost: select recipe + build Program + lower to bytecode, one rank,"
        " median\n");
    std::printf("%-10s %5s %8s  %-34s %9s %9s %9s %9s %7s\n", "collective", "P", "bytes", "recipe",
                "select_us", "build_us", "lower_us", "total_us", "instrs");
    for (auto [P, count] : {std::pair<int, uint64_t>{128, 131072}, {4096, 131072}, {2, 1}}) {
      weft::sched::CollSpec s{weft::sched::Coll::kAllReduce, P, count, weftFloat64};
      const Cost c = CompileCost(s, P >= 4096 ? std::max(30, iters / 50) : iters / 4, P == 2);
      std::printf("%-10s %5d %8llu  %-34s %9.2f %9.2f %9.2f %9.2f %7zu\n", "allreduce", P,
                  static_cast<unsigned long long>(count * 8), c.recipe.c_str(), c.select_us,
                  c.build_us, c.lower_us, c.select_us + c.build_us + c.lower_us, c.instrs);
    }
  }
  if (size == 2) {
    // One execution of the 8-byte allreduce, timed for real.
    weftComm_t comm;
    weftCommInitMPI(&comm, MPI_COMM_WORLD);
    double in = rank, out = 0;
    std::vector<double> t;
    for (int i = 0; i < iters + 100; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = Clock::now();
      weftAllReduce(&in, &out, 1, weftFloat64, weftSum, comm, nullptr);
      double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count(), worst;
      MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (i >= 100) t.push_back(worst);
    }
    weftCommDestroy(comm);
    if (rank == 0) {
      const Cost c = CompileCost(small, iters, true);
      const double compile = c.select_us + c.build_us + c.lower_us, exec = Median(t);
      std::printf(
          "# 8-byte allreduce at 2 ranks: compile %.2f us, one execution %.2f us "
          "(weftAllReduce, median of %d, slowest rank): ratio %.1f (ext_mpi: up to 1e4;"
          " goal: under 100)\n",
          compile, exec, iters, compile / exec);
    }
  } else if (rank == 0) {
    std::printf("# run under mpiexec -n 2 to time one execution and print the ratio\n");
  }
  MPI_Finalize();
  return 0;
}
