// The set of live objects of one kind (communicators, plans), so the C API can tell a live
// handle from a destroyed or made-up one and answer weftInvalidUsage instead of crashing.
#pragma once

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
  }
  bool Contains(const T* p) const {
    if (p == nullptr) return false;
    std::lock_guard<std::mutex> lk(mu_);
    return set_.count(p) != 0;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_set<const T*> set_;
};

}  // namespace weft
