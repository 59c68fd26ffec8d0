// weft-tune: measures this machine for weft's recipe selection and writes a wisdom file
// (docs/tuning.md). Run under mpiexec with the ranks and nodes the wisdom is for:
//   mpiexec -n 4 weft-tune [--out FILE] [--colls allreduce,alltoall] [-b 8] [-e 64M] [-f 4]
//                          [--top K] [--reps R] [--no-calibrate]
//   mpiexec -n 4 weft-tune --regret [...]   the default choice against every candidate forced
// It calibrates the cost model, then per collective and size times the default choice and the
// top K candidates the model ranks (persistent plans on the same buffers, in turns) and keeps
// the fastest per size range. It prints model-chosen against measured-best, and --regret
// prints default/best per row and `regret: median X max Y rows N` (a rival that beat the
// default in the sweep is timed again against it, and the row keeps that second timing).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "calibrate.h"
#include "coll/choose_recipe.h"
#include "comm/wisdom_load.h"
#include "common/parse_int.h"
#include "core/dtype.h"
#include "core/params.h"
#include "sched/recipe.h"
#include "time_recipes.h"
#include "tune_table.h"

namespace weft::tune_tool {
namespace {

struct Options {
  std::string out;  // wisdom file ("": the default location)
  std::vector<sched::Coll> colls;
  uint64_t begin = 8, end = 64u << 20, factor = 4;
  int top = 4, reps = 9;
  double turn_us = 5000;
  bool regret = false, calibrate = true;
  uint64_t max_buffer = 512u << 20;  // per rank, send plus receive: larger points are skipped
  std::string csv;                   // every timing, one line each (rank 0 writes)
  FILE* csv_file = nullptr;
};

const char kUsage[] =
    "usage: mpiexec -n P weft-tune [--out FILE] [--colls LIST] [-b BYTES] [-e BYTES] [-f N]\n"
    "                              [--top K] [--reps R] [--no-calibrate] [--regret] [--csv FILE]\n"
    "  --out FILE      wisdom file to write (default: WEFT_WISDOM, else the default location);\n"
    "                  a section for another shape already there is kept\n"
    "  --colls LIST    comma list of allreduce, reduce_scatter, allgather, bcast, reduce,\n"
    "                  alltoall, gather, scatter (default: all but gather and scatter)\n"
    "  -b, -e, -f      sizes from -b to -e bytes (count times element size), times -f\n"
    "                  (default 8, 64M, 4)\n"
    "  --top K         candidates timed per size besides the default choice (default 4)\n"
    "  --reps R        turns per size; the median is kept (default 9)\n"
    "  --no-calibrate  keep the model's default parameters\n"
    "  --regret        write nothing: time the default choice (with the wisdom in use) and\n"
    "                  every candidate, and print default/best per row\n"
    "  --csv FILE      every timing: collective,bytes,measured_us,model_us,default,recipe\n";

bool Parse(int argc, char** argv, Options* o, std::string* err) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= argc) {
        *err = a + " needs a value";
        return false;
      }
      *v = argv[++i];
      return true;
    };
    std::string v;
    long long n = 0;
    if (a == "--regret") {
      o->regret = true;
    } else if (a == "--no-calibrate") {
      o->calibrate = false;
    } else if (a == "--out") {
      if (!value(&o->out)) return false;
    } else if (a == "--csv") {
      if (!value(&o->csv)) return false;
    } else if (a == "--colls") {
      if (!value(&v)) return false;
      std::istringstream is(v);
      std::string c;
      while (std::getline(is, c, ',')) {
        sched::Coll coll;
        if (!sched::ParseColl(c, &coll)) {
          *err = "unknown collective '" + c + "'";
          return false;
        }
        o->colls.push_back(coll);
      }
    } else if (a == "-b" || a == "-e" || a == "-f") {
      if (!value(&v)) return false;
      uint64_t* dst = a == "-b" ? &o->begin : a == "-e" ? &o->end : &o->factor;
      if (!sched::ParseBytes(v, dst) || *dst == 0 || *dst > (1ull << 40)) {
        *err = a + " wants a size from 1 to 1T, not '" + v + "'";
        return false;
      }
    } else if (a == "--top" || a == "--reps") {
      if (!value(&v) || !tools::ParseInt(v, 1, 1000, &n)) {
        *err = a + " wants a whole number from 1 to 1000";
        return false;
      }
      (a == "--top" ? o->top : o->reps) = static_cast<int>(n);
    } else {
      *err = a == "-h" || a == "--help" ? "" : "unknown option '" + a + "'";
      return false;
    }
  }
  if (o->factor < 2) {
    *err = "-f must be at least 2";
    return false;
  }
  if (o->colls.empty()) {
    o->colls = {sched::Coll::kAllReduce, sched::Coll::kReduceScatter, sched::Coll::kAllGather,
                sched::Coll::kBroadcast, sched::Coll::kReduce,        sched::Coll::kAllToAll};
  }
  return true;
}

