// What a waiting call does with its idle time besides checking its peers: advance the
// nonblocking executions of other communicators. A rank blocked in one communicator's call may
// be waited on by a peer that first needs this rank's part of a nonblocking call on another
// (MPI requires such programs to end: its progress engine advances everything inside any
// call). The hook is set once by the layer that owns executions (coll/progress.cc); waits in
// lower layers (SpinThenYield) call it about once a millisecond of yielding.
#pragma once

#include <atomic>

namespace weft {

/// Advances other work without blocking; must not wait.
using WaitHook = void (*)();

/// The hook every long wait runs (null: none).
inline std::atomic<WaitHook>& WaitHookSlot() {
  static std::atomic<WaitHook> hook{nullptr};
  return hook;
}

/// Runs the hook, if one is set.
inline void RunWaitHook() {
  if (WaitHook h = WaitHookSlot().load(std::memory_order_acquire)) h();
}

}  // namespace weft
