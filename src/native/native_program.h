// A collective lowered onto native MPI routines (the fallback where no compiled schedule fits,
// and the path of the kinds weft has no schedule for): a list of steps, each an optional local
// pre-pass (pack, widen), one MPI call and an optional post-pass (narrow, divide, move). A program
// is built from a call's shape (kind, count, type, op, root, in-place) and bound to buffers only
// when it runs, so one program serves every call of that shape. It runs blocking (MPI's blocking
// routines, as fast as the native call) or step by step on nonblocking requests (persistent plans:
// Start, then Test/Wait resume it).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "core/status.h"

namespace weft {

/// The user buffers of one execution.
struct Bind {
  const char* send = nullptr;
  char* recv = nullptr;
};

/// One MPI call with its local work around it.
struct NativeStep {
  std::function<void(const Bind&)> before;
  /// Issues the MPI call: blocking when req is null, else nonblocking into *req.
  std::function<int(const Bind&, MPI_Request* req)> call;
  std::function<void(const Bind&)> after;
  const char* what = "";  // MPI routine name, for error messages
};

/// An executable native collective for one call shape.
class NativeProgram {
 public:
  NativeProgram();
  NativeProgram(const NativeProgram&) = delete;
  NativeProgram& operator=(const NativeProgram&) = delete;
  ~NativeProgram();

  /// Runs every step on these buffers to completion with blocking MPI calls.
  Status Run(Comm& comm, const Bind& bind);
  /// Begins a nonblocking execution on these buffers.
  Status Start(Comm& comm, const Bind& bind);
  /// Advances a started execution; *done once every step has completed.
  Status Test(Comm& comm, bool* done);
  /// Completes a started execution.
  Status Wait(Comm& comm);
  bool active() const;
  /// An active native execution with MPI calls still to issue (a later step starts when the
  /// one before it completes).
  /// (Point-to-point programs are matched by peer and tag, not by order: never.)
  bool IssuesMore() const { return !point_to_point && active_ && next_ + 1 < steps.size(); }
  /// The communicator is being aborted: drops an execution in flight without waiting for it
  /// (cancels and frees its request).
  void Abandon();

  /// A scratch buffer owned by the program (freed with it).
  void* Scratch(size_t bytes);
  /// Total bytes of Scratch buffers.
  size_t scratch_bytes() const { return scratch_bytes_; }
  /// An MPI datatype owned by the program (freed with it).
  void Own(MPI_Datatype t) { types_.push_back(t); }

  std::vector<NativeStep> steps;
  /// A send or a receive (its steps match by peer and tag, in order between one pair).
  bool point_to_point = false;
  /// How the data travels (a static string, so building a program allocates no text).
  const char* note = "";

 private:
  Status Issue(Comm& comm);  // runs `before` and starts the current step's request
  std::vector<std::unique_ptr<unsigned char[]>> scratch_;
  std::vector<MPI_Datatype> types_;
  size_t scratch_bytes_ = 0;
  size_t next_ = 0;
  Bind bind_;  // the buffers of the active nonblocking execution
  MPI_Request req_ = MPI_REQUEST_NULL;
  bool active_ = false;
};

}  // namespace weft
