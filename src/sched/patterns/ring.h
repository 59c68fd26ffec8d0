// Ring and cyclic-shift (dissemination / Bruck) partners. Pure rank arithmetic.
#pragma once

#include <vector>

namespace weft::patterns {

/// The next rank on the ring.
inline int RingNext(int rank, int nranks) { return (rank + 1) % nranks; }
/// The previous rank on the ring.
inline int RingPrev(int rank, int nranks) { return (rank + nranks - 1) % nranks; }

/// Steps of a radix-k dissemination over P ranks: ceil(log_k(P)).
int DisseminationSteps(int nranks, int radix);
/// At dissemination step s, the ranks this rank sends to: rank + j * k^s for j = 1..k-1
/// (only those distances below P; fewer at the last step when P is not a power of k).
std::vector<int> DisseminationSendTo(int rank, int nranks, int radix, int step);
/// The ranks this rank receives from at step s: rank - j * k^s, matching DisseminationSendTo.
std::vector<int> DisseminationRecvFrom(int rank, int nranks, int radix, int step);

}  // namespace weft::patterns
