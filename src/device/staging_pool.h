// Host buffers for staging device data: reused across calls, pinned through the backend where
// it can, and bounded. Buffers not in use are kept up to WEFT_STAGING_CACHE_MAX bytes; a
// release that would keep more frees the largest idle buffers, so one huge call does not hold
// memory for ever. One pool per communicator, freed with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "device/backend.h"

namespace weft::device {

/// A borrowed staging buffer.
struct StagingBuffer {
  unsigned char* data = nullptr;
  size_t size = 0;
};

/// Counters a test or tool can read (weftCommStagingStats).
struct StagingStats {
  size_t held_bytes = 0;     // idle + in use
  size_t idle_bytes = 0;     // kept for reuse
  uint64_t allocations = 0;  // host allocations made so far
  uint64_t frees = 0;
  bool pinned = false;  // the last allocation was page-locked
};

/// The reuse cache of one communicator. Not thread-safe: one call stages at a time per
/// communicator, as with its other scratch memory.
class StagingPool {
 public:
  StagingPool(Backend* backend, size_t cap) : backend_(backend), cap_(cap) {}
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  /// The smallest idle buffer of at least `bytes`, or a new one (rounded up to 64 KiB).
  [[nodiscard]] Status Acquire(size_t bytes, StagingBuffer* out);
  /// Returns a buffer; then trims idle buffers to the cap.
  void Release(StagingBuffer b);
  StagingStats stats() const { return stats_; }

 private:
  void Drop(StagingBuffer b);

  Backend* backend_;
  size_t cap_;
  std::vector<StagingBuffer> idle_;
  StagingStats stats_;
};

}  // namespace weft::device
