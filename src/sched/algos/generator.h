// A generator turns a collective's shape into the ir Program of one rank. Each declares which
// collectives it serves and what it needs (a commutative op, shared memory, ...), and may
// decline a shape; selection then moves to the next candidate, and finally to native MPI.
// Generators are pure: no buffers, no MPI, the same output for the same input.
#pragma once

#include <string>
#include <vector>

#include "sched/coll_spec.h"
#include "sched/ir/program.h"

namespace weft::sched {

/// What the generator may use besides point-to-point messages.
struct GenEnv {
  /// All ranks share one node's memory (shm and peer spaces are available; node rank ==
  /// rank).
  bool shared_memory = false;
  /// Node peers' user buffers are reachable by single copy (the peer_send / peer_recv spaces).
  bool single_copy = false;
  /// Every rank's buffers of this call are mapped in every node peer (weftMemAlloc): the
  /// peer spaces may be read and written like local memory, reductions included.
  bool zero_copy = false;
  /// Slot writes go to memory with streaming stores (the ranks do not share a cache).
  bool slots_streamed = false;
  /// The ranks span nodes and every node's ranks share a segment of their own (agreed by every
  /// rank when the communicator was made): a hierarchical recipe's node level may run the
  /// shared-memory generators, with node ranks meaning local indices (hierarchical.h).
  bool node_shared_memory = false;
  /// With node_shared_memory: node peers' user buffers are reachable by single copy on every
  /// node (probed per node, agreed by every rank when the communicator was made).
  bool node_single_copy = false;
  /// On some machine the ranks outnumber its cores (agreed by every rank; virtual nodes count
  /// with their machine): a rank that waits gives its core away, and pipelining across levels,
  /// which waits once per chunk and level, is not offered (measured at 4 ranks on 2 cores:
  /// bench/hierarchy/cma-node-level).
  bool oversubscribed = false;
};

/// One algorithm.
class Generator {
 public:
  virtual ~Generator() = default;
  /// Recipe name ("rexch", "ring", ...).
  virtual const char* name() const = 0;
  /// One line: what it is and its factors' meaning (weft-plan --list, docs).
  virtual const char* summary() const = 0;
  virtual bool Serves(Coll c) const = 0;
  /// Reduces in rank order, so non-commutative ops are served.
  virtual bool OrderPreserving() const { return false; }
  /// Factors used when a recipe names the generator without any.
  virtual std::vector<int> DefaultFactors(const CollSpec& spec) const { return {}; }
  /// "" when Generate can build spec with these factors; otherwise why not, in words.
  std::string Decline(const CollSpec& spec, const std::vector<int>& factors,
                      const GenEnv& env) const;
  /// The program of `rank`. Only after Decline returned "".
  virtual ir::Program Generate(const CollSpec& spec, const std::vector<int>& factors,
                               int rank) const = 0;
  /// Elements of which a count must be a multiple for the program to be linear in count (so a
  /// compiled program rescales exactly to any other such count); 0: never rescale.
  virtual uint64_t ScaleUnit(const CollSpec& spec, const std::vector<int>& factors) const {
    return 1;
  }
  /// Numbers its steps alike on every rank (Builder::SetStep), so the chunking pass can
  /// pipeline it.
  virtual bool Pipelinable() const { return false; }
  /// Pipelines itself: a recipe's chunk size goes to GenerateChunked (not to the chunking pass).
  virtual bool ChunksItself() const { return false; }
  /// The program of `rank` with steps of chunk_bytes (0: the generator's default). Only for
  /// generators that chunk themselves.
  virtual ir::Program GenerateChunked(const CollSpec& spec, const std::vector<int>& factors,
                                      uint64_t chunk_bytes, int rank) const {
    return Generate(spec, factors, rank);
  }
  /// Message rounds the schedule needs whatever the count (a latency lower bound selection
  /// uses to skip building programs that cannot win); 0 when not worth stating.
  virtual int MinRounds(const CollSpec& spec) const { return 0; }

 protected:
  /// Generator-specific restrictions (after the common ones: served collective, op order).
  virtual std::string DeclineShape(const CollSpec& spec, const std::vector<int>& factors,
                                   const GenEnv& env) const {
    return "";
  }
};

/// Every generator, in the order selection tries them.
const std::vector<const Generator*>& AllGenerators();
/// The generator named `name`, or null.
const Generator* FindGenerator(const std::string& name);

}  // namespace weft::sched
