#include "coll/build_collective.h"

#include "coll/compiled_coll.h"
#include "coll/node_alltoallv_coll.h"
#include "coll/v_mailbox_coll.h"
#include "native/native_colls.h"

namespace weft {

Status BuildCollective(Comm& comm, const CollArgs& args, std::unique_ptr<Executable>* out) {
  if (UsesNodeAllToAllV(comm, args)) {
    std::unique_ptr<NodeAllToAllVColl> staged;
    WEFT_CHECK(NodeAllToAllVColl::Build(comm, args, &staged));
    *out = std::make_unique<Executable>(std::move(staged));
    return weftSuccess;
  }
  std::unique_ptr<CompiledColl> compiled;
  // An average needs a division after the reduction, which the native path provides.
  const bool average = args.kind == CollKind::kReduceScatterV && args.op == weftAvg;
  if (args.v != nullptr && CommUsesVMailbox(comm, args.kind) && !average) {
    WEFT_CHECK(BuildVMailbox(comm, args, &compiled));
  } else if (args.kind == CollKind::kBarrier) {
    // A barrier is an allreduce of one byte (no rank's result exists before every rank has
    // entered): a compiled schedule whose waits advance the other communicators' executions
    // and keep weft's deadline, where MPI_Barrier would block inside MPI. Native only where no
    // schedule is chosen for that allreduce.
    WEFT_CHECK(TryBuildCompiled(comm, BarrierAsAllReduce(args), &compiled));
    if (compiled) compiled->bind_own_bytes();
  } else {
    WEFT_CHECK(TryBuildCompiled(comm, args, &compiled));
  }
  if (compiled) {
    *out = std::make_unique<Executable>(std::move(compiled));
    return weftSuccess;
  }
  auto native = std::make_unique<NativeProgram>();
  WEFT_CHECK(BuildNative(comm, args, native.get()));
  *out = std::make_unique<Executable>(std::move(native));
  return weftSuccess;
}

std::string DescribeCollective(const Comm& comm, const CollArgs& args, const Executable& e) {
  const CompiledColl* c = e.compiled();
  if (e.staged() != nullptr) return e.staged()->Describe();
  if (c == nullptr) return e.native() ? DescribeNative(comm, args, *e.native()) : "(abandoned)";
  return std::string(CollShortName(args.kind)) + " count " + std::to_string(args.count) +
         ": compiled schedule " + sched::RecipeText(c->recipe) + " (" +
         std::to_string(c->bytecode.code.size()) + " bytecode instructions, " +
         std::to_string(c->bytecode.scratch_bytes) + " scratch bytes)";
}

}  // namespace weft
