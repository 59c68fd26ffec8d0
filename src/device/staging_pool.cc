#include "device/staging_pool.h"

#include <algorithm>

#include "core/log.h"

namespace weft::device {

StagingPool::~StagingPool() {
  for (StagingBuffer& b : idle_) Drop(b);
}

Status StagingPool::Acquire(size_t bytes, StagingBuffer* out) {
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it) {
    if (it->size >= bytes && (best == idle_.end() || it->size < best->size)) best = it;
  }
  if (best != idle_.end()) {
    *out = *best;
    idle_.erase(best);
    stats_.idle_bytes -= out->size;
    return weftSuccess;
  }
  const size_t size = (std::max<size_t>(bytes, 1) + 65535) / 65536 * 65536;
  void* p = nullptr;
  bool pinned = false;
  WEFT_CHECK(backend_->HostAlloc(size, &p, &pinned));
  ++stats_.allocations;
  stats_.held_bytes += size;
  stats_.pinned = pinned;
  WEFT_TRACE(kDevice, "staging: allocated %zu bytes (%s); pool holds %zu", size,
             pinned ? "pinned" : "pageable", stats_.held_bytes);
  *out = StagingBuffer{static_cast<unsigned char*>(p), size};
  return weftSuccess;
}

void StagingPool::Release(StagingBuffer b) {
  if (b.data == nullptr) return;
  idle_.push_back(b);
  stats_.idle_bytes += b.size;
  // Shrink: drop the largest idle buffers until what is kept fits the cap.
  while (stats_.idle_bytes > cap_ && !idle_.empty()) {
    auto largest = std::max_element(idle_.begin(), idle_.end(),
                                    [](auto& x, auto& y) { return x.size < y.size; });
    StagingBuffer drop = *largest;
    idle_.erase(largest);
    stats_.idle_bytes -= drop.size;
    Drop(drop);
  }
}

void StagingPool::Drop(StagingBuffer b) {
  if (backend_->HostFree(b.data) != weftSuccess) {
    WEFT_WARN(kDevice, "staging: freeing %zu bytes failed", b.size);
  }
  ++stats_.frees;
  stats_.held_bytes -= b.size;
}

}  // namespace weft::device