// Times the default's recipe and a rival again, alone against each other, with twice the
// turns: *t as TimeRecipes gives it ([1] the default's recipe, [2] the rival), or empty where
// either is not a candidate (the sweep's times then stand). False only on a failure.
bool TimeAgain(Comm& comm, const CallShape& shape, const std::vector<sched::RankedRecipe>& cands,
               const std::string& chosen, const std::string& rival, const Options& o,
               std::vector<Timing>* t) {
  t->clear();
  std::vector<sched::Recipe> pair;
  for (const std::string& text : {chosen, rival}) {
    for (const sched::RankedRecipe& c : cands) {
      if (sched::RecipeText(c.recipe) == text) pair.push_back(c.recipe);
    }
  }
  if (pair.size() != 2) return true;
  std::string err;
  if (!TimeRecipes(comm, shape, pair, 2 * o.reps, o.turn_us, t, &err)) {
    std::fprintf(stderr, "weft-tune: rank %d: %s\n", comm.rank, err.c_str());
    return false;
  }
  return true;
}

// Tuning keeps the default choice unless another recipe beats it by 5% twice: in the sweep and
// again alone against it with twice the turns. On this 2-core machine the median of one
// recipe moved by up to 34% between two sweeps (bench/tuning/first-regret/oneshot-cutoff), so a
// winner of one sweep alone would often be noise. False only on a failure.
bool Confirm(Comm& comm, const CallShape& shape, const std::vector<sched::RankedRecipe>& cands,
             const std::string& chosen, const std::string& winner, const Options& o, Row* r) {
  std::vector<Timing> t;
  if (!TimeAgain(comm, shape, cands, chosen, winner, o, &t)) return false;
  if (!t.empty() && t[2].us < 0.95 * t[1].us) {
    r->chosen_us = t[1].us;
    r->best = winner;
    r->best_us = t[2].us;
  }
  return true;
}

// Regret of a row whose sweep found a faster recipe than the default's: the row keeps the
// times of the two timed again. The fastest of k medians of one sweep is biased low (each
// median is noisy, and the minimum picks the luckiest), so the sweep picks the rival and an
// independent timing measures it; the sweep's own ratio stays in r->sweep_regret. False only
// on a failure.
bool Retime(Comm& comm, const CallShape& shape, const std::vector<sched::RankedRecipe>& cands,
            const Options& o, Row* r) {
  std::vector<Timing> t;
  if (!TimeAgain(comm, shape, cands, r->chosen, r->best, o, &t)) return false;
  if (t.empty()) return true;
  r->chosen_us = t[1].us;
  if (t[2].us < t[1].us) {
    r->best_us = t[2].us;
  } else {  // the default's recipe is the faster of the two this time
    r->best = r->chosen;
    r->best_us = t[1].us;
  }
  return true;
}

