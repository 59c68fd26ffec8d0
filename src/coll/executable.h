// The executable form of one call shape: a compiled schedule (coll/compiled_coll.h) where a
// generator accepts the shape, the node-aware alltoallv (coll/node_alltoallv_coll.h) for an
// alltoallv across nodes, else the collective lowered onto native MPI routines
// (native/native_program.h). Built once per shape (BuildCollective), cached for blocking and
// nonblocking calls or kept by a persistent plan, and bound to buffers only when it runs.
#pragma once

#include <memory>

#include "coll/compiled_coll.h"
#include "coll/node_alltoallv_coll.h"
#include "native/native_program.h"

namespace weft {

/// One of a compiled schedule, a node-aware alltoallv or a native program, run through one
/// interface.
class Executable {
 public:
  explicit Executable(std::unique_ptr<CompiledColl> compiled) : compiled_(std::move(compiled)) {}
  explicit Executable(std::unique_ptr<NodeAllToAllVColl> staged) : staged_(std::move(staged)) {}
  explicit Executable(std::unique_ptr<NativeProgram> native) : native_(std::move(native)) {}
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  /// Runs to completion on these buffers.
  Status Run(Comm& comm, const Bind& bind) {
    return compiled_ ? compiled_->Run(comm, bind)
           : staged_ ? staged_->Run(comm, bind)
                     : native_->Run(comm, bind);
  }
  /// Begins a nonblocking execution on these buffers.
  Status Start(Comm& comm, const Bind& bind) {
    return compiled_ ? compiled_->Start(comm, bind)
           : staged_ ? staged_->Start(comm, bind)
                     : native_->Start(comm, bind);
  }
  /// Advances a started execution; *done once it has completed.
  Status Test(Comm& comm, bool* done) {
    return compiled_ ? compiled_->Test(comm, done)
           : staged_ ? staged_->Test(comm, done)
                     : native_->Test(comm, done);
  }
  /// Completes a started execution.
  Status Wait(Comm& comm) {
    return compiled_ ? compiled_->Wait(comm) : staged_ ? staged_->Wait(comm) : native_->Wait(comm);
  }
  bool active() const {
    if (deferred_) return true;
    return compiled_ ? compiled_->active()
           : staged_ ? staged_->active()
                     : native_ != nullptr && native_->active();
  }
  /// Whether Start begins at once, without waiting for an earlier execution to finish
  /// (CompiledColl::StartsWithoutWaiting; native programs always do).
  bool StartsWithoutWaiting(const Comm& comm) const {
    return compiled_ ? compiled_->StartsWithoutWaiting(comm)
           : staged_ ? staged_->StartsWithoutWaiting(comm)
                     : true;
  }
  /// Whether advancing it may call MPI: native programs and the node-aware alltoallv do, a
  /// compiled schedule when it sends messages. The progress thread leaves those to the caller.
  bool MayCallMpi() const { return compiled_ ? compiled_->SendsMessages() : true; }
  /// Whether Start would call no MPI routine (CompiledColl::BeginsWithoutMpi).
  bool BeginsWithoutMpi(const Comm& comm) const {
    return compiled_ && compiled_->BeginsWithoutMpi(comm);
  }
  /// Queued to start once earlier executions let it (coll/progress.cc): it counts as active,
  /// so that no other call takes this instance meanwhile.
  void set_deferred(bool deferred) { deferred_ = deferred; }
  /// A native execution with MPI calls still to issue (NativeProgram::IssuesMore).
  bool IssuesMore() const { return native_ != nullptr && native_->IssuesMore(); }
  /// The communicator is being aborted: drops an execution in flight without waiting and
  /// frees what refers to the communicator. Nothing may run it afterwards.
  void Abandon() {
    if (native_) native_->Abandon();
    compiled_.reset();
    staged_.reset();
  }
  /// Bytes of scratch the executable owns (the cache keeps none above its limit).
  size_t scratch_bytes() const { return native_ ? native_->scratch_bytes() : 0; }

  const CompiledColl* compiled() const { return compiled_.get(); }
  const NodeAllToAllVColl* staged() const { return staged_.get(); }
  const NativeProgram* native() const { return native_.get(); }

 private:
  std::unique_ptr<CompiledColl> compiled_;
  std::unique_ptr<NodeAllToAllVColl> staged_;
  std::unique_ptr<NativeProgram> native_;
  bool deferred_ = false;
};

}  // namespace weft
