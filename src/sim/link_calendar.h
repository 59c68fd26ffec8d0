// A link in the simulator (a rank's receive side, a node's network link out or in): the times
// it is busy. The engine matches messages in the order its ranks run, so a message that
// arrives early may be matched after one that arrives later. Booked into a single "free from"
// time, the early message then waited behind the late one: at 4 nodes x 64 ranks the
// node-aware alltoall of 1 KiB blocks was predicted at 917 us with three rounds in flight and
// 594 with one, against 503 us of bytes on each node's link (weft-sim alltoall -n 1024 -d int8
// --topology 4x64 --recipe nodea2a:W --net-gbits 200 --net-latency-us 0, W = 4 and 1).
//
// A message takes the link's free time from when it may start until its bytes' time is used,
// across gaps left by other messages: a link sends packets, and a NIC interleaves the queues
// of the ranks behind it, so no free time stays idle while a message waits. Booked whole into
// the first gap that fits it, a rank's chain of messages (each posted once the one before has
// left, plus the overhead of posting) left gaps shorter than a message that no other message
// could use: pairwise:4 at 4 x 64 ranks and 1 KiB blocks replayed at 1,464 us against 1,007
// us of bytes on a node's link (9,157 busy intervals), where pairwise:1 replayed at 1,018.
#pragma once

#include <cstddef>
#include <map>

namespace weft::sim {

/// Busy intervals of one link, disjoint, touching ones merged.
class LinkCalendar {
 public:
  /// Takes `us` of the link's free time from `earliest` on, in as many gaps as it needs;
  /// returns when the last of it ends (`earliest` where `us` is 0).
  double Fill(double earliest, double us);
  /// Intervals held (for tests: merging keeps a busy link's calendar short).
  size_t intervals() const { return busy_.size(); }

 private:
  void Insert(double start, double end);  // marks [start, end) busy, merging neighbours
  std::map<double, double> busy_;         // start -> end
};

}  // namespace weft::sim
