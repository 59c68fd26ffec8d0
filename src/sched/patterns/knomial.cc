#include "sched/patterns/knomial.h"

namespace weft::patterns {

int KnomialParent(int rank, int nranks, int radix, int root) {
  const int v = (rank - root + nranks) % nranks;
  if (v == 0) return -1;
  int place = 1;
  while ((v / place) % radix == 0) place *= radix;
  const int parent_v = v - ((v / place) % radix) * place;
  return (parent_v + root) % nranks;
}

std::vector<int> KnomialChildren(int rank, int nranks, int radix, int root) {
  const int v = (rank - root + nranks) % nranks;
  // Positions below v's lowest non-zero digit (every position for the root).
  long limit = 1;
  if (v == 0) {
    while (limit < nranks) limit *= radix;
  } else {
    while ((v / limit) % radix == 0) limit *= radix;
  }
  std::vector<int> children;
  for (long place = limit / radix; place >= 1; place /= radix) {
    for (int j = 1; j < radix; ++j) {
      const long c = v + j * place;
      if (c < nranks) children.push_back(static_cast<int>((c + root) % nranks));
    }
  }
  return children;
}

int KnomialDepth(int nranks, int radix) {
  int depth = 0;
  for (long span = 1; span < nranks; span *= radix) ++depth;
  return depth;
}

}  // namespace weft::patterns
