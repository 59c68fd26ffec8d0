#include "sim/engine.h"

#include <algorithm>
#include <cstring>

#include "exec/kway_reduce.h"
#include "sched/ir/text.h"
#include "sim/reference.h"

namespace weft::sim::detail {

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
          recv_at = opt_.in_place_recv_at ? (*opt_.in_place_recv_at)[r] : r * blk;
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
      arrivals_.clear();
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
        const double o_r = opt_.model.Tier(m.src, m.dst).recv_overhead_us;
        if (m.dst == r && o_r > 0) arrivals_.push_back({m.done, o_r});
      }
      // Blocked: on an oversubscribed machine the core went to another rank meanwhile.
      const double start = st.clock;
      st.clock = peer > local ? peer + opt_.model.wake_us : local;
      // LogGP's o_r: the core takes the arrivals in the order they came, each for o_r, from
      // the wait's start (those that came while it worked on earlier ones queue).
      if (!arrivals_.empty()) {
        std::sort(arrivals_.begin(), arrivals_.end());
        double handled = start;
        for (const auto& [at, o_r] : arrivals_) handled = std::max(handled, at) + o_r;
        st.clock = std::max(st.clock, handled);
      }
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

}  // namespace weft::sim::detail
