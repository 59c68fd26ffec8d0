// The cache for blocking calls: built programs keyed by the full call (buffers included), so
// a repeated blocking collective skips validation's twin, lowering and allocation. Entries
// with large scratch buffers are not kept, so the cache never holds much memory.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <unordered_map>

#include "coll/coll_args.h"
#include "native/native_program.h"

namespace weft {

/// An LRU map from CollArgs to the NativeProgram built for them.
class ProgramCache {
 public:
  /// Programs whose scratch exceeds this are run once and not kept.
  static constexpr size_t kMaxScratchBytes = 1u << 20;

  explicit ProgramCache(size_t capacity) : capacity_(capacity) {}
  /// The cached program for exactly these arguments, or null.
  NativeProgram* Find(const CollArgs& args);
  /// Keeps p if it is small enough and the cache is on; returns the program to run (p's).
  NativeProgram* Keep(const CollArgs& args, std::unique_ptr<NativeProgram> p,
                      std::unique_ptr<NativeProgram>* not_kept);
  size_t size() const { return map_.size(); }
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
  std::list<CollArgs> lru_;  // front: most recently used
  std::unordered_map<CollArgs, Entry, KeyHash, KeyEq> map_;
};

}  // namespace weft
