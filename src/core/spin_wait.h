// Busy waits: the spin-wait hint and the spin-then-yield loop every wait on a node peer uses.
#pragma once

#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/wait_hook.h"

namespace weft {

/// Tells the core this is a spin-wait (x86 pause: less power, no memory-order mis-speculation
/// when the awaited store lands).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// A timeout in seconds (WEFT_TIMEOUT_S comes from the environment) that cannot overflow the
/// clock: negative is 0, anything above 2^32 s (136 years) is 2^32.
inline int64_t ClampTimeoutS(int64_t timeout_s) {
  constexpr int64_t kMaxTimeoutS = int64_t{1} << 32;
  return timeout_s < 0 ? 0 : (timeout_s > kMaxTimeoutS ? kMaxTimeoutS : timeout_s);
}

/// Waits until done() holds: `spins` polls with a pause between (the peer is usually close
/// behind), then polls yielding the core between them (with more ranks than cores a spinning
/// waiter would starve the rank it waits for). False once timeout_s has passed, or once
/// give_up() says the wait is hopeless (a peer failed or exited), which is asked at most about
/// once a millisecond of yielding (it may make system calls); the wait hook
/// (core/wait_hook.h) runs as often. The clock is read only after
/// spinning failed (reading it at every wait cost 4% of an 8-byte allreduce), and then every 16
/// yields: a yield costs a system call, and with busy processes on the core each can take a
/// scheduler slice (about 4 ms), so every 1024 yields let a deadline overshoot by seconds.
template <typename Done, typename GiveUp>
bool SpinThenYield(Done done, uint64_t spins, int64_t timeout_s, GiveUp give_up) {
  for (uint64_t i = 0; i < spins; ++i) {
    if (done()) return true;
    CpuRelax();
  }
  using Clock = std::chrono::steady_clock;
  auto last_check = Clock::now();
  const auto deadline = last_check + std::chrono::seconds(ClampTimeoutS(timeout_s));
  for (uint64_t i = 0;; ++i) {
    if (done()) return true;
    sched_yield();
    if ((i & 15) == 0) {
      const auto now = Clock::now();
      if (now > deadline) return done();
      if (now - last_check > std::chrono::milliseconds(1)) {
        last_check = now;
        RunWaitHook();
        if (give_up()) return done();
      }
    }
  }
}

/// SpinThenYield that gives up only at the deadline.
template <typename Done>
bool SpinThenYield(Done done, uint64_t spins, int64_t timeout_s) {
  return SpinThenYield(done, spins, timeout_s, [] { return false; });
}

/// A mutex for short critical sections that are almost never contended (one locked exchange to
/// take, a plain release store to give back; std::mutex costs two locked operations and ~100
/// instructions a pair). Waiters spin briefly, then yield the core.
class SpinLock {
 public:
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire)) {
      for (int i = 0; held_.load(std::memory_order_relaxed); ++i) {
        if (i < 64) {
          CpuRelax();
        } else {
          sched_yield();
        }
      }
    }
  }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

}  // namespace weft
