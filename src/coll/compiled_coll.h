// A collective running a compiled schedule: the recipe chosen for the call shape, this rank's
// bytecode, and the interpreter over the MPI transport. Built once per shape (cached for
// blocking calls, kept by persistent plans); TryBuildCompiled declines when no generator
// accepts the shape, and the caller falls back to the native MPI routine.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "call/coll_args.h"
#include "exec/interpreter.h"
#include "native/native_program.h"
#include "sched/recipe.h"
#include "transport/schedule_transport.h"

namespace weft {

/// One compiled collective for one call shape.
class CompiledColl {
 public:
  /// uses_node: the program uses node memory or counters, with slots of slot_bytes.
  CompiledColl(Comm& comm, bool uses_node, uint64_t slot_bytes)
      : comm_(comm), transport_(comm), uses_node_(uses_node), slot_bytes_(slot_bytes) {}
  ~CompiledColl();
  /// Runs to completion (scratch from the communicator's arena).
  Status Run(Comm& comm, const Bind& bind);
  /// Non-blocking execution (scratch taken from the communicator's blocks for executions and
  /// given back at completion): Start, then Test or Wait.
  Status Start(Comm& comm, const Bind& bind);
  Status Test(Comm& comm, bool* done);
  Status Wait(Comm& comm);
  /// Started and not yet completed by Test or Wait (MPI's "active" persistent request).
  bool active() const { return started_; }
  /// Whether Start begins without waiting: no execution it must let finish first (the node
  /// segment's previous user, the one 64 starts back in its tag slot) still runs. Nonblocking
  /// starts that would wait are deferred instead (coll/progress.cc): a start is local in MPI.
  bool StartsWithoutWaiting(const Comm& comm) const;
  /// Whether the program sends or receives messages (MPI point-to-point); false for the
  /// shared-memory schedules, which the progress thread may advance (coll/progress_thread.h).
  bool SendsMessages() const;
  /// Whether Start would call no MPI routine: no messages, and the node segment needs neither
  /// growing (collective over MPI) nor a placement probe at this execution. The progress thread
  /// begins deferred executions only then.
  bool BeginsWithoutMpi(const Comm& comm) const;
  /// The call's buffers are weftMemAlloc memory on every rank (agreed): the peers' buffers
  /// are reached through their mappings.
  void set_zero_copy() { transport_.set_mapped_peers(true); }
  /// A barrier compiled as an allreduce of one byte: each execution runs on two bytes of its
  /// own (the call has no buffers; the byte's value means nothing).
  void bind_own_bytes() { own_bytes_ = true; }
  /// Results are written with plain stores whatever the call's size (WEFT_NT_MIN_BYTES aside):
  /// for programs whose results MPI's messages write for the most part.
  void set_plain_results() { plain_results_ = true; }
  /// Two-stage calls (coll/node_alltoallv_coll.h): this execution runs in the tag slot `first`
  /// took when it started, and takes over from it as the slot's user. Every rank claims slots
  /// in the order it starts executions, and a second stage starts when its first completes,
  /// which differs by rank; so it must not claim a slot of its own. The two stages' messages
  /// use different tags.
  void FollowSlotOf(const CompiledColl* first) { follows_ = first; }
  /// Set on a first stage: what completes the whole call (both stages) when a later execution
  /// claims its tag slot before the second stage has taken it over.
  std::function<Status(Comm&)> finish_call;
  /// Set on programs built from more than a call shape (coll/v_mailbox_coll.h): what
  /// RebuildWithoutSegment builds instead of selecting again from the shape.
  std::function<Status(Comm&, std::unique_ptr<CompiledColl>*)> rebuild_without_segment;

  sched::Recipe recipe;
  sched::Bytecode bytecode;

