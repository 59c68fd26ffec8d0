#include "coll/compiled_coll.h"

#include <mutex>

#include "core/log.h"
#include "core/params.h"
#include "sched/compile.h"

namespace weft {
namespace {

bool ToSpec(const Comm& comm, const CollArgs& a, sched::CollSpec* s) {
  switch (a.kind) {
    case CollKind::kAllReduce:
      s->coll = sched::Coll::kAllReduce;
      break;
    case CollKind::kReduceScatter:
      s->coll = sched::Coll::kReduceScatter;
      break;
    case CollKind::kAllGather:
      s->coll = sched::Coll::kAllGather;
      break;
    case CollKind::kBroadcast:
      s->coll = sched::Coll::kBroadcast;
      break;
    case CollKind::kReduce:
      s->coll = sched::Coll::kReduce;
      break;
    case CollKind::kAllToAll:
      s->coll = sched::Coll::kAllToAll;
      break;
    default:
      return false;
  }
  s->nranks = comm.size;
  s->count = a.count;
  s->dtype = a.type;
  s->op = a.op;
  s->root = a.root;
  s->in_place = a.in_place;
  return true;
}

// WEFT_RECIPE parsed once per process; a text that does not parse is reported once.
const sched::Recipe* ForcedRecipe() {
  static std::once_flag once;
  static sched::Recipe recipe;
  static bool have = false;
  std::call_once(once, [] {
    const std::string text = GetParams().WEFT_RECIPE;
    if (text.empty()) return;
    std::string why;
    have = sched::ParseRecipe(text, &recipe, &why);
    if (!have) WEFT_WARN(kColl, "WEFT_RECIPE=%s ignored: %s", text.c_str(), why.c_str());
  });
  return have ? &recipe : nullptr;
}

}  // namespace

Status TryBuildCompiled(Comm& comm, const CollArgs& args, std::unique_ptr<CompiledColl>* out) {
  out->reset();
  sched::CollSpec spec;
  if (GetParams().WEFT_SCHEDULES == 0 || !ToSpec(comm, args, &spec)) return weftSuccess;
  sched::GenEnv env;
  // Shared-memory schedules need every rank on one node (node rank == rank).
  env.shared_memory = comm.has_node_segment();
  env.single_copy = env.shared_memory && comm.single_copy;
  env.zero_copy = env.shared_memory && args.zero_copy;
  tune::CostModel model;
  if (comm.topo.num_nodes() > 1) {
    model.ranks_per_node = static_cast<int>(comm.topo.ranks_of_node[0].size());
  }
  sched::Recipe recipe;
  std::string why;
  const sched::Recipe* forced = ForcedRecipe();
  if (forced != nullptr && !sched::SelectRecipe(spec, env, model, forced, &recipe, &why)) {
    WEFT_INFO(kColl, "WEFT_RECIPE=%s does not apply to %s (%s); choosing by the cost model",
              sched::RecipeText(*forced).c_str(), sched::SpecText(spec).c_str(), why.c_str());
    forced = nullptr;
  }
  if (forced == nullptr && !sched::SelectRecipe(spec, env, model, nullptr, &recipe, &why)) {
    WEFT_TRACE(kColl, "%s: native MPI (%s)", sched::SpecText(spec).c_str(), why.c_str());
    return weftSuccess;
  }
  ir::Program prog = sched::BuildProgram(spec, recipe, comm.rank);
  bool node = prog.shm_slot_bytes > 0;
  for (const ir::Instr& in : prog.code) {
    node |= in.op == ir::Opcode::kSignal || in.op == ir::Opcode::kWait;
  }
  auto c = std::make_unique<CompiledColl>(comm, node, prog.shm_slot_bytes);
  c->recipe = recipe;
  if (env.zero_copy) c->set_zero_copy();
  c->bytecode = sched::Lower(prog, spec.count, sched::RecipeScaleUnit(spec, recipe));
  if (!sched::CheckBytecode(c->bytecode, &why)) {
    return comm.Fail(weftInternalError, "%s: lowering %s produced bad bytecode: %s",
                     CollApiName(args.kind), sched::RecipeText(recipe).c_str(), why.c_str());
  }
  WEFT_INFO(kColl, "%s: recipe %s, %zu instructions", sched::SpecText(spec).c_str(),
            sched::RecipeText(recipe).c_str(), c->bytecode.code.size());
  *out = std::move(c);
  return weftSuccess;
}

CompiledColl::~CompiledColl() {
  if (comm_.shm_user == this) comm_.shm_user = nullptr;
}

Status CompiledColl::ClaimNodeSegment(Comm& comm) {
  if (!uses_node_) return weftSuccess;
  CompiledColl* prev = comm.shm_user;
  comm.shm_user = this;
  if (prev != nullptr && prev != this && prev->interp_.active()) {
    // Every rank starts collectives in the same order, so every rank finishes the same one here.
    bool done = false;
    WEFT_CHECK(prev->Resume(comm, true, &done));
  }
  // The segment is looked up (and grown, collectively) at every start, not kept from the build:
  // ranks build programs at different calls (cache hits differ), so only the order of
  // executions is common to all of them.
  std::shared_ptr<ShmSegment> seg;
  if (!comm.NodeSegment(slot_bytes_, &seg)) {
    return comm.Fail(weftSystemError,
                     "compiled %s: no shared-memory segment with %llu-byte slots (see the INFO "
                     "log for why); later calls choose point-to-point schedules",
                     sched::RecipeText(recipe).c_str(),
                     static_cast<unsigned long long>(slot_bytes_));
  }
  transport_.set_shm(std::move(seg));
  return weftSuccess;
}

ExecBuffers CompiledColl::Buffers(const Bind& bind, unsigned char* scratch) const {
  ExecBuffers b;
  b.send = reinterpret_cast<const unsigned char*>(bind.send);
  b.recv = reinterpret_cast<unsigned char*>(bind.recv);
  b.scratch = scratch;
  b.stream_recv = bytecode.recv_bytes >= static_cast<uint64_t>(GetParams().WEFT_NT_MIN_BYTES);
  return b;
}

Status CompiledColl::Resume(Comm& comm, bool blocking, bool* done) {
  const char* why = nullptr;
  Status s = interp_.Resume(transport_, blocking, done, &why);
  if (s != weftSuccess && why != nullptr) {
    return comm.Fail(s, "compiled %s: %s", sched::RecipeText(recipe).c_str(), why);
  }
  return s;
}

Status CompiledColl::Run(Comm& comm, const Bind& bind) {
  if (started_) {
    return comm.Fail(weftInvalidUsage, "a previous start of this operation is still active");
  }
  WEFT_CHECK(ClaimNodeSegment(comm));
  transport_.set_slot(comm.schedule_starts.fetch_add(1));
  interp_.Start(&bytecode, Buffers(bind, comm.ScheduleScratch(bytecode.scratch_bytes)));
  bool done = false;
  return Resume(comm, true, &done);
}

Status CompiledColl::Start(Comm& comm, const Bind& bind) {
  if (started_) {
    return comm.Fail(weftInvalidUsage, "weftPlanStart: the previous start is not complete");
  }
  if (!own_scratch_ && bytecode.scratch_bytes) {
    own_scratch_.reset(new unsigned char[bytecode.scratch_bytes]);
  }
  WEFT_CHECK(ClaimNodeSegment(comm));
  transport_.set_slot(comm.schedule_starts.fetch_add(1));
  interp_.Start(&bytecode, Buffers(bind, own_scratch_.get()));
  started_ = true;
  bool done = false;
  Status s = Resume(comm, false, &done);
  if (s != weftSuccess) started_ = false;
  return s;
}

Status CompiledColl::Test(Comm& comm, bool* done) {
  *done = !started_;
  if (*done) return weftSuccess;
  Status s = interp_.active() ? Resume(comm, false, done) : (*done = true, weftSuccess);
  if (s != weftSuccess || *done) started_ = false;
  return s;
}

Status CompiledColl::Wait(Comm& comm) {
  if (!started_) return weftSuccess;
  bool done = true;
  Status s = interp_.active() ? Resume(comm, true, &done) : weftSuccess;
  started_ = false;
  return s;
}

}  // namespace weft