// Measures every (collective, size) point; false on a failure (already reported).
bool Sweep(Comm& comm, const Options& o, std::vector<Row>* rows) {
  std::vector<uint64_t> sizes;
  for (uint64_t b = o.begin; b <= o.end; b *= o.factor) sizes.push_back(b);
  const size_t total = sizes.size() * o.colls.size();
  size_t done = 0;
  for (sched::Coll coll : o.colls) {
    for (uint64_t bytes : sizes) {
      ++done;
      CallShape shape{KindOfColl(coll), bytes / TypeSize(weftFloat32), weftFloat32};
      if (shape.count == 0) continue;
      Extents ext;
      if (!RootExtents(comm, shape, &ext) || ext.send + ext.recv > o.max_buffer) continue;
      std::vector<sched::RankedRecipe> cands = Candidates(comm, shape);
      if (cands.empty()) continue;
      const size_t k = o.regret ? cands.size() : std::min<size_t>(cands.size(), o.top);
      std::vector<sched::Recipe> forced;
      for (size_t i = 0; i < k; ++i) forced.push_back(cands[i].recipe);
      if (comm.rank == 0) {
        std::fprintf(stderr, "weft-tune: [%zu/%zu] %s %llu B: %zu recipe(s)\n", done, total,
                     sched::CollName(coll), static_cast<unsigned long long>(bytes), k);
      }
      std::vector<Timing> t;
      std::string err;
      if (!TimeRecipes(comm, shape, forced, o.reps, o.turn_us, &t, &err)) {
        std::fprintf(stderr, "weft-tune: rank %d: %s %llu B: %s\n", comm.rank,
                     sched::CollName(coll), static_cast<unsigned long long>(bytes), err.c_str());
        return false;
      }
      if (o.csv_file != nullptr) {
        for (size_t i = 0; i < t.size(); ++i) {
          const double model = i == 0 ? -1 : cands[i - 1].model_us;
          // Recipes hold commas (rexch:-2,2): quoted, and last.
          std::fprintf(o.csv_file, "%s,%llu,%.3f,%.3f,%d,\"%s\"\n", sched::CollName(coll),
                       static_cast<unsigned long long>(bytes), t[i].us, model, i == 0 ? 1 : 0,
                       t[i].recipe.c_str());
        }
        std::fflush(o.csv_file);
      }
      // The choice's time is its recipe's, forced and timed in the same turns as the others
      // (the default plan runs too: it names the choice), so a tie reads 1.000.
      size_t chosen = 0, best = 1;
      for (size_t i = 1; i < t.size(); ++i) {
        if (chosen == 0 && t[i].recipe == t[0].recipe) chosen = i;
        if (t[i].us < t[best].us) best = i;
      }
      Row r{coll,
            bytes,
            t[0].recipe,
            t[chosen].us,
            t[chosen].recipe,
            t[chosen].us,
            static_cast<int>(k)};
      if (o.regret) {
        r.best = t[best].recipe;
        r.best_us = t[best].us;
        r.sweep_regret = t[chosen].us / t[best].us;
        if (best != chosen && !Retime(comm, shape, cands, o, &r)) return false;
      } else if (t[best].us < 0.95 * t[chosen].us &&
                 !Confirm(comm, shape, cands, t[chosen].recipe, t[best].recipe, o, &r)) {
        return false;
      }
      rows->push_back(r);
    }
  }
  return true;
}

std::string NowText() {
  std::time_t t = std::time(nullptr);
  char b[64];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return b;
}

// Rank 0: the file with this section put in (another shape's sections kept).
bool WriteWisdom(const std::string& path, const tune::WisdomSection& section,
                 const std::vector<std::string>& comments) {
  tune::Wisdom w;
  {
    std::ifstream in(path);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      std::string why;
      if (!tune::ParseWisdom(ss.str(), &w, &why)) {
        std::fprintf(stderr, "weft-tune: %s does not parse (%s): replacing it\n", path.c_str(),
                     why.c_str());
        w = {};
      }
    }
  }
  bool replaced = false;
  for (tune::WisdomSection& s : w.sections) {
    if (s.key == section.key) {
      s = section;
      replaced = true;
    }
  }
  if (!replaced) w.sections.push_back(section);
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  std::ofstream out(path + ".tmp");
  for (const std::string& c : comments) out << "# " << c << "\n";
  out << tune::WisdomText(w);
  out.close();
  return out && std::rename((path + ".tmp").c_str(), path.c_str()) == 0;
}

