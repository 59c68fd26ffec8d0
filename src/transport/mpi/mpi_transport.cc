#include "transport/mpi/mpi_transport.h"

#include <algorithm>
#include <cstddef>

#include "core/fault.h"
#include "transport/mpi/mpi_wait.h"

namespace weft {
namespace {
constexpr uint64_t kPieceBytes = 1ull << 30;
}  // namespace

Status MpiTransport::Post(bool send, int peer, void* buf, uint64_t bytes, int tag) {
  char* p = static_cast<char*>(buf);
  starts_.push_back(reqs_.size());
  for (uint64_t o = 0; o < bytes; o += kPieceBytes) {
    const int n = static_cast<int>(std::min(kPieceBytes, bytes - o));
    reqs_.push_back(MPI_REQUEST_NULL);
    const int err = send ? PMPI_Isend(p + o, n, MPI_BYTE, peer, Tag(tag), comm_.mpi, &reqs_.back())
                         : PMPI_Irecv(p + o, n, MPI_BYTE, peer, Tag(tag), comm_.mpi, &reqs_.back());
    if (err != MPI_SUCCESS) {
      return comm_.FailMpi(err, send ? "MPI_Isend (schedule)" : "MPI_Irecv (schedule)");
    }
  }
  if (send && starts_.size() == 1 && FaultAt("exec_after_send", comm_.rank)) {
    return comm_.Fail(weftSystemError, "injected fault (WEFT_FAULT=exec_after_send)");
  }
  return weftSuccess;
}

Status MpiTransport::Isend(int peer, const void* buf, uint64_t bytes, int tag) {
  return Post(true, peer, const_cast<void*>(buf), bytes, tag);  // MPI only reads it
}

Status MpiTransport::Irecv(int peer, void* buf, uint64_t bytes, int tag) {
  return Post(false, peer, buf, bytes, tag);
}

Status MpiTransport::Complete(bool blocking, bool* done) {
  return CompleteOlder(0, blocking, done);
}

Status MpiTransport::CompleteOlder(uint64_t keep, bool blocking, bool* done) {
  *done = true;
  if (keep >= starts_.size()) return weftSuccess;  // nothing started before the kept ones
  const size_t older = starts_.size() - keep;      // messages to complete
  const size_t n = keep == 0 ? reqs_.size() : starts_[older];
  auto retire = [&] {
    reqs_.erase(reqs_.begin(), reqs_.begin() + static_cast<std::ptrdiff_t>(n));
    starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(older));
    for (size_t& s : starts_) s -= n;
  };
  if (blocking) {
    Status s = WaitAllWithin(comm_, static_cast<int>(n), reqs_.data(), "MPI_Testall (schedule)");
    if (s == weftSuccess) retire();
    return s;
  }
  int flag = 0;
  const int err = PMPI_Testall(static_cast<int>(n), reqs_.data(), &flag, MPI_STATUSES_IGNORE);
  *done = flag != 0;
  if (err != MPI_SUCCESS) return comm_.FailMpi(err, "MPI_Testall (schedule)");
  if (*done) retire();
  return weftSuccess;
}

void MpiTransport::Cancel() {
  // After an error the peers may never match these. Receives are cancelled, not just freed: a
  // freed receive stays posted, and a peer's late message would land in scratch or a user
  // buffer that has been reused or freed since (seen: heap corruption in mp.faults).
  CancelAll(static_cast<int>(reqs_.size()), reqs_.data());
  reqs_.clear();
  starts_.clear();
}

}  // namespace weft
