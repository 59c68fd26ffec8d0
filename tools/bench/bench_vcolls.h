// weft-bench's v-collectives (alltoallv, allgatherv, gatherv, scatterv, reduce_scatterv): the
// count arrays each --vpattern gives, their native MPI and weft calls on the same buffers, and
// validation. bench_colls.cc hands these kinds here.
#pragma once

#include "bench_colls.h"

namespace bench {

/// True for the collectives with count arrays.
bool IsV(Coll c);
/// The collective with equal blocks a v-collective generalises (itself for the others): what
/// the floors and bandwidth factors follow.
Coll EqualForm(Coll c);
/// The size a table row names: the send bytes of one rank, or for a v-collective (whose ranks'
/// sizes differ) the equal form's at the same base block.
size_t RowBytes(const Ctx& x, const Shape& s);
/// Sets s's counts, arrays and sizes for a per-rank size of about `bytes` (ShapeOf's contract).
void ShapeOfV(const Ctx& x, size_t bytes, Shape* s);
/// Posts (req set) or runs native MPI's routine (MPI_Alltoallv, MPI_Iallgatherv, ...).
int NativeV(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
            MPI_Request* req);
/// Posts (req set) or runs weft's routine (weftAllToAllV, weftIAllGatherV, ...).
int WeftV(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
          weftRequest_t* req);
/// Validate's contract for the v-collectives.
size_t ValidateV(Impl impl, const Ctx& x, const Shape& s, bool ip, unsigned char* send,
                 unsigned char* recv);

}  // namespace bench
