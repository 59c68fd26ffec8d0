#include "tune/overrides.h"

#include <sstream>

namespace weft::tune {
namespace {

bool ParseRange(const std::string& r, uint64_t* lo, uint64_t* hi) {
  if (r == "*") {
    *lo = 0;
    *hi = UINT64_MAX;
    return true;
  }
  const size_t dash = r.find('-');
  if (dash == std::string::npos || !sched::ParseBytes(r.substr(0, dash), lo)) return false;
  const std::string top = r.substr(dash + 1);
  if (top.empty()) {
    *hi = UINT64_MAX;
    return true;
  }
  return sched::ParseBytes(top, hi) && *hi > *lo;
}

}  // namespace

bool ParseOverrides(const std::string& text, std::vector<Override>* out, std::string* why) {
  out->clear();
  std::istringstream is(text);
  std::string entry;
  while (std::getline(is, entry, ';')) {
    if (entry.empty()) continue;  // "a;;b" and a trailing ';' are harmless
    Override o;
    o.text = entry;
    const size_t colon = entry.find(':'), eq = entry.find('=');
    if (colon == std::string::npos || eq == std::string::npos || eq < colon) {
      *why = "'" + entry + "': want COLL:RANGE=RECIPE (e.g. allreduce:0-4K=rexch:2)";
      return false;
    }
    const std::string coll = entry.substr(0, colon);
    o.every_coll = coll == "*";
    if (!o.every_coll && !sched::ParseColl(coll, &o.coll)) {
      *why = "'" + entry + "': unknown collective '" + coll + "'";
      return false;
    }
    if (!ParseRange(entry.substr(colon + 1, eq - colon - 1), &o.lo, &o.hi)) {
      *why = "'" + entry + "': bad range '" + entry.substr(colon + 1, eq - colon - 1) +
             "' (want *, LO-HI with HI > LO, or LO-; sizes like 4K)";
      return false;
    }
    std::string recipe_why;
    if (!sched::ParseRecipe(entry.substr(eq + 1), &o.recipe, &recipe_why)) {
      *why = "'" + entry + "': " + recipe_why;
      return false;
    }
    out->push_back(std::move(o));
  }
  return true;
}

const Override* FindOverride(const std::vector<Override>& overrides, sched::Coll coll,
                             uint64_t bytes) {
  for (const Override& o : overrides) {
    if ((o.every_coll || o.coll == coll) && bytes >= o.lo && bytes < o.hi) return &o;
  }
  return nullptr;
}

}  // namespace weft::tune
