// The cache of built programs, keyed by the call's shape (kind, count, type, op, root,
// in-place, and a v-collective's count arrays; not the buffers, which are bound at run time),
// so a repeated call skips lowering and allocation. A shape may hold several instances: nonblocking calls of one shape may be in
// flight together, each running its own. Programs with large scratch buffers are not kept, so
// the cache never holds much memory.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "call/coll_args.h"
#include "coll/executable.h"
#include "core/spin_wait.h"

namespace weft {

/// A program handed out by the cache: shared, so that evicting it (or clearing the cache) while
/// another thread runs it frees nothing under that thread.
using ProgramRef = std::shared_ptr<Executable>;

/// An LRU map from a call's shape to the Executable built for it.
class ProgramCache {
 public:
  /// Programs whose scratch exceeds this are run once and not kept.
  static constexpr size_t kMaxScratchBytes = 1u << 20;
  /// Instances kept per shape (nonblocking calls of one shape in flight together); more run
  /// once and are not kept.
  static constexpr size_t kMaxInstances = 8;

  explicit ProgramCache(size_t capacity) : capacity_(capacity) {}
  /// The first cached program for this shape, or null. Blocking calls run it: every
  /// nonblocking execution of the communicator is complete before a blocking collective starts
  /// (coll/progress.h), so it is idle then.
  ProgramRef Find(const CollArgs& args);
  /// A cached program for this shape that is not running (a nonblocking call may hold one), or
  /// null.
  ProgramRef FindIdle(const CollArgs& args);
  /// Keeps p if it is small enough, the cache is on and the shape has fewer than
  /// kMaxInstances, and returns p either way (the program to run).
  /// A program found or kept here must not be run by two threads at once: collectives on one
  /// communicator are serial by MPI's rules, and point-to-point programs hold no scratch.
  ProgramRef Keep(const CollArgs& args, std::unique_ptr<Executable> p);
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
    std::vector<ProgramRef> programs;  // never empty; [0] is the one blocking calls run
    std::list<CollArgs>::iterator lru;
  };
  size_t capacity_;
  SpinLock mu_;              // point-to-point calls may come from several threads on one comm
  std::list<CollArgs> lru_;  // front: most recently used
  std::unordered_map<CollArgs, Entry, KeyHash, KeyEq> map_;
  // lru_.front() and its program, kept in this object: a loop of one call shape reads no
  // list or map node (each a separate allocation, a miss of its own when the call comes cold).
  CollArgs mru_key_{};
  ProgramRef mru_program_;
};

/// comm's cache, emptied first when a shared-memory segment failed to grow since the last
/// look (Comm::programs_stale): later calls are then built for point-to-point schedules.
inline ProgramCache& CacheOf(Comm& comm) {
  if (__builtin_expect(comm.programs_stale.load(std::memory_order_acquire), 0) &&
      comm.programs_stale.exchange(false)) {
    comm.cache->Clear();
  }
  return *comm.cache;
}

}  // namespace weft
