#include "native/native_program.h"

#include "core/hot_path.h"
#include "transport/mpi/mpi_wait.h"

namespace weft {

NativeProgram::NativeProgram() = default;

NativeProgram::~NativeProgram() {
  // Never wait here (a peer may be gone): an execution still active is abandoned.
  if (req_ != MPI_REQUEST_NULL) {
    PMPI_Cancel(&req_);
    PMPI_Request_free(&req_);
  }
  for (auto& t : types_) PMPI_Type_free(&t);
}

void* NativeProgram::Scratch(size_t bytes) {
  scratch_.emplace_back(new unsigned char[bytes > 0 ? bytes : 1]);
  scratch_bytes_ += bytes;
  return scratch_.back().get();
}

bool NativeProgram::active() const { return active_; }

void NativeProgram::Abandon() {
  if (req_ != MPI_REQUEST_NULL) {
    PMPI_Cancel(&req_);
    PMPI_Request_free(&req_);
  }
  active_ = false;
}

WEFT_HOT Status NativeProgram::Run(Comm& comm, const Bind& bind) {
  if (active_)
    return comm.Fail(weftInvalidUsage, "a previous start of this operation is still active");
  if (comm.native_waits_poll) {  // weft's deadline, abort and progress hook cover the waits
    WEFT_CHECK(Start(comm, bind));
    return Wait(comm);
  }
  for (auto& s : steps) {
    if (s.before) s.before(bind);
    int err = s.call(bind, nullptr);
    if (err != MPI_SUCCESS) return comm.FailMpi(err, s.what);
    if (s.after) s.after(bind);
  }
  return weftSuccess;
}

Status NativeProgram::Issue(Comm& comm) {
  NativeStep& s = steps[next_];
  if (s.before) s.before(bind_);
  int err = s.call(bind_, &req_);
  if (err != MPI_SUCCESS) {
    active_ = false;
    req_ = MPI_REQUEST_NULL;
    return comm.FailMpi(err, s.what);
  }
  return weftSuccess;
}

WEFT_HOT Status NativeProgram::Start(Comm& comm, const Bind& bind) {
  if (active_)
    return comm.Fail(weftInvalidUsage, "weftPlanStart: the previous start is not complete");
  next_ = 0;
  bind_ = bind;
  active_ = true;
  if (steps.empty()) {
    active_ = false;
    return weftSuccess;
  }
  return Issue(comm);
}

WEFT_HOT Status NativeProgram::Test(Comm& comm, bool* done) {
  *done = !active_;
  while (active_) {
    int flag = 0;
    int err = PMPI_Test(&req_, &flag, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS) {
      active_ = false;
      return comm.FailMpi(err, steps[next_].what);
    }
    if (!flag) return weftSuccess;
    if (steps[next_].after) steps[next_].after(bind_);
    if (++next_ == steps.size()) {
      active_ = false;
      *done = true;
      return weftSuccess;
    }
    WEFT_CHECK(Issue(comm));
  }
  return weftSuccess;
}

WEFT_HOT Status NativeProgram::Wait(Comm& comm) {
  while (active_) {
    Status s = WaitAllWithin(comm, 1, &req_, steps[next_].what);
    if (s != weftSuccess) {
      active_ = false;
      return s;
    }
    if (steps[next_].after) steps[next_].after(bind_);
    if (++next_ == steps.size()) {
      active_ = false;
      break;
    }
    WEFT_CHECK(Issue(comm));
  }
  return weftSuccess;
}

}  // namespace weft
