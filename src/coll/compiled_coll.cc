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
  env.shared_memory = GetParams().WEFT_SHM != 0 && comm.topo.num_nodes() == 1 && comm.size > 1;
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
  std::shared_ptr<ShmSegment> shm;
  bool node = prog.shm_slot_bytes > 0;
  for (const ir::Instr& in : prog.code) {
    node |= in.op == ir::Opcode::kSignal || in.op == ir::Opcode::kWait;
  }
  if (node && !comm.NodeSegment(prog.shm_slot_bytes, &shm)) {
    // No segment (every rank gets the same answer): choose among point-to-point schedules.
    env.shared_memory = false;
    if (!sched::SelectRecipe(spec, env, model, nullptr, &recipe, &why)) return weftSuccess;
    prog = sched::BuildProgram(spec, recipe, comm.rank);
  }
  auto c = std::make_unique<CompiledColl>(comm, std::move(shm));
  c->recipe = recipe;
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
  if (!transport_.has_shm()) return weftSuccess;
  CompiledColl* prev = comm.shm_user;
  comm.shm_user = this;
  if (prev == nullptr || prev == this || !prev->interp_.active()) return weftSuccess;
  // Every rank starts collectives in the same order, so every rank finishes the same one here.
  bool done = false;
  return prev->Resume(comm, true, &done);
}

ExecBuffers CompiledColl::Buffers(const Bind& bind, unsigned char* scratch) const {
  ExecBuffers b;
  b.send = reinterpret_cast<const unsigned char*>(bind.send);
  b.recv = reinterpret_cast<unsigned char*>(bind.recv);
  b.scratch = scratch;
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
