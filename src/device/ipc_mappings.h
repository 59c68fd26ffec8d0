// A communicator's opened IPC mappings of its node peers' device allocations. Opening a handle
// costs (tens of microseconds under CUDA, and a handle may be opened only once per process),
// so a mapping stays open and is found again by its handle. About kMax are kept: a call that
// might pass the bound closes them all before it opens any (peers' buffers changed), never in
// the middle of opening its own; all are closed at destroy.
#pragma once

#include <cstring>
#include <vector>

#include "device/backend.h"

namespace weft::device {

/// Opened peer allocations, by (peer, handle).
class IpcMappings {
 public:
  static constexpr size_t kMax = 64;

  /// The local device address of peer's allocation named by h (opened now or before).
  Status Open(Backend& b, int peer, const IpcHandle& h, void** ptr) {
    for (const Entry& e : open_) {
      if (e.peer == peer && std::memcmp(e.handle.bytes, h.bytes, sizeof(h.bytes)) == 0) {
        *ptr = e.ptr;
        return weftSuccess;
      }
    }
    WEFT_CHECK(b.IpcOpen(h, ptr));
    open_.push_back(Entry{peer, h, *ptr});
    return weftSuccess;
  }
  /// Before a call opens up to `more` mappings: closes every mapping if they would pass kMax.
  Status MakeRoom(Backend& b, size_t more) {
    return open_.size() + more > kMax ? CloseAll(b) : weftSuccess;
  }
  /// Closes every mapping (the first failure is returned; the rest are still closed).
  Status CloseAll(Backend& b) {
    Status first = weftSuccess;
    for (const Entry& e : open_) {
      Status s = b.IpcClose(e.ptr);
      if (first == weftSuccess) first = s;
    }
    open_.clear();
    return first;
  }
  size_t size() const { return open_.size(); }

 private:
  struct Entry {
    int peer;
    IpcHandle handle;
    void* ptr;
  };
  std::vector<Entry> open_;
};

}  // namespace weft::device
