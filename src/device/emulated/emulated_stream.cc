#include "device/emulated/emulated_stream.h"

#include <sys/prctl.h>

namespace weft::device {

EmulatedStream::EmulatedStream() : thread_([this] { Loop(); }) {}

EmulatedStream::~EmulatedStream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

uint64_t EmulatedStream::Enqueue(std::function<void()> work) {
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
    seq = ++queued_;
  }
  work_cv_.notify_one();
  return seq;
}

uint64_t EmulatedStream::Tail() {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_;
}

void EmulatedStream::WaitFor(uint64_t seq) {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return done_ >= seq; });
}

bool EmulatedStream::Done(uint64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  return done_ >= seq;
}

void EmulatedStream::Loop() {
  // Injected copy latencies are sleeps; a 1 ns timer slack keeps them near the asked length
  // (the default 50 us slack would add to every emulated copy).
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and drained
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    work();
    lock.lock();
    ++done_;
    done_cv_.notify_all();
  }
}

}  // namespace weft::device
