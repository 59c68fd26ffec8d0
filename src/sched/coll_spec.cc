#include "sched/coll_spec.h"

#include "core/dtype.h"
#include "sched/ir/program.h"

namespace weft::sched {
namespace {
constexpr const char* kNames[kNumColls] = {"allreduce", "reduce_scatter", "allgather", "bcast",
                                           "reduce",    "alltoall",       "gather",    "scatter",
                                           "scan",      "exscan"};
}  // namespace

const char* CollName(Coll c) { return kNames[static_cast<int>(c)]; }

bool ParseColl(const std::string& text, Coll* out) {
  for (int i = 0; i < kNumColls; ++i) {
    if (text == kNames[i]) {
      *out = static_cast<Coll>(i);
      return true;
    }
  }
  if (text == "reducescatter") return *out = Coll::kReduceScatter, true;
  if (text == "broadcast") return *out = Coll::kBroadcast, true;
  return false;
}

bool Commutative(weftRedOp_t op) { return op != ir::kOpMatMul2x2; }

uint64_t ElemBytes(const CollSpec& s) { return TypeSize(s.dtype); }

uint64_t SendBytes(const CollSpec& s, int rank) {
  const uint64_t v = s.count * ElemBytes(s), P = static_cast<uint64_t>(s.nranks);
  switch (s.coll) {
    case Coll::kReduceScatter:
    case Coll::kAllToAll:
      return v * P;
    case Coll::kBroadcast:
      return rank == s.root ? v : 0;
    case Coll::kScatter:
      return rank == s.root ? v * P : 0;
    default:
      return v;
  }
}

uint64_t RecvBytes(const CollSpec& s, int rank) {
  const uint64_t v = s.count * ElemBytes(s), P = static_cast<uint64_t>(s.nranks);
  switch (s.coll) {
    case Coll::kAllGather:
    case Coll::kAllToAll:
      return v * P;
    case Coll::kReduce:
      return rank == s.root ? v : 0;
    case Coll::kGather:
      return rank == s.root ? v * P : 0;
    case Coll::kExScan:  // rank 0's result is undefined in MPI: it receives nothing
      return rank == 0 ? 0 : v;
    default:
      return v;
  }
}

std::string SpecText(const CollSpec& s) {
  std::string t = std::string(CollName(s.coll)) + " P=" + std::to_string(s.nranks) +
                  " count=" + std::to_string(s.count) + " " + TypeName(s.dtype);
  if (Reduces(s.coll))
    t += std::string(" ") + (s.op == ir::kOpMatMul2x2 ? "matmul2x2" : OpName(s.op));
  if (HasRoot(s.coll)) t += " root=" + std::to_string(s.root);
  if (s.in_place) t += " in_place";
  if (NumNodes(s) > 1) t += " nodes=" + s.nodes->ShapeText();
  return t;
}

}  // namespace weft::sched
