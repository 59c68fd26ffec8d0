#include "coll/run_blocking.h"

#include <memory>
#include <mutex>

#include "coll/build_collective.h"
#include "coll/progress.h"
#include "coll/progress_thread.h"
#include "core/hot_path.h"
#include "core/log.h"

namespace weft {

WEFT_HOT Status PrepareBlocking(Comm& comm, CollArgs* a) {
  const bool point_to_point = a->kind == CollKind::kSend || a->kind == CollKind::kRecv;
  if (!point_to_point && comm.in_flight_count.load(std::memory_order_acquire) > 0) {
    WEFT_CHECK(DrainExecutions(comm));
  }
  a->slots_streamed = comm.SlotsStreamed();  // the same on every rank at the same call
  return weftSuccess;
}

WEFT_HOT Status HeldExecutable(Comm& comm, const CollArgs& a, ProgramRef* out) {
  // Held for the run: another thread's eviction or Clear cannot free it under this one.
  ProgramRef program = CacheOf(comm).Find(a);
  if (program != nullptr && program->active()) program = nullptr;  // a request runs it
  if (program == nullptr) {
    std::unique_ptr<Executable> built;
    WEFT_CHECK(BuildCollective(comm, a, &built));
    WEFT_TRACE(kColl, "built: %s", DescribeCollective(comm, a, *built).c_str());
    program = comm.cache->Keep(a, std::move(built));
  }
  *out = std::move(program);
  return weftSuccess;
}

WEFT_HOT Status RunHostBlocking(Comm& comm, const CollArgs& args) {
  CollArgs a = args;
  WEFT_CHECK(PrepareBlocking(comm, &a));
  ProgramRef program;
  WEFT_CHECK(HeldExecutable(comm, a, &program));
  BusyOn busy(comm);  // its waits advance the other communicators' executions, not this one's
  // A send or receive runs beside this communicator's nonblocking executions (it does not drain
  // them), and its start may finish the one 64 back in its tag slot: with the progress thread
  // on, the progress lock keeps that thread off them meanwhile.
  std::unique_lock<std::mutex> progress;
  if (ProgressThreadOn() && comm.in_flight_count.load(std::memory_order_acquire) > 0) {
    progress = std::unique_lock<std::mutex>(comm.progress_mu);
  }
  return program->Run(comm, Bind{static_cast<const char*>(a.send), static_cast<char*>(a.recv)});
}

}  // namespace weft
