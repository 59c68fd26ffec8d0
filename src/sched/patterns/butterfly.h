// Mixed-radix butterfly (recursive exchange) arithmetic: with radices r0, r1, ... whose
// product is the group size, rank x has digits d0 = x mod r0, d1 = (x / r0) mod r1, ...; at
// step s a rank exchanges with the r_s ranks that differ from it only in digit s.
// Pure rank arithmetic: no buffers, no MPI.
#pragma once

#include <vector>

namespace weft::patterns {

/// Product of the radices.
int RadixProduct(const std::vector<int>& radices);
/// Digit `step` of rank in the mixed-radix system.
int Digit(int rank, const std::vector<int>& radices, int step);
/// The ranks that differ from `rank` only in digit `step`, ordered by that digit (rank
/// itself included). Requires 0 <= rank < RadixProduct(radices).
std::vector<int> ButterflyGroup(int rank, const std::vector<int>& radices, int step);
/// Prime factors of n in ascending order (empty for n < 2).
std::vector<int> PrimeFactors(int n);
/// Splits n into radices no larger than max_radix where its prime factors allow (each factor
/// above max_radix stays whole), largest first: 48 with max 4 gives {4, 4, 3}.
std::vector<int> RadicesUpTo(int n, int max_radix);

}  // namespace weft::patterns
