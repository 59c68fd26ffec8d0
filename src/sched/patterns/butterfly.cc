#include "sched/patterns/butterfly.h"

#include <algorithm>

namespace weft::patterns {

int RadixProduct(const std::vector<int>& radices) {
  int p = 1;
  for (int r : radices) p *= r;
  return p;
}

int Digit(int rank, const std::vector<int>& radices, int step) {
  for (int s = 0; s < step; ++s) rank /= radices[s];
  return rank % radices[step];
}

std::vector<int> ButterflyGroup(int rank, const std::vector<int>& radices, int step) {
  int stride = 1;
  for (int s = 0; s < step; ++s) stride *= radices[s];
  const int base = rank - Digit(rank, radices, step) * stride;
  std::vector<int> group(radices[step]);
  for (int d = 0; d < radices[step]; ++d) group[d] = base + d * stride;
  return group;
}

std::vector<int> PrimeFactors(int n) {
  std::vector<int> f;
  for (int p = 2; n > 1 && p * p <= n; ++p) {
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  }
  if (n > 1) f.push_back(n);
  return f;
}

std::vector<int> RadicesUpTo(int n, int max_radix) {
  std::vector<int> primes = PrimeFactors(n);
  std::vector<int> out;
  // Greedy from the largest prime: multiply into the current radix while it stays in bounds.
  std::sort(primes.rbegin(), primes.rend());
  for (int p : primes) {
    bool merged = false;
    for (int& r : out) {
      if (r * p <= max_radix) {
        r *= p;
        merged = true;
        break;
      }
    }
    if (!merged) out.push_back(p);
  }
  std::sort(out.rbegin(), out.rend());
  return out;
}

}  // namespace weft::patterns
