// The set of live objects of one kind (communicators, plans), so the C API can tell a live
// handle from a destroyed or made-up one and answer weftInvalidUsage instead of crashing.
#pragma once

#include <atomic>
#include <mutex>
#include <unordered_set>

namespace weft {

/// A thread-safe set of object addresses.
template <typename T>
class LiveSet {
 public:
  void Add(const T* p) {
    std::lock_guard<std::mutex> lk(mu_);
    set_.insert(p);
  }
  void Remove(const T* p) {
    std::lock_guard<std::mutex> lk(mu_);
    set_.erase(p);
    if (last_.load(std::memory_order_relaxed) == p) last_.store(nullptr, std::memory_order_release);
  }
  /// Calls f(object) for each live object, under the set's lock (f must not add or remove).
  template <typename F>
  void ForEach(F f) const {
    std::lock_guard<std::mutex> lk(mu_);
    for (const T* p : set_) f(const_cast<T*>(p));
  }
  bool Contains(const T* p) const {
    if (p == nullptr) return false;
    // Every blocking call checks its handle: the last one found answers without the lock (the
    // locked lookup took about 94 of ~1750 instructions per 8-byte bcast in callgrind of a
    // scratch loop of them). Remove clears it, so a destroyed handle takes the lock.
    if (last_.load(std::memory_order_acquire) == p) return true;
    std::lock_guard<std::mutex> lk(mu_);
    if (set_.count(p) == 0) return false;
    last_.store(p, std::memory_order_release);
    return true;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_set<const T*> set_;
  mutable std::atomic<const T*> last_{nullptr};  // the handle found last, while it lives
};

}  // namespace weft
