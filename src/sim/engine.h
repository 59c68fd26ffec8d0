// The simulator's engine: every rank's program run instruction by instruction in time order,
// messages matched and booked on links, node counters and copies priced by the cost model.
// Internal to src/sim: engine.cc runs the instructions, sim.cc drives a run and checks it.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/link_calendar.h"
#include "sim/sim.h"

namespace weft::sim::detail {

using ir::Opcode;
using sched::Coll;

struct Message {
  int src = 0, dst = 0, tag = 0;
  uint64_t send_bytes = 0, recv_bytes = 0;
  const unsigned char* from = nullptr;
  unsigned char* to = nullptr;
  bool has_send = false, has_recv = false;
  double inject_end = 0, recv_post = 0, done = 0;
};

struct Rank {
  size_t pc = 0;
  double clock = 0;
  int call = 0;              // of SimOptions::calls
  double first_end = 0;      // when the first call ended
  std::vector<int> pending;  // message ids since the last waitall
  bool done = false;
  std::map<int, std::vector<double>> signals;  // counter -> time of each signal
  unsigned char *send = nullptr, *recv = nullptr, *scratch = nullptr, *shm = nullptr;
};

class Engine {
 public:
  Engine(const sched::CollSpec& spec, const std::vector<ir::Program>& ps, const SimOptions& o)
      : spec_(spec), ps_(ps), opt_(o), P_(spec.nranks), ranks_(P_), nic_free_(P_), rx_(P_) {
    pricers_.reserve(P_);
    signals_per_call_.resize(P_);
    for (int r = 0; r < P_; ++r) {
      pricers_.emplace_back(opt_.model, ps_[r]);
      for (const ir::Instr& in : ps_[r].code) {
        if (in.op == Opcode::kSignal) ++signals_per_call_[r][in.counter];
      }
    }
  }

  SimResult Run();

 private:
  unsigned char* Resolve(int rank, const ir::Ref& r) {
    if (!opt_.check_data) return nullptr;
    switch (r.space) {
      case ir::Space::kSend:
        return ranks_[rank].send + r.offset;
      case ir::Space::kRecv:
        return ranks_[rank].recv + r.offset;
      case ir::Space::kScratch:
        return ranks_[rank].scratch + r.offset;
      case ir::Space::kShm:
        return ranks_[NodePeer(rank, r.rank)].shm + r.offset;
      case ir::Space::kPeerSend:
        return ranks_[NodePeer(rank, r.rank)].send + r.offset;
      case ir::Space::kPeerRecv:
        return ranks_[NodePeer(rank, r.rank)].recv + r.offset;
    }
    return nullptr;
  }
  // The communicator rank of node rank `node_rank` on rank's node: the same on one node; on
  // ranks spanning nodes a program's slots and counters name local indices (a hierarchical
  // recipe's node level). CheckNodeRanks has checked the range.
  int NodePeer(int rank, int node_rank) const {
    const std::vector<int>* node = NodeRanks(rank);
    return node == nullptr ? node_rank : (*node)[node_rank];
  }
  // The ranks of rank's node where the ranks span nodes; null on one node (node rank == rank).
  const std::vector<int>* NodeRanks(int rank) const {
    const Topology* t = spec_.nodes.get();
    if (t == nullptr || t->num_nodes() < 2 || t->nranks != P_) return nullptr;
    return &t->ranks_of_node[t->node_of_rank[rank]];
  }
  bool CheckNodeRanks();  // false with fail_ set when a program names a node rank its node lacks
  // The network: each node's link, one way out and one way in, books a message for its
  // bytes at the full rate (plus the link's time per message), in the free time from when
  // it may start (LinkCalendar::Fill). When every rank of a node sends across at once they
  // take turns, as a 1/sharers share each would give; a tree's one sender per node gets the
  // whole link. (Charging every message a 1/sharers share, as the selection estimate does,
  // put a 512 KiB bcast over 32 x 64 ranks at 13.6 ms; now 0.35: weft-sim bcast -n 65536
  // --topology 32x64.)
  bool Across(const tune::LinkTier& tier) const { return &tier == &opt_.model.inter; }
  double WireUs(const tune::LinkTier& tier, uint64_t bytes) const {
    return Across(tier) ? opt_.model.LinkMessageUs(tier, bytes) : opt_.model.WireUs(tier, bytes);
  }
  int NodeOf(int rank) const { return opt_.model.nodes->node_of_rank[rank]; }
  void Allocate();
  bool Post(int rank, const ir::Instr& in);  // false on a size mismatch (fail_ set)
  void Match(Message& m);
  enum class Step { kRan, kBlocked, kDone, kFailed };
  // Runs rank's next instruction (or starts its next call of the loop).
  Step StepOne(int rank);
  // Makes a blocked rank runnable again: something it may wait on has happened.
  void Wake(int rank);
  std::string DescribeBlocked() const;
  std::string CheckResults();

  const sched::CollSpec& spec_;
  const std::vector<ir::Program>& ps_;
  SimOptions opt_;
  int P_;
  std::vector<Rank> ranks_;
  std::vector<tune::ComputePricer> pricers_;  // per rank: its copies' and reduces' costs
  // Scratch: one wait's receives that cost their receiver time, (arrival, o_r).
  std::vector<std::pair<double, double>> arrivals_;
  // Per rank, counter -> signals in one call: a wait in a later call counts from there.
  std::vector<std::map<int, uint64_t>> signals_per_call_;
  std::vector<double> nic_free_;
  std::vector<LinkCalendar> rx_;                  // each rank's receive side, within its node
  std::vector<LinkCalendar> node_out_, node_in_;  // each node's network link (across nodes)
  std::vector<Message> msgs_;
  std::unordered_map<uint64_t, std::pair<std::deque<int>, std::deque<int>>> chan_;  // sends, recvs
  std::vector<std::vector<unsigned char>> arena_, shm_, inputs_;
  // The runnable ranks by clock (earliest first, then by rank), and the ones waiting on a
  // peer: the engine runs the earliest rank one instruction at a time, so links are booked in
  // the order the messages are posted in time.
  // Ranks whose clocks are equal go in a random order drawn once per run (SimOptions::seed), not
  // by rank: identical ranks doing identical work reach a link at the same instant, and the
  // one that goes first finishes first. By rank, the node-major numbering of block placement
  // had every rank of a node wait for its last message until the end of its node link's busy
  // time, and the local-major one of round-robin placement let one local index finish after
  // another: at 32 x 64 and 64 KiB the same composition replayed 45.1 us (block) and 37.3
  // (round-robin); in a random order 45.2-46.0 (block) and 44.8-45.1 (round-robin) over seeds 1-3.
  using Ready = std::tuple<double, int, int>;  // clock, tie order, rank
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready_;
  std::vector<int> tie_order_;
  std::vector<bool> blocked_;
  std::string fail_;
  SimResult res_;
};

}  // namespace weft::sim::detail
