#include "coll/program_cache.h"

#include <functional>

#include "core/hot_path.h"

namespace weft {

size_t ProgramCache::KeyHash::operator()(const CollArgs& a) const {
  size_t h = std::hash<size_t>()(a.count);
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(a.in_place | a.zero_copy << 1 | a.slots_streamed << 2);
  mix(static_cast<size_t>(a.kind) << 16 | static_cast<size_t>(a.type) << 8 |
      static_cast<size_t>(a.op));
  mix(static_cast<size_t>(a.root));
  if (a.v != nullptr) mix(a.v->digest);
  return h;
}

bool ProgramCache::KeyEq::operator()(const CollArgs& a, const CollArgs& b) const {
  return a.kind == b.kind && a.count == b.count && a.type == b.type && a.op == b.op &&
         a.root == b.root && a.in_place == b.in_place && a.zero_copy == b.zero_copy &&
         a.slots_streamed == b.slots_streamed &&
         (a.v == b.v || (a.v != nullptr && b.v != nullptr && *a.v == *b.v));
}

WEFT_HOT ProgramRef ProgramCache::Find(const CollArgs& args) {
  std::lock_guard<SpinLock> lk(mu_);
  // A loop of one call shape hits the most recent entry: no hashing, no list splice.
  if (mru_program_ != nullptr && KeyEq()(mru_key_, args)) return mru_program_;
  auto it = map_.find(args);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  mru_key_ = args;
  mru_program_ = it->second.programs[0];
  return mru_program_;
}

WEFT_HOT ProgramRef ProgramCache::FindIdle(const CollArgs& args) {
  std::lock_guard<SpinLock> lk(mu_);
  auto it = map_.find(args);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  mru_key_ = args;
  mru_program_ = it->second.programs[0];
  for (const ProgramRef& p : it->second.programs) {
    if (!p->active()) return p;
  }
  return nullptr;
}

ProgramRef ProgramCache::Keep(const CollArgs& args, std::unique_ptr<Executable> p) {
  std::lock_guard<SpinLock> lk(mu_);
  ProgramRef program(std::move(p));
  // Of the v-collectives only compiled programs are kept: the node-aware alltoallv builds its
  // data stage from each call's exchanged counts, and native programs hold the call's arrays.
  const bool v_kept = args.v == nullptr || program->compiled() != nullptr;
  if (!v_kept || capacity_ == 0 || program->scratch_bytes() > kMaxScratchBytes) return program;
  auto found = map_.find(args);
  if (found != map_.end()) {  // another instance of a shape already kept
    std::vector<ProgramRef>& kept = found->second.programs;
    if (kept.size() < kMaxInstances) kept.push_back(program);
    return program;
  }
  if (map_.size() >= capacity_) {
    map_.erase(lru_.back());
    lru_.pop_back();
  }
  lru_.push_front(args);
  map_.emplace(args, Entry{{program}, lru_.begin()});
  mru_key_ = args;
  mru_program_ = program;
  return program;
}

void ProgramCache::Clear() {
  std::lock_guard<SpinLock> lk(mu_);
  mru_program_ = nullptr;
  map_.clear();
  lru_.clear();
}

}  // namespace weft
