// Where a banked (latency-path) execution writes, and what its entry wait must see first.
//
// Each node rank has kBanks latency banks. Consecutive banked executions take them in turn, so
// bank b is rewritten only kBanks executions after its last use, and the entry wait asks only
// that every peer finished that execution, not the previous one: a rank may run up to
// kBanks - 1 executions ahead of its slowest peer. What the peers are known to have finished
// is cached per peer (from counters read and stamps seen), so back-to-back calls rarely read a
// peer's counter line: after an allreduce every peer's stamp was seen, and a bcast root that
// must read a receiver's counter waits until the receiver is half a ring behind, not one bank,
// so it reads once per kBanks / 2 calls.
//
// Every rank places the same executions in the same order (counter 0 at an execution's start is
// equal on every rank), so every rank picks the same bank. Counters are compared wrap-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace weft {

/// The latency banks of one node segment, as seen by one rank.
class BankPlacer {
 public:
  static constexpr int kBanks = 8;
  static constexpr uint64_t kBankBytes = 8192;  // oneshot is chosen up to 4 KiB

  /// The entry wait of one execution.
  struct Entry {
    int bank = -1;      // 0..kBanks-1, or -1: the general slot (not banked, or too large)
    bool free = false;  // no peer need be waited for
    uint64_t need = 0;  // else: every peer's counter 0 must have reached this
    uint64_t want = 0;  // when a peer's counter must be read, wait for this (>= need)
  };

  explicit BankPlacer(int nranks) : known_(nranks, 0), seen_(nranks, 0) {}

  /// For an execution with banks of bank_bytes (0: not banked) starting at counter 0 = base.
  Entry Place(uint64_t bank_bytes, uint64_t base);
  /// Peer r's counter 0 is known to be at least value (read, or implied by a stamp).
  void Observe(int r, uint64_t value);
  /// Peer r is known to have reached need (no read required).
  bool Known(int r, uint64_t need) const {
    return seen_[r] && static_cast<int64_t>(known_[r] - need) >= 0;
  }

 private:
  int last_ = -1;                 // the previous execution's bank (-1: it used none)
  int chain_ = 0;                 // banked executions in a row up to the previous one
  uint64_t starts_[kBanks] = {};  // counter 0 at the start of the last kBanks executions
  std::vector<uint64_t> known_;   // per peer: its counter 0 is at least this
  std::vector<uint8_t> seen_;     // known_ holds a value (bytes: no bit arithmetic per call)
};

}  // namespace weft
