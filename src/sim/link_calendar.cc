#include "sim/link_calendar.h"

#include <algorithm>
#include <iterator>

namespace weft::sim {

double LinkCalendar::Book(double earliest, double us) {
  if (us <= 0) return earliest;
  double t = earliest;
  auto it = busy_.upper_bound(t);  // the first interval starting after t
  if (it != busy_.begin()) t = std::max(t, std::prev(it)->second);
  while (it != busy_.end() && it->first < t + us) {
    t = std::max(t, it->second);
    ++it;
  }
  double start = t, end = t + us;
  auto next = busy_.lower_bound(start);
  if (next != busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second >= start) {
      start = prev->first;
      busy_.erase(prev);
    }
  }
  if (next != busy_.end() && next->first <= end) {
    end = next->second;
    busy_.erase(next);
  }
  busy_[start] = end;
  return t;
}

}  // namespace weft::sim
