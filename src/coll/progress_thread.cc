#include "coll/progress_thread.h"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "coll/progress.h"
#include "comm/comm.h"
#include "core/log.h"
#include "core/params.h"

namespace weft {
namespace {

// Heap objects that are never destroyed: the thread may still look at them while the
// process's static objects are destroyed after exit() began (StopAtExit joins it first).
struct State {
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::thread thread;
};
State* g_state = nullptr;
std::atomic<bool> g_running{false};

// One pass over the live communicators: each with executions in flight and its progress lock
// free is advanced without MPI calls.
void Pass() {
  ForEachLiveComm([](Comm& comm) {
    if (comm.in_flight_count.load(std::memory_order_acquire) == 0 ||
        comm.abort_requested.load(std::memory_order_relaxed)) {
      return;
    }
    std::unique_lock<std::mutex> lk(comm.progress_mu, std::try_to_lock);
    if (!lk.owns_lock()) return;  // the caller's thread is advancing it
    BusyOn busy(comm);
    AdvanceWithoutMpi(comm);
  });
}

void Loop(State* st) {
  std::unique_lock<std::mutex> lk(st->mu);
  while (!st->stop) {
    if (QueuedExecutions() == 0) {
      // Woken at the next start (WakeProgressThread); the timeout is a safety net.
      st->cv.wait_for(lk, std::chrono::milliseconds(10));
      continue;
    }
    lk.unlock();
    Pass();
    sched_yield();  // ranks and their progress threads may outnumber cores
    lk.lock();
  }
}

void StopAtExit() {
  {
    std::lock_guard<std::mutex> lk(g_state->mu);
    g_state->stop = true;
  }
  g_state->cv.notify_all();
  if (g_state->thread.joinable()) g_state->thread.join();
}

void StartOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_state = new State;
    g_state->thread = std::thread(Loop, g_state);
    std::atexit(StopAtExit);
    g_running.store(true, std::memory_order_release);
    WEFT_INFO(kInit, "progress thread started (WEFT_PROGRESS_THREAD=1)");
  });
}

}  // namespace

bool ProgressThreadOn() {
  static const bool on = GetParams().WEFT_PROGRESS_THREAD == 1;
  return on;
}

void WakeProgressThread() {
  if (!g_running.load(std::memory_order_acquire)) {
    if (!ProgressThreadOn()) return;
    StartOnce();
  }
  // Under the mutex: the thread checks for queued executions and goes to sleep under it, so a
  // wake between its check and its sleep cannot be lost (a lost one left the execution alone
  // for the 10 ms timeout: no overlap at all in weft-bench --overlap).
  { std::lock_guard<std::mutex> lk(g_state->mu); }
  g_state->cv.notify_one();
}

}  // namespace weft
