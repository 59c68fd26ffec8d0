#include "coll/compiled_coll.h"

#include <algorithm>
#include <mutex>
#include <tuple>

#include "coll/choose_recipe.h"
#include "coll/progress_thread.h"
#include "compile/compile.h"
#include "compile/hierarchical.h"
#include "core/dtype.h"
#include "core/hot_path.h"
#include "core/log.h"
#include "core/params.h"

namespace weft {

namespace {
// Bytes a program reads from its rank's send buffer (in place: lines of the receive buffer
// this execution brings into cache before it overwrites them).
uint64_t SendBytesRead(const sched::Bytecode& bc) {
  uint64_t n = 0;
  auto is_send = [&](uint32_t i) {
    return bc.refs[i].space == static_cast<uint8_t>(ir::Space::kSend);
  };
  for (const sched::BcInstr& in : bc.code) {
    switch (static_cast<ir::Opcode>(in.op)) {
      case ir::Opcode::kSend:  // its operand is the source
        n += is_send(in.ref) ? in.bytes : 0;
        break;
      case ir::Opcode::kCopy:
      case ir::Opcode::kReduce:
        for (uint32_t j = 1; j <= in.nsrc; ++j) {
          n += is_send(in.ref + j) ? in.bytes : 0;
        }
        break;
      default:
        break;
    }
  }
  return n;
}
}  // namespace

Status BuildCompiledProgram(Comm& comm, const ir::Program& prog, const sched::Recipe& recipe,
                            uint64_t count, uint64_t scale_unit,
                            std::unique_ptr<CompiledColl>* out) {
  bool node = prog.shm_slot_bytes > 0;
  for (const ir::Instr& in : prog.code) {
    node |= in.op == ir::Opcode::kSignal || in.op == ir::Opcode::kWait;
  }
  auto c = std::make_unique<CompiledColl>(comm, node, prog.shm_slot_bytes);
  c->recipe = recipe;
  c->bytecode = sched::Lower(prog, count, scale_unit);
  std::string why;
  if (!sched::CheckBytecode(c->bytecode, &why)) {
    return comm.Fail(weftInternalError, "lowering %s produced bad bytecode: %s",
                     sched::RecipeText(recipe).c_str(), why.c_str());
  }
  (void)c->SendsMessages();  // computed now, while one thread owns it: later calls only read
  *out = std::move(c);
  return weftSuccess;
}

Status TryBuildCompiled(Comm& comm, const CollArgs& args, std::unique_ptr<CompiledColl>* out) {
  out->reset();
  SelectionInput in;
  if (!MakeSelectionInput(comm, args, &in)) return weftSuccess;
  const sched::CollSpec& spec = in.spec;
  const sched::GenEnv& env = in.env;
  sched::Recipe recipe;
  std::string why;
  const char* decided_by = "";
  if (!ChooseRecipe(comm, in, &recipe, &why, &decided_by)) {
    WEFT_TRACE(kColl, "%s: native MPI (%s)", sched::SpecText(spec).c_str(), why.c_str());
    return weftSuccess;
  }
  if (env.node_shared_memory && comm.node_segment_failed()) {
    // This node's segment could not be made or grown (the other nodes' may have been): its
    // node level runs point-to-point, with the same network messages every other node expects.
    const sched::Recipe p2p = sched::PointToPointNodeLevel(spec, recipe, comm.rank);
    if (!(p2p == recipe)) {
      WEFT_INFO(kColl, "%s: no segment on this node: %s runs as %s", sched::SpecText(spec).c_str(),
                sched::RecipeText(recipe).c_str(), sched::RecipeText(p2p).c_str());
      recipe = p2p;
    }
  }
  std::unique_ptr<CompiledColl> c;
  WEFT_CHECK(BuildCompiledProgram(comm, sched::BuildProgram(spec, recipe, comm.rank), recipe,
                                  spec.count, sched::RecipeScaleUnit(spec, recipe), &c));
  if (env.zero_copy) c->set_zero_copy();
  c->in_place_rereads_ = 2 * SendBytesRead(c->bytecode) >= c->bytecode.recv_bytes;
  if (c->uses_node_) {
    c->build_args_ = args;
    c->build_args_->v = nullptr;  // v-collectives are not built here (only their shape matters)
  }
  WEFT_INFO(kColl, "%s: recipe %s (%s), %zu instructions", sched::SpecText(spec).c_str(),
            sched::RecipeText(recipe).c_str(), decided_by, c->bytecode.code.size());
  *out = std::move(c);
  return weftSuccess;
}

CompiledColl::~CompiledColl() {
  if (comm_.shm_user == this) comm_.shm_user = nullptr;
  for (CompiledColl*& user : comm_.tag_slot_users) {
    if (user == this) user = nullptr;
  }
}

WEFT_HOT Status CompiledColl::ClaimTagSlot(Comm& comm) {
  static_assert(std::tuple_size_v<decltype(comm.tag_slot_users)> == kScheduleSlots,
                "one user per tag slot of the MPI transport");
  if (follows_ != nullptr) {  // a second stage: its first stage's slot
    slot_ = follows_->slot_;
    CompiledColl*& user = comm.tag_slot_users[slot_ % kScheduleSlots];
    if (user == follows_) user = this;
    transport_.set_slot(slot_);
    return weftSuccess;
  }
  const uint32_t start = comm.schedule_starts.fetch_add(1);
  CompiledColl*& user = comm.tag_slot_users[start % kScheduleSlots];
  CompiledColl* prev = user;
  user = this;
  slot_ = start;
  transport_.set_slot(start);
  // The execution 64 starts back used these tags: were it still running, its messages and
  // this one's could match each other's receives. Every rank starts executions in the same
  // order, so every rank finishes that one here, and it can finish: its peers do the same.
  // A first stage whose second has not started yet finishes both (the second runs in this
  // slot too).
  if (!Unfinished(prev, true)) return weftSuccess;
  if (prev->finish_call) {
    const std::function<Status(Comm&)> finish = prev->finish_call;
    return finish(comm);
  }
  bool done = false;
  return prev->Resume(comm, true, &done);
}

bool CompiledColl::Unfinished(const CompiledColl* prev, bool tag_slot) const {
  return prev != nullptr && prev != this &&
         ((tag_slot && prev->finish_call) || prev->interp_.active());
}

bool CompiledColl::SendsMessages() const {
  if (sends_messages_ < 0) {
    sends_messages_ = std::any_of(bytecode.code.begin(), bytecode.code.end(), [](const auto& in) {
      return in.op == static_cast<uint8_t>(ir::Opcode::kSend) ||
             in.op == static_cast<uint8_t>(ir::Opcode::kRecv);
    });
  }
  return sends_messages_ != 0;
}

bool CompiledColl::BeginsWithoutMpi(const Comm& comm) const {
  if (SendsMessages()) return false;
  if (!uses_node_) return true;
  const ShmSegment* seg = comm.current_segment();
  if (seg == nullptr || seg->slot_bytes() < slot_bytes_) return false;  // would grow
  // ChooseSlotStores' condition for a probe at this execution.
  const uint64_t call_bytes = bytecode.count * TypeSize(bytecode.dtype);
  if (comm.slot_store_mode() >= 0 || call_bytes < kProbeMinBytes || comm.node_oversubscribed ||
      seg->nranks() < 2) {
    return true;
  }
  const uint64_t every = kProbeEvery * static_cast<uint64_t>(seg->nranks() - 1);
  return (comm.large_shm_execs + 1) % every != 0;
}

bool CompiledColl::StartsWithoutWaiting(const Comm& comm) const {
  // What ClaimNodeSegment and ClaimTagSlot would finish before this one begins.
  if (uses_node_ && Unfinished(comm.shm_user, false)) return false;
  return follows_ != nullptr ||  // a second stage has no slot of its own
         !Unfinished(comm.tag_slot_users[comm.schedule_starts.load() % kScheduleSlots], true);
}

WEFT_HOT Status CompiledColl::ClaimNodeSegment(Comm& comm) {
  if (!uses_node_) return weftSuccess;
  CompiledColl* prev = comm.shm_user;
  comm.shm_user = this;
  if (Unfinished(prev, false)) {
    // Every rank starts collectives in the same order, so every rank finishes the same one here.
    bool done = false;
    WEFT_CHECK(prev->Resume(comm, true, &done));
  }
  // The segment is looked up (and grown, collectively) at every start, not kept from the build:
  // ranks build programs at different calls (cache hits differ), so only the order of
  // executions is common to all of them. Still holding the current one, large enough: no
  // growth is due on any rank (every rank's program has the same slot size), and no
  // reference count changes hands (two locked operations per call on the latency path).
  ShmSegment* held = transport_.shm();
  if (held != nullptr && held == comm.current_segment() && held->slot_bytes() >= slot_bytes_) {
    return ChooseSlotStores(comm, *held);
  }
  std::shared_ptr<ShmSegment> seg;
  if (!comm.NodeSegment(slot_bytes_, &seg)) return RebuildWithoutSegment(comm);
  WEFT_CHECK(ChooseSlotStores(comm, *seg));
  transport_.set_shm(std::move(seg));
  return weftSuccess;
}

Status CompiledColl::RebuildWithoutSegment(Comm& comm) {
  std::unique_ptr<CompiledColl> fresh;
  if (rebuild_without_segment) {
    WEFT_CHECK(rebuild_without_segment(comm, &fresh));
  } else if (build_args_) {
    WEFT_CHECK(TryBuildCompiled(comm, *build_args_, &fresh));
  }
  if (fresh == nullptr || fresh->uses_node_) {  // native MPI would be chosen: not this object's
    return comm.Fail(weftSystemError,
                     "compiled %s: no shared-memory segment with %llu-byte slots (see the log "
                     "for why); later calls choose point-to-point schedules",
                     sched::RecipeText(recipe).c_str(),
                     static_cast<unsigned long long>(slot_bytes_));
  }
  WEFT_INFO(kColl, "no segment with %llu-byte slots: %s runs as %s from this call on",
            static_cast<unsigned long long>(slot_bytes_), sched::RecipeText(recipe).c_str(),
            sched::RecipeText(fresh->recipe).c_str());
  if (comm.shm_user == this) comm.shm_user = nullptr;  // it runs no node step now
  recipe = std::move(fresh->recipe);
  bytecode = std::move(fresh->bytecode);
  uses_node_ = false;
  slot_bytes_ = 0;
  in_place_rereads_ = fresh->in_place_rereads_;
  sends_messages_ = fresh->sends_messages_;
  transport_.set_mapped_peers(false);
  transport_.set_shm(nullptr);
  return weftSuccess;
}

Status CompiledColl::ChooseSlotStores(Comm& comm, ShmSegment& seg) {
  if (comm.slot_store_mode() >= 0) return weftSuccess;  // forced: no probes
  // Every rank runs the same executions with the same counts, so every rank probes at the same
  // one. Small calls keep the last verdict (a probe costs tens of microseconds); oversubscribed
  // nodes keep plain stores (a round trip there measures the scheduler).
  const uint64_t call_bytes = bytecode.count * TypeSize(bytecode.dtype);
  if (call_bytes < kProbeMinBytes || comm.node_oversubscribed || seg.nranks() < 2) {
    return weftSuccess;
  }
  // The communicator's creation probed first; large executions reprobe every kProbeEvery per
  // peer, since a probe's cost grows with the peers (rank 0 times each in turn).
  const uint64_t every = kProbeEvery * static_cast<uint64_t>(seg.nranks() - 1);
  if (++comm.large_shm_execs % every != 0) return weftSuccess;
  return comm.ProbeNodePlacement(seg);
}

WEFT_HOT ExecBuffers CompiledColl::Buffers(const Bind& bind, unsigned char* scratch) const {
  ExecBuffers b;
  b.send = own_bytes_ ? &bytes_[0] : reinterpret_cast<const unsigned char*>(bind.send);
  b.recv = own_bytes_ ? const_cast<unsigned char*>(&bytes_[1])
                      : reinterpret_cast<unsigned char*>(bind.recv);
  b.scratch = scratch;
  // Latency banks are read at once and share their first line with the stamp: plain stores.
  b.stream_shm = comm_.SlotsStreamed() && !bytecode.shm_banked;
  // Stream the result (non-temporal stores) when the user buffers this call touches exceed
  // what a core's cache keeps and most of the receive buffer is cold: an out-of-place result
  // would not stay cached anyway, and streaming spares a read for ownership of every cold line.
  // In place, a reduction has just read the lines it overwrites, and streaming them costs:
  // measured at 2 ranks, cold buffers, median of 10 (weft-bench allreduce, WEFT_NT_MIN_BYTES
  // 64 KiB or 1 GiB against 1 MiB, in a normal phase of the machine): out of place, streaming
  // took 512 KiB from 104 to 83 us and 8 MiB from 1651 to 1329 us; in place it took 512 KiB
  // from 62 to 85 us and 8 MiB from 999 to 1546 us. On an Intel VM with 2 MiB of L2 per core,
  // 256 KiB calls (512-768 KiB touched) also gained (allreduce 73-79 -> 54-55 us, allgather
  // 87-88 -> 65-82 us with WEFT_NT_MIN_BYTES=0 against 1 MiB, two runs each of weft-bench all
  // -b 64K -e 1M --place out): the default is 512 KiB, below which a result fits the
  // caller's L2 where it will likely read it next (which the benchmark's rotated buffers do not
  // measure).
  const uint64_t nt_min = static_cast<uint64_t>(GetParams().WEFT_NT_MIN_BYTES);
  const auto send = reinterpret_cast<uintptr_t>(b.send), recv = reinterpret_cast<uintptr_t>(b.recv);
  const bool in_place = send < recv + bytecode.recv_bytes && recv < send + bytecode.send_bytes;
  const uint64_t touched = bytecode.recv_bytes + (in_place ? 0 : bytecode.send_bytes);
  b.stream_recv = touched >= nt_min && !(in_place && in_place_rereads_) && !plain_results_;
  return b;
}

WEFT_HOT Status CompiledColl::Resume(Comm& comm, bool blocking, bool* done) {
  const char* why = nullptr;
  Status s = interp_.Resume(transport_, blocking, done, &why);
  if (s == weftSuccess) return s;
  // Once an execution has begun, its peers may have sent, signalled or be waiting: a message
  // still in flight could land in reused scratch or match a later execution's. The
  // communicator is broken, and every later call says so (as NCCL reports an async error).
  comm.Break(s);
  if (why != nullptr) {
    return comm.Fail(s, "compiled %s: %s", sched::RecipeText(recipe).c_str(), why);
  }
  return s;
}

WEFT_HOT Status CompiledColl::Run(Comm& comm, const Bind& bind) {
  if (started_) {
    return comm.Fail(weftInvalidUsage, "a previous start of this operation is still active");
  }
  WEFT_CHECK(ClaimNodeSegment(comm));
  WEFT_CHECK(ClaimTagSlot(comm));
  interp_.Start(&bytecode, Buffers(bind, comm.ScheduleScratch(bytecode.scratch_bytes)));
  bool done = false;
  return Resume(comm, true, &done);
}

WEFT_HOT Status CompiledColl::Start(Comm& comm, const Bind& bind) {
  if (started_) {
    return comm.Fail(weftInvalidUsage, "weftPlanStart: the previous start is not complete");
  }
  WEFT_CHECK(ClaimNodeSegment(comm));  // first: it may rebuild the program, scratch and all
  if (bytecode.scratch_bytes > (own_scratch_ ? own_scratch_bytes_ : 0)) {
    comm.ReturnExecScratch(std::move(own_scratch_), own_scratch_bytes_);
    own_scratch_ = comm.TakeExecScratch(bytecode.scratch_bytes, &own_scratch_bytes_);
  }
  WEFT_CHECK(ClaimTagSlot(comm));
  interp_.Start(&bytecode, Buffers(bind, own_scratch_.get()));
  started_ = true;
  // With the progress thread on, a schedule it may advance is left to it (or to the caller's
  // next test or wait): run here, the post itself would move the data (a bcast receiver whose
  // root had posted first copied all 4 MiB inside weftIBroadcast: nothing left to overlap).
  if (ProgressThreadOn() && !SendsMessages()) return weftSuccess;
  bool done = false;
  Status s = Resume(comm, false, &done);
  if (s != weftSuccess) Finished();
  return s;
}

void CompiledColl::Finished() {
  started_ = false;
  // Not while an earlier start's messages may still land in it: only a clean completion.
  if (!interp_.active()) comm_.ReturnExecScratch(std::move(own_scratch_), own_scratch_bytes_);
}

WEFT_HOT Status CompiledColl::Test(Comm& comm, bool* done) {
  *done = !started_;
  if (*done) return weftSuccess;
  Status s = interp_.active() ? Resume(comm, false, done) : (*done = true, weftSuccess);
  if (s != weftSuccess || *done) Finished();
  return s;
}

WEFT_HOT Status CompiledColl::Wait(Comm& comm) {
  if (!started_) return weftSuccess;
  bool done = true;
  Status s = interp_.active() ? Resume(comm, true, &done) : weftSuccess;
  Finished();
  return s;
}

}  // namespace weft
