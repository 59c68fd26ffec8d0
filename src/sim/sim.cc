#include "sim/sim.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <tuple>
#include <unordered_map>

#include "exec/kway_reduce.h"
#include "sched/ir/text.h"
#include "sim/link_calendar.h"
#include "sim/reference.h"

namespace weft::sim {
namespace {

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
    return opt_.model.WireUs(tier, bytes) + (Across(tier) ? opt_.model.link_message_us : 0);
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

// In-place calls share memory between send and recv exactly as the API's in-place forms do.
void Engine::Allocate() {
  arena_.resize(P_);
  shm_.resize(P_);
  inputs_.resize(P_);
  for (int r = 0; r < P_; ++r) {
    const ir::Program& p = ps_[r];
    const uint64_t es = sched::ElemBytes(spec_), blk = spec_.count * es;
    uint64_t send_at = 0, recv_at = 0, total = p.send_bytes + p.recv_bytes;
    if (spec_.in_place) {
      switch (spec_.coll) {
        case Coll::kAllGather:  // send = recv + r * blk
          send_at = r * blk;
          total = p.recv_bytes;
          break;
        case Coll::kReduceScatter:  // recv = send + r * blk
          recv_at = r * blk;
          total = p.send_bytes;
          break;
        case Coll::kGather:   // at the root, send = recv + r * blk
        case Coll::kScatter:  // at the root, recv = send + r * blk
          if (r == spec_.root) {
            (spec_.coll == Coll::kGather ? send_at : recv_at) = r * blk;
            total = std::max(p.send_bytes, p.recv_bytes);
          } else {
            recv_at = p.send_bytes;
          }
          break;
        case Coll::kBroadcast:
        case Coll::kReduce:
          if (r != spec_.root) {
            recv_at = p.send_bytes;
            break;
          }
          [[fallthrough]];
        default:  // same buffer
          total = std::max(p.send_bytes, p.recv_bytes);
          break;
      }
    } else {
      recv_at = p.send_bytes;
    }
    arena_[r].assign(total + p.scratch_bytes + 64, kUnwritten);
    ranks_[r].send = arena_[r].data() + send_at;
    ranks_[r].recv = arena_[r].data() + recv_at;
    ranks_[r].scratch = arena_[r].data() + total + 64;
    shm_[r].assign(p.shm_slot_bytes, kUnwritten);
    ranks_[r].shm = shm_[r].data();
    inputs_[r].resize(p.send_bytes);
    if (opt_.inputs != nullptr) {
      const std::vector<unsigned char>& given = (*opt_.inputs)[r];
      const uint64_t n = std::min<uint64_t>(given.size(), p.send_bytes);
      if (n > 0) std::memcpy(inputs_[r].data(), given.data(), n);
    } else {
      FillInput(spec_, r, opt_.seed, inputs_[r].data(), p.send_bytes);
    }
    if (p.send_bytes) std::memcpy(ranks_[r].send, inputs_[r].data(), p.send_bytes);
  }
}

bool Engine::Post(int rank, const ir::Instr& in) {
  const bool is_send = in.op == Opcode::kSend;
  const int src = is_send ? rank : in.peer, dst = is_send ? in.peer : rank;
  const uint64_t key = (static_cast<uint64_t>(src) << 40) | (static_cast<uint64_t>(dst) << 16) |
                       static_cast<uint64_t>(in.tag & 0xffff);
  auto& [sends, recvs] = chan_[key];
  std::deque<int>& other = is_send ? recvs : sends;
  int id;
  if (!other.empty()) {
    id = other.front();
    other.pop_front();
  } else {
    id = static_cast<int>(msgs_.size());
    msgs_.emplace_back();
    msgs_[id].src = src;
    msgs_[id].dst = dst;
    msgs_[id].tag = in.tag;
    (is_send ? sends : recvs).push_back(id);
  }
  Message& m = msgs_[id];
  const tune::LinkTier& tier = opt_.model.Tier(src, dst);
  if (is_send) {
    m.has_send = true;
    m.send_bytes = in.bytes;
    m.from = Resolve(rank, in.srcs[0]);
    double& nic = nic_free_[rank];
    const double posted = std::max(nic, ranks_[rank].clock) + opt_.model.message_overhead_us;
    const double wire = WireUs(tier, in.bytes);
    nic = Across(tier) ? node_out_[NodeOf(rank)].Fill(posted, wire) : posted + wire;
    m.inject_end = nic;
    ++res_.messages;
    res_.bytes_sent += in.bytes;
  } else {
    m.has_recv = true;
    m.recv_bytes = in.bytes;
    m.to = Resolve(rank, in.dst);
    m.recv_post = ranks_[rank].clock;
  }
  ranks_[rank].pending.push_back(id);
  if (m.has_send && m.has_recv) {
    if (m.send_bytes != m.recv_bytes) {
      fail_ = "rank " + std::to_string(m.src) + " sends " + std::to_string(m.send_bytes) +
              " bytes to rank " + std::to_string(m.dst) + " (tag " + std::to_string(m.tag) +
              ") where it expects " + std::to_string(m.recv_bytes);
      return false;
    }
    Match(m);
  }
  return true;
}

void Engine::Match(Message& m) {
  if (opt_.check_data && m.send_bytes) std::memcpy(m.to, m.from, m.send_bytes);
  const tune::LinkTier& tier = opt_.model.Tier(m.src, m.dst);
  const double wire = WireUs(tier, m.send_bytes);
  double arrival = m.inject_end + tier.latency_us;
  // Rendezvous: the data moves once the receive is posted and the handshake is done.
  if (tier.Rendezvous(m.send_bytes)) {
    arrival = std::max(arrival, m.recv_post + tier.latency_us + wire) + tier.rendezvous_us;
  }
  LinkCalendar& in = Across(tier) ? node_in_[NodeOf(m.dst)] : rx_[m.dst];
  m.done = std::max(in.Fill(arrival - wire, wire), m.recv_post);
  Wake(m.src);
  Wake(m.dst);
}

void Engine::Wake(int rank) {
  if (!blocked_[rank]) return;
  blocked_[rank] = false;
  ready_.emplace(ranks_[rank].clock, tie_order_[rank], rank);
}

Engine::Step Engine::StepOne(int r) {
  Rank& st = ranks_[r];
  const ir::Program& p = ps_[r];
  if (st.pc == p.code.size()) {
    if (st.call == 0) st.first_end = st.clock;
    if (++st.call < opt_.calls) {  // the next call of the loop
      st.pc = 0;
      st.clock += opt_.model.call_overhead_us;
      return Step::kRan;
    }
    st.done = true;
    return Step::kDone;
  }
  const ir::Instr& in = p.code[st.pc];
  switch (in.op) {
    case Opcode::kCopy:
      if (opt_.check_data) std::memmove(Resolve(r, in.dst), Resolve(r, in.srcs[0]), in.bytes);
      st.clock += pricers_[r].Us(in);
      break;
    case Opcode::kReduce: {
      if (opt_.check_data) {
        std::vector<const void*> srcs;
        for (const ir::Ref& s : in.srcs) srcs.push_back(Resolve(r, s));
        KWayReduce(Resolve(r, in.dst), srcs.data(), static_cast<int>(srcs.size()),
                   in.bytes / sched::ElemBytes(spec_), spec_.dtype, in.redop);
      }
      st.clock += pricers_[r].Us(in);
      break;
    }
    case Opcode::kSend:
    case Opcode::kRecv:
      if (!Post(r, in)) return Step::kFailed;
      break;
    case Opcode::kWaitAll:
    case Opcode::kWaitOlder: {
      // local: this rank's own work (injecting eager sends); peer: what it waits on others
      // for (receives, and rendezvous sends, done once their data has moved).
      double local = st.clock, peer = st.clock;
      const size_t keep =
          in.op == Opcode::kWaitAll
              ? 0
              : static_cast<size_t>(std::min<uint64_t>(in.value, st.pending.size()));
      const size_t older = st.pending.size() - keep;
      for (size_t k = 0; k < older; ++k) {
        const int id = st.pending[k];
        const Message& m = msgs_[id];
        if (!(m.has_send && m.has_recv)) return Step::kBlocked;
        const bool eager = !opt_.model.Tier(m.src, m.dst).Rendezvous(m.send_bytes);
        if (m.src == r && eager) {
          local = std::max(local, m.inject_end);
        } else {
          peer = std::max(peer, m.done);
        }
      }
      // Blocked: on an oversubscribed machine the core went to another rank meanwhile.
      st.clock = peer > local ? peer + opt_.model.wake_us : local;
      st.pending.erase(st.pending.begin(), st.pending.begin() + static_cast<std::ptrdiff_t>(older));
      break;
    }
    case Opcode::kSignal: {
      st.signals[in.counter].push_back(st.clock);
      const std::vector<int>* node = NodeRanks(r);
      if (node == nullptr) {
        for (int q = 0; q < P_; ++q) Wake(q);
      } else {
        for (int q : *node) Wake(q);
      }
      break;
    }
    case Opcode::kWait: {
      const int peer = NodePeer(r, in.peer);
      const auto& sig = ranks_[peer].signals;
      auto it = sig.find(in.counter);
      // The value counts this call's signals: earlier calls' come first.
      uint64_t value = in.value;
      if (st.call > 0) {
        auto per = signals_per_call_[peer].find(in.counter);
        if (per != signals_per_call_[peer].end()) value += st.call * per->second;
      }
      if (value > 0 && (it == sig.end() || it->second.size() < value)) return Step::kBlocked;
      const double seen = (value > 0 ? it->second[value - 1] : 0) + opt_.model.counter_wait_us;
      st.clock = seen > st.clock ? seen + opt_.model.wake_us : st.clock;
      break;
    }
    case Opcode::kFence:
      break;
  }
  ++st.pc;
  return Step::kRan;
}

std::string Engine::DescribeBlocked() const {
  std::string s = "deadlock:";
  int shown = 0;
  for (int r = 0; r < P_ && shown < 6; ++r) {
    const Rank& st = ranks_[r];
    if (st.done) continue;
    ++shown;
    const ir::Instr& in = ps_[r].code[st.pc];
    s += " [rank " + std::to_string(r) + " at instr " + std::to_string(st.pc) + " '" +
         ir::InstrText(in) + "'";
    if (in.op == Opcode::kWaitAll || in.op == Opcode::kWaitOlder) {
      for (int id : st.pending) {
        const Message& m = msgs_[id];
        if (m.has_send && m.has_recv) continue;
        s += m.has_send ? " send to " + std::to_string(m.dst) + " unmatched"
                        : " recv from " + std::to_string(m.src) + " unmatched";
        break;
      }
    }
    s += "]";
  }
  return s;
}

std::string Engine::CheckResults() {
  // allreduce, bcast and allgather give every rank the same result: compute it once.
  const bool same_for_all = opt_.expected == nullptr &&
                            (spec_.coll == Coll::kAllReduce || spec_.coll == Coll::kBroadcast ||
                             spec_.coll == Coll::kAllGather);
  std::vector<unsigned char> shared;
  if (same_for_all) shared = Expected(spec_, 0, inputs_);
  for (int r = 0; r < P_; ++r) {
    const ir::Program& p = ps_[r];
    const std::vector<unsigned char> want = opt_.expected != nullptr ? (*opt_.expected)[r]
                                            : same_for_all           ? shared
                                                                     : Expected(spec_, r, inputs_);
    const unsigned char* got = ranks_[r].recv;
    for (uint64_t i = 0; i < want.size(); ++i) {
      if (got[i] != want[i]) {
        const uint64_t es = sched::ElemBytes(spec_);
        return "rank " + std::to_string(r) + ": first wrong element " + std::to_string(i / es) +
               " (byte " + std::to_string(i) + " of " + std::to_string(want.size()) + ")";
      }
    }
    if (!spec_.in_place && p.send_bytes &&
        std::memcmp(ranks_[r].send, inputs_[r].data(), p.send_bytes) != 0) {
      return "rank " + std::to_string(r) + ": the send buffer was modified";
    }
  }
  return "";
}

bool Engine::CheckNodeRanks() {
  for (int r = 0; r < P_; ++r) {
    const std::vector<int>* node = NodeRanks(r);
    const int node_size = node == nullptr ? P_ : static_cast<int>(node->size());
    for (const ir::Instr& in : ps_[r].code) {
      auto fails = [&](int q) {
        if (q >= 0 && q < node_size) return false;
        fail_ = "rank " + std::to_string(r) + ": '" + ir::InstrText(in) + "' names node rank " +
                std::to_string(q) + ", beyond its node's " + std::to_string(node_size) + " ranks";
        return true;
      };
      if (in.op == Opcode::kWait && fails(in.peer)) return false;
      if (ir::HasRank(in.dst.space) && fails(in.dst.rank)) return false;
      for (const ir::Ref& x : in.srcs) {
        if (ir::HasRank(x.space) && fails(x.rank)) return false;
      }
    }
  }
  return true;
}

SimResult Engine::Run() {
  if (static_cast<int>(ps_.size()) != P_) {
    res_.why = "expected " + std::to_string(P_) + " programs";
    return res_;
  }
  if (!CheckNodeRanks()) {
    res_.why = fail_;
    return res_;
  }
  if (opt_.calls < 1 || (opt_.calls > 1 && opt_.check_data)) {
    res_.why = "calls must be 1, or more without checking data";
    return res_;
  }
  if (opt_.check_data) Allocate();
  if (opt_.model.nodes != nullptr && opt_.model.nodes->num_nodes() > 1) {
    node_out_.resize(opt_.model.nodes->num_nodes());
    node_in_.resize(opt_.model.nodes->num_nodes());
  }
  // Every rank starts its program after the call's own cost (the model's call overhead).
  for (Rank& st : ranks_) st.clock = opt_.model.call_overhead_us;
  // In time order: the rank with the earliest clock runs its next instruction. (Each rank ran
  // until it blocked, in rank order, before: a message posted late could take a node's link
  // ahead of one posted earlier, as in LinkCalendar.ANodesLinkCarriesMessagesInTheOrderThey-
  // WerePosted.)
  blocked_.assign(P_, false);
  tie_order_.resize(P_);
  for (int r = 0; r < P_; ++r) tie_order_[r] = r;
  std::mt19937_64 draw(opt_.seed);
  std::shuffle(tie_order_.begin(), tie_order_.end(), draw);
  for (int r = 0; r < P_; ++r) ready_.emplace(ranks_[r].clock, tie_order_[r], r);
  int done = 0;
  while (!ready_.empty()) {
    const int r = std::get<2>(ready_.top());
    ready_.pop();
    switch (StepOne(r)) {
      case Step::kRan:
        ready_.emplace(ranks_[r].clock, tie_order_[r], r);
        break;
      case Step::kBlocked:
        blocked_[r] = true;
        break;
      case Step::kDone:
        ++done;
        break;
      case Step::kFailed:
        res_.why = fail_;
        return res_;
    }
  }
  if (done < P_) {
    res_.why = DescribeBlocked();
    return res_;
  }
  double first = 0;
  for (const Rank& st : ranks_) {
    res_.predicted_us = std::max(res_.predicted_us, st.clock);
    first = std::max(first, st.first_end);
  }
  if (opt_.calls > 1) res_.predicted_us = (res_.predicted_us - first) / (opt_.calls - 1);
  if (opt_.check_data) res_.why = CheckResults();
  res_.pass = res_.why.empty();
  return res_;
}

}  // namespace

SimResult Simulate(const sched::CollSpec& spec, const std::vector<ir::Program>& programs,
                   const SimOptions& opt) {
  Engine e(spec, programs, opt);
  return e.Run();
}

uint64_t SimFootprintBytes(const sched::CollSpec&, const std::vector<ir::Program>& programs) {
  uint64_t total = 0;
  for (const ir::Program& p : programs) {
    total += 2 * p.send_bytes + p.recv_bytes + p.scratch_bytes + p.shm_slot_bytes;
  }
  return total;
}

}  // namespace weft::sim
