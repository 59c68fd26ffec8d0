#include "sched/patterns/ring.h"

namespace weft::patterns {

int DisseminationSteps(int nranks, int radix) {
  int steps = 0;
  for (long span = 1; span < nranks; span *= radix) ++steps;
  return steps;
}

namespace {

std::vector<int> Partners(int rank, int nranks, int radix, int step, int sign) {
  long dist = 1;
  for (int s = 0; s < step; ++s) dist *= radix;
  std::vector<int> out;
  for (int j = 1; j < radix; ++j) {
    const long d = j * dist;
    if (d >= nranks) break;
    out.push_back(static_cast<int>(((rank + sign * d) % nranks + nranks) % nranks));
  }
  return out;
}

}  // namespace

std::vector<int> DisseminationSendTo(int rank, int nranks, int radix, int step) {
  return Partners(rank, nranks, radix, step, +1);
}

std::vector<int> DisseminationRecvFrom(int rank, int nranks, int radix, int step) {
  return Partners(rank, nranks, radix, step, -1);
}

}  // namespace weft::patterns
