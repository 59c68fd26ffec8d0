#include "coll/build_collective.h"

#include "coll/compiled_coll.h"
#include "native/native_colls.h"

namespace weft {

Status BuildCollective(Comm& comm, const CollArgs& args, NativeProgram* p) {
  WEFT_CHECK(TryBuildCompiled(comm, args, &p->compiled));
  if (p->compiled) return weftSuccess;
  return BuildNative(comm, args, p);
}

std::string DescribeCollective(const Comm& comm, const CollArgs& args, const NativeProgram& p) {
  if (!p.compiled) return DescribeNative(comm, args, p);
  return std::string(CollShortName(args.kind)) + " count " + std::to_string(args.count) +
         ": compiled schedule " + sched::RecipeText(p.compiled->recipe) + " (" +
         std::to_string(p.compiled->bytecode.code.size()) + " bytecode instructions, " +
         std::to_string(p.compiled->bytecode.scratch_bytes) + " scratch bytes)";
}

}  // namespace weft
