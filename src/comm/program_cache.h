// The cache for blocking calls: built programs keyed by the call's shape (kind, count, type,
// op, root, in-place; not the buffers, which are bound at run time), so a repeated blocking
// collective skips lowering and allocation. Programs with large scratch buffers are not kept,
// so the cache never holds much memory.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "coll/coll_args.h"
#include "core/spin_wait.h"
#include "native/native_program.h"

namespace weft {

/// An LRU map from a call's shape to the NativeProgram built for it.
class ProgramCache {
 public:
  /// Programs whose scratch exceeds this are run once and not kept.
  static constexpr size_t kMaxScratchBytes = 1u << 20;

  explicit ProgramCache(size_t capacity) : capacity_(capacity) {}
  /// The cached program for this shape, or null.
  NativeProgram* Find(const CollArgs& args);
  /// Keeps p if it is small enough and the cache is on; returns the program to run (p's).
  /// A program found or kept here must not be run by two threads at once: collectives on one
  /// communicator are serial by MPI's rules, and point-to-point programs hold no scratch.
  NativeProgram* Keep(const CollArgs& args, std::unique_ptr<NativeProgram> p,
                      std::unique_ptr<NativeProgram>* not_kept);
  size_t size() {
    std::lock_guard<SpinLock> lk(mu_);
    return map_.size();
  }
  void Clear();

 private:
  struct KeyHash {
    size_t operator()(const CollArgs& a) const;
  };
  struct KeyEq {
    bool operator()(const CollArgs& a, const CollArgs& b) const;
  };
  struct Entry {
    std::unique_ptr<NativeProgram> program;
    std::list<CollArgs>::iterator lru;
  };
  size_t capacity_;
  SpinLock mu_;              // point-to-point calls may come from several threads on one comm
  std::list<CollArgs> lru_;  // front: most recently used
  std::unordered_map<CollArgs, Entry, KeyHash, KeyEq> map_;
  // lru_.front() and its program, kept in this object: a loop of one call shape reads no
  // list or map node (each a separate allocation, a miss of its own when the call comes cold).
  CollArgs mru_key_{};
  NativeProgram* mru_program_ = nullptr;
};

}  // namespace weft
