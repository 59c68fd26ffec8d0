// k-nomial trees rooted anywhere: the shape of k-ary tree reduce and broadcast. Ranks are
// renumbered relative to the root (v = (rank - root) mod P); v's parent clears v's lowest
// non-zero base-k digit, and its children add j * k^i for each position i below that digit.
// Pure rank arithmetic: no buffers, no MPI.
#pragma once

#include <vector>

namespace weft::patterns {

/// Parent of rank in the radix-k tree over P ranks rooted at root (-1 for the root).
int KnomialParent(int rank, int nranks, int radix, int root);
/// Children of rank, largest subtree first (the order a broadcast sends in).
std::vector<int> KnomialChildren(int rank, int nranks, int radix, int root);
/// Levels below the root: ceil(log_radix(P)).
int KnomialDepth(int nranks, int radix);

}  // namespace weft::patterns
