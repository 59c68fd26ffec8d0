// Streams of the emulated backend: each is a worker thread running enqueued work in order, so
// asynchronous copies really overlap with the host the way a copy engine's do. Events are a
// (stream, sequence number) pair.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace weft::device {

/// One in-order queue of work with its own thread.
class EmulatedStream {
 public:
  EmulatedStream();
  ~EmulatedStream();  // runs what is queued, then joins
  EmulatedStream(const EmulatedStream&) = delete;
  EmulatedStream& operator=(const EmulatedStream&) = delete;

  /// Queues work; returns its sequence number (1, 2, ...).
  uint64_t Enqueue(std::function<void()> work);
  /// Sequence number of the last work queued (0 if none).
  uint64_t Tail();
  /// Blocks until work up to seq has run.
  void WaitFor(uint64_t seq);
  bool Done(uint64_t seq);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::function<void()>> queue_;
  uint64_t queued_ = 0, done_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

/// A recorded point in one stream (nullptr stream: already complete).
struct EmulatedEvent {
  EmulatedStream* stream = nullptr;
  uint64_t seq = 0;
};

}  // namespace weft::device
