#include "sim/sim.h"

#include <algorithm>
#include <cstring>
#include <random>

#include "sched/ir/text.h"
#include "sim/engine.h"
#include "sim/reference.h"

namespace weft::sim {
namespace detail {

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
  const bool prefix = opt_.expected == nullptr && sched::IsScan(spec_.coll);
  std::vector<std::vector<unsigned char>> prefixes;
  if (prefix) prefixes = ExpectedPrefixes(spec_, inputs_);
  for (int r = 0; r < P_; ++r) {
    const ir::Program& p = ps_[r];
    const std::vector<unsigned char> want = opt_.expected != nullptr ? (*opt_.expected)[r]
                                            : same_for_all           ? shared
                                            : prefix                 ? prefixes[r]
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

}  // namespace detail

SimResult Simulate(const sched::CollSpec& spec, const std::vector<ir::Program>& programs,
                   const SimOptions& opt) {
  detail::Engine e(spec, programs, opt);
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