 private:
  friend Status TryBuildCompiled(Comm& comm, const CollArgs& args,
                                 std::unique_ptr<CompiledColl>* out);
  ExecBuffers Buffers(const Bind& bind, unsigned char* scratch) const;
  Status Resume(Comm& comm, bool blocking, bool* done);
  /// Before an execution that uses the node segment: lets the previous user finish and takes
  /// the communicator's current segment (grown if this program needs larger slots). Where it
  /// cannot grow, a program TryBuildCompiled made is rebuilt without it (RebuildWithoutSegment).
  Status ClaimNodeSegment(Comm& comm);
  /// This node's segment could not grow (every rank of the node learns it at this execution):
  /// the program is built again from its call shape as if the segment were gone, and this
  /// execution runs that. One node: every rank fails alike, and selection chooses again without
  /// shared memory. Across nodes: only this node's ranks may have failed, and they keep the
  /// recipe with its node level point-to-point (the same network messages as the other nodes).
  Status RebuildWithoutSegment(Comm& comm);
  /// Takes the next tag slot (transport/mpi/mpi_transport.h), first finishing the execution
  /// that last used it if it is still running.
  Status ClaimTagSlot(Comm& comm);
  /// Whether prev, the previous user of the node segment or (tag_slot) of a tag slot, must
  /// finish before this execution starts: it still runs, or is a first stage whose second has
  /// not started.
  bool Unfinished(const CompiledColl* prev, bool tag_slot) const;
  /// Whether this execution writes shared slots with streaming stores (WEFT_SHM_STREAM): with
  /// auto, every (kProbeEvery x node peers)-th execution of kProbeMinBytes or more probes
  /// placement first.
  Status ChooseSlotStores(Comm& comm, ShmSegment& seg);
  // A probe costs about 100 us per peer (a 64 KiB handover timed eight times): at every 64th
  // execution of 1 MiB or more per peer (200 us or more each at 2 ranks here) that is under 1%.
  static constexpr uint64_t kProbeMinBytes = 1024 * 1024;
  mutable int8_t sends_messages_ = -1;  // SendsMessages, computed when built
  static constexpr uint64_t kProbeEvery = 64;
  Comm& comm_;
  ScheduleTransport transport_;
  Interpreter interp_;
  /// Completion of a nonblocking execution: its scratch goes back to the communicator.
  void Finished();
  std::unique_ptr<unsigned char[]> own_scratch_;
  size_t own_scratch_bytes_ = 0;
  bool started_ = false;
  bool own_bytes_ = false;
  bool plain_results_ = false;
  unsigned char bytes_[2] = {0, 0};  // a barrier's send and receive byte (own_bytes_)
  const CompiledColl* follows_ = nullptr;
  uint32_t slot_ = 0;  // the tag slot of the current execution (schedule_starts at its claim)
  bool uses_node_;
  uint64_t slot_bytes_;
  /// The shape TryBuildCompiled built this from (null for programs built otherwise).
  std::optional<CollArgs> build_args_;
  // In place, the program reads at least half the receive buffer's bytes (from its send space)
  // before overwriting them: its results stay plain stores (Buffers). Set at build.
  bool in_place_rereads_ = false;
};

/// Lowers one rank's program, built for `count` (rescalable in multiples of scale_unit; 0:
/// never), into *out; `recipe` names it in logs. TryBuildCompiled's last step, and the whole
/// build of per-call programs (coll/node_alltoallv_coll.h).
Status BuildCompiledProgram(Comm& comm, const ir::Program& prog, const sched::Recipe& recipe,
                            uint64_t count, uint64_t scale_unit,
                            std::unique_ptr<CompiledColl>* out);

/// Builds the compiled form of validated args into *out, or leaves it null when schedules are
/// off (WEFT_SCHEDULES=0) or no generator accepts the shape. WEFT_RECIPE forces a recipe where
/// its generator accepts the shape.
Status TryBuildCompiled(Comm& comm, const CollArgs& args, std::unique_ptr<CompiledColl>* out);

}  // namespace weft
