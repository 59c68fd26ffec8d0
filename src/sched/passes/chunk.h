// The chunking / pipelining pass: a vector collective is generated once per chunk of the
// vector, and the chunk programs are software-pipelined: each is cut into phases at its
// waitalls, and round t runs phase t - c of every chunk c in flight, under one waitall: first
// the phases that post messages, then the ones that only copy, reduce or wait on node counters
// (a zerocopy node level's), which run while the round's messages fly. Chunk c
// uses message tag c and scratch slot c mod D (D: the most phases of any chunk, so a slot is
// free again when its next chunk starts). A tree broadcast of C chunks then takes about
// depth + C rounds instead of depth * C.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "sched/coll_spec.h"
#include "sched/ir/program.h"

namespace weft::sched::passes {

/// "" when spec's collective can be chunked (allreduce, bcast, reduce: one vector per rank).
std::string DeclineChunking(const CollSpec& spec);

/// Builds rank's program for spec from per-chunk programs made by `generate` (called with spec
/// at each chunk's count). One chunk: generate(spec) unchanged.
ir::Program Pipeline(const CollSpec& spec, uint64_t chunk_bytes, int rank,
                     const std::function<ir::Program(const CollSpec&)>& generate);

/// Same, where a chunk is not one range of each buffer (a hierarchical allgather's or
/// reduce_scatter's: a piece of every rank's block): `generate` is given the chunk's spec and its
/// first element within a block, and places the chunk's refs in the call's buffers itself; only
/// scratch slots and tags move. The whole call is generate(spec, 0).
ir::Program PipelinePlaced(const CollSpec& spec, uint64_t chunk_bytes, int rank,
                           const std::function<ir::Program(const CollSpec&, uint64_t)>& generate);

}  // namespace weft::sched::passes