int Main(int argc, char** argv) {
  Options o;
  std::string err;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!Parse(argc, argv, &o, &err)) {
    if (rank == 0) std::fprintf(stderr, "%s%s%s", err.c_str(), err.empty() ? "" : "\n", kUsage);
    return err.empty() ? 0 : 2;
  }
  weftComm_t handle = nullptr;
  if (weftCommInitMPI(&handle, MPI_COMM_WORLD) != weftSuccess) {
    std::fprintf(stderr, "weft-tune: weftCommInitMPI: %s\n", weftGetLastError(nullptr));
    return 1;
  }
  Comm& comm = *handle;
  const tune::WisdomKey key = MachineKey(comm.topo, comm.size);
  std::vector<std::string> comments{"written by weft-tune, " + NowText()};
  tune::WisdomSection section;
  section.key = key;
  if (!o.regret) {
    if (o.calibrate) {
      std::vector<std::string> notes;
      section.params = Calibrate(comm, &notes);
      for (const std::string& n : notes) comments.push_back("  " + n);
    }
    // The default choice the tuner measures is the calibrated model's, never older wisdom.
    comm.wisdom = std::make_shared<const tune::WisdomSection>(section);
  }
  if (rank == 0 && !o.csv.empty()) {
    o.csv_file = std::fopen(o.csv.c_str(), "w");
    if (o.csv_file == nullptr) std::fprintf(stderr, "weft-tune: cannot write %s\n", o.csv.c_str());
    if (o.csv_file)
      std::fputs("collective,bytes,measured_us,model_us,default,recipe\n", o.csv_file);
  }
  std::vector<Row> rows;
  const bool ok = Sweep(comm, o, &rows);
  if (o.csv_file != nullptr) std::fclose(o.csv_file);
  int code = ok ? 0 : 1;
  if (ok && rank == 0) {
    const std::string table = TableText(rows, o.regret);
    std::printf("# weft-tune%s: %d ranks, nodes %s, %s\n", o.regret ? " --regret" : "", comm.size,
                key.topology.c_str(),
                o.regret ? (comm.wisdom ? "wisdom in use" : "no wisdom (the cost model)")
                         : "default choice = the calibrated model");
    std::fputs(table.c_str(), stdout);
    if (o.regret) {
      std::vector<double> r, sweep;
      for (const Row& row : rows) {
        r.push_back(row.chosen_us / row.best_us);
        sweep.push_back(row.sweep_regret);
      }
      auto max_of = [](const std::vector<double>& v) {
        return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
      };
      std::printf(
          "# the sweep's own ratios (against its fastest median, which is biased low): "
          "median %.3f max %.3f\n",
          Median(sweep), max_of(sweep));
      std::printf("regret: median %.3f max %.3f rows %zu\n", Median(r), max_of(r), r.size());
    } else {
      section.ranges = RangesOf(rows);
      std::istringstream is(table);
      for (std::string l; std::getline(is, l);) comments.push_back(l);
      const std::string path =
          !o.out.empty() ? o.out
          : !GetParams().WEFT_WISDOM.empty() && GetParams().WEFT_WISDOM != "none"
              ? GetParams().WEFT_WISDOM
              : DefaultWisdomPath();
      if (path.empty() || !WriteWisdom(path, section, comments)) {
        std::fprintf(stderr, "weft-tune: cannot write the wisdom file '%s'\n", path.c_str());
        code = 1;
      } else {
        std::printf("wisdom: %s (%zu ranges, %zu parameters)\n", path.c_str(),
                    section.ranges.size(), section.params.size());
      }
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  weftCommDestroy(handle);
  return code;
}

}  // namespace
}  // namespace weft::tune_tool

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int code = weft::tune_tool::Main(argc, argv);
  MPI_Finalize();
  return code;
}
