#include "shim_stats.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "core/params.h"

namespace weft::shim {
namespace {

struct Counts {
  long long weft = 0;
  long long native = 0;
};

bool Enabled() {
  static const bool on = GetParams().WEFT_STATS != 0;
  return on;
}

std::mutex g_mu;
std::map<std::string, Counts>* g_counts = new std::map<std::string, Counts>;  // never freed:
// a call may count after static destructors have run (MPI_Finalize from an atexit handler)

}  // namespace

void CountCall(const char* fn, bool served) {
  if (!Enabled()) return;
  std::lock_guard<std::mutex> lk(g_mu);
  Counts& c = (*g_counts)[fn];
  (served ? c.weft : c.native) += 1;
}

void PrintStats() {
  if (!Enabled()) return;
  std::lock_guard<std::mutex> lk(g_mu);
  for (const auto& [fn, c] : *g_counts) {
    std::fprintf(stderr, "weft-stats %s weft=%lld native=%lld\n", fn.c_str(), c.weft, c.native);
  }
  std::fflush(stderr);
  g_counts->clear();
}

}  // namespace weft::shim
