#include "sim/link_calendar.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

namespace weft::sim {

double LinkCalendar::Fill(double earliest, double us) {
  if (us <= 0) return earliest;
  double t = earliest, left = us;
  auto it = busy_.upper_bound(t);  // the first interval starting after t
  if (it != busy_.begin()) t = std::max(t, std::prev(it)->second);
  std::vector<std::pair<double, double>> taken;
  // Stop once what is left is rounding error: gaps are differences of times, so a message that
  // fills some gaps exactly may be left a few ulps short.
  const double done = us * 1e-12;
  while (true) {
    const double gap_end = it == busy_.end() ? std::numeric_limits<double>::infinity() : it->first;
    const double take = std::min(left, gap_end - t);
    if (take > 0) {
      taken.emplace_back(t, t + take);
      left -= take;
    }
    if (left <= done) break;
    t = std::max(t, it->second);
    ++it;
  }
  for (const auto& [a, z] : taken) Insert(a, z);
  return taken.back().second;
}

void LinkCalendar::Insert(double start, double end) {
  auto next = busy_.lower_bound(start);
  if (next != busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second >= start) {
      start = prev->first;
      end = std::max(end, prev->second);
      busy_.erase(prev);
    }
  }
  while (next != busy_.end() && next->first <= end) {
    end = std::max(end, next->second);
    next = busy_.erase(next);
  }
  busy_[start] = end;
}

}  // namespace weft::sim
