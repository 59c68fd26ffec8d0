#include "transport/shm/bank_placer.h"

#include "core/hot_path.h"

namespace weft {

WEFT_HOT BankPlacer::Entry BankPlacer::Place(uint64_t bank_bytes, uint64_t base) {
  Entry e;
  const bool banked = bank_bytes > 0 && bank_bytes <= kBankBytes;
  if (!banked || last_ < 0) {
    // Not banked, or the first of a chain: the full wait (every peer finished the previous
    // execution), which also frees every bank for the chain that may follow.
    chain_ = 0;
    e.need = e.want = base;
  } else {
    ++chain_;
    if (chain_ < kBanks) {
      // This bank was last written before the chain began, which every peer had finished when
      // the chain's first execution passed its full wait.
      e.free = true;
    } else {
      // Bank b was written kBanks executions ago: the peers must have finished that one, that
      // is, reached the start of the one after it; reading, wait for half a ring more.
      e.need = starts_[(chain_ + 1) % kBanks];
      e.want = starts_[(chain_ + kBanks / 2 + 1) % kBanks];
    }
  }
  e.bank = banked ? (last_ >= 0 ? (last_ + 1) % kBanks : 0) : -1;
  starts_[chain_ % kBanks] = base;
  last_ = e.bank;
  return e;
}

WEFT_HOT void BankPlacer::Observe(int r, uint64_t value) {
  if (!seen_[r] || static_cast<int64_t>(value - known_[r]) > 0) known_[r] = value;
  seen_[r] = 1;
}

}  // namespace weft
