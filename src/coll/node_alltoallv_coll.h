// The node-aware alltoallv as an executable (sched/algos/node_alltoallv.h has the schedule): a
// count exchange inside the node, then the data program this rank builds from what it learned,
// both compiled and run by the interpreter like any schedule, in one tag slot. Built per call
// (the counts are the shape), for communicators whose ranks span nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "call/coll_args.h"
#include "coll/compiled_coll.h"

namespace weft {

/// Whether an AllToAllV call on comm runs the node-aware schedule: the ranks span nodes,
/// schedules are on, WEFT_ALLTOALLV is auto, and the recipe chosen for an alltoall of 64-byte
/// blocks on this communicator is the node-aware one (nodea2a). Blocks of the direct size and
/// more go pairwise in either schedule, so the choice turns on small blocks; it is made once
/// per communicator from what every rank knows alike (node map, agreed knobs, wisdom).
bool UsesNodeAllToAllV(Comm& comm, const CollArgs& args);
/// The same choice for comm alone: its alltoallv calls run the node-aware schedule (else the
/// MPI library's routine).
bool CommUsesNodeAllToAllV(Comm& comm);

/// One node-aware alltoallv call.
class NodeAllToAllVColl {
 public:
  /// Builds the count exchange for validated args; *out stays null on failure.
  static Status Build(Comm& comm, const CollArgs& args, std::unique_ptr<NodeAllToAllVColl>* out);
  NodeAllToAllVColl(const NodeAllToAllVColl&) = delete;
  NodeAllToAllVColl& operator=(const NodeAllToAllVColl&) = delete;

  Status Run(Comm& comm, const Bind& bind);
  Status Start(Comm& comm, const Bind& bind);
  Status Test(Comm& comm, bool* done);
  Status Wait(Comm& comm);
  bool active() const { return started_; }
  /// Whether Start begins without waiting (its counting stage's CompiledColl says).
  bool StartsWithoutWaiting(const Comm& comm) const { return counts_->StartsWithoutWaiting(comm); }
  /// "alltoallv: node-aware, direct from 8K, N + M bytecode instructions", for traces.
  std::string Describe() const;

 private:
  NodeAllToAllVColl(Comm& comm, const CollArgs& args) : comm_(comm), args_(args) {}
  /// Builds the data program from the exchanged counts and starts it in the counts' slot.
  Status StartData(Comm& comm, bool blocking);
  Status BuildData(Comm& comm);
  /// Completes both stages (also called when a later execution claims the slot).
  Status Finish(Comm& comm);
  Comm& comm_;
  CollArgs args_;
  std::unique_ptr<CompiledColl> counts_, data_;
  std::vector<uint64_t> send_bytes_;  // per rank, from Build (handed to the data program)
  std::vector<uint64_t> table_out_, table_in_;
  Bind bind_;
  bool started_ = false;
  uint64_t direct_bytes_ = 0;
};

}  // namespace weft
