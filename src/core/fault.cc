#include "core/fault.h"

#include <cstring>
#include <string>

#include "core/params.h"

namespace weft {

bool FaultAt(const char* site, int rank) {
  static const std::string spec = GetParams().WEFT_FAULT;
  if (spec.empty()) return false;
  const size_t n = std::strlen(site);
  size_t at = 0;
  while (at < spec.size()) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(at, end - at);
    if (item.size() > n + 1 && item.compare(0, n, site) == 0 && item[n] == ':') {
      const std::string who = item.substr(n + 1);
      if (who == "*" || who == std::to_string(rank)) return true;
    }
    at = end + 1;
  }
  return false;
}

}  // namespace weft
