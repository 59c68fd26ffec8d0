#include "tune_table.h"

#include <cmath>
#include <cstdio>

#include "sched/recipe.h"

namespace weft::tune_tool {

std::vector<tune::Override> RangesOf(const std::vector<Row>& rows) {
  std::vector<tune::Override> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const bool first = i == 0 || rows[i - 1].coll != r.coll;
    const bool last = i + 1 == rows.size() || rows[i + 1].coll != r.coll;
    const uint64_t lo =
        first ? 0 : static_cast<uint64_t>(std::sqrt(double(rows[i - 1].bytes) * double(r.bytes)));
    const uint64_t hi =
        last ? UINT64_MAX
             : static_cast<uint64_t>(std::sqrt(double(r.bytes) * double(rows[i + 1].bytes)));
    sched::Recipe recipe;
    std::string why;
    if (!sched::ParseRecipe(r.best, &recipe, &why)) continue;  // "native": nothing to record
    if (!first && !out.empty() && out.back().coll == r.coll && out.back().recipe == recipe &&
        out.back().hi == lo) {
      out.back().hi = hi;
      continue;
    }
    tune::Override o;
    o.coll = r.coll;
    o.lo = lo;
    o.hi = hi;
    o.recipe = recipe;
    out.push_back(o);
  }
  return out;
}

std::string TableText(const std::vector<Row>& rows, bool regret) {
  std::string s;
  char line[512];
  std::snprintf(line, sizeof line, "%-15s %10s  %-30s %10s  %-30s %10s %7s\n", "collective",
                "bytes", "default choice", "us", "best measured", "us", regret ? "regret" : "gain");
  s += line;
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-15s %10llu  %-30s %10.2f  %-30s %10.2f %7.3f\n",
                  sched::CollName(r.coll), static_cast<unsigned long long>(r.bytes),
                  r.chosen.c_str(), r.chosen_us, r.best.c_str(), r.best_us,
                  r.best_us > 0 ? r.chosen_us / r.best_us : 0.0);
    s += line;
  }
  return s;
}

}  // namespace weft::tune_tool
