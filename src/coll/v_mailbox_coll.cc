#include "coll/v_mailbox_coll.h"

#include "call/vcoll_args.h"
#include "core/dtype.h"
#include "core/log.h"
#include "core/params.h"
#include "sched/algos/v_mailbox.h"
#include "transport/shm/bank_placer.h"

namespace weft {
namespace {

bool ToVColl(CollKind k, sched::VColl* out) {
  switch (k) {
    case CollKind::kAllToAllV:
      *out = sched::VColl::kAllToAllV;
      return true;
    case CollKind::kAllGatherV:
      *out = sched::VColl::kAllGatherV;
      return true;
    case CollKind::kGatherV:
      *out = sched::VColl::kGatherV;
      return true;
    case CollKind::kScatterV:
      *out = sched::VColl::kScatterV;
      return true;
    case CollKind::kReduceScatterV:
      *out = sched::VColl::kReduceScatterV;
      return true;
    default:
      return false;
  }
}

// The knob decides what messages a rank sends: only where every rank has the same.
uint64_t MailboxBytes(const Comm& comm, sched::VColl c) {
  const int64_t v = GetParams().WEFT_VCOLL_MAILBOX_BYTES;
  if (comm.selection_knobs_agreed && v >= 0) return static_cast<uint64_t>(v) / 64 * 64;
  return sched::DefaultMailboxBytes(c, comm.size, BankPlacer::kBankBytes);
}

// Entries j of counts (elements; empty: none) in bytes.
std::vector<uint64_t> Scaled(const std::vector<size_t>& v, size_t es, int n) {
  std::vector<uint64_t> out(n, 0);
  for (size_t j = 0; j < v.size() && j < out.size(); ++j) out[j] = static_cast<uint64_t>(v[j]) * es;
  return out;
}

// What this rank sends and receives, per peer, from its own arrays (call/coll_args.h says
// which arrays a rank of each kind reads).
sched::OwnVBlocks RankBlocks(const Comm& comm, const CollArgs& a, size_t es) {
  const VCounts& v = *a.v;
  const int n = comm.size, me = comm.rank;
  std::vector<uint64_t> sb(n, 0), so(n, 0), rb(n, 0), ro(n, 0);
  const uint64_t own = static_cast<uint64_t>(a.count) * es;
  switch (a.kind) {
    case CollKind::kAllToAllV:  // in place, the blocks to send lie where they are received
      sb = Scaled(a.in_place ? v.recv_counts : v.send_counts, es, n);
      so = Scaled(a.in_place ? v.recv_displs : v.send_displs, es, n);
      rb = Scaled(v.recv_counts, es, n);
      ro = Scaled(v.recv_displs, es, n);
      break;
    case CollKind::kAllGatherV:  // in place, this rank's block is at its displacement
      sb.assign(n, own);
      so.assign(n, a.in_place ? static_cast<uint64_t>(v.recv_displs[me]) * es : 0);
      rb = Scaled(v.recv_counts, es, n);
      ro = Scaled(v.recv_displs, es, n);
      break;
    case CollKind::kGatherV:
      sb[a.root] = own;
      if (me == a.root) {
        rb = Scaled(v.recv_counts, es, n);
        ro = Scaled(v.recv_displs, es, n);
      }
      break;
    case CollKind::kScatterV:
      if (me == a.root) {
        sb = Scaled(v.send_counts, es, n);
        so = Scaled(v.send_displs, es, n);
      }
      rb[a.root] = own;
      break;
    default:
      break;
  }
  return sched::OwnVBlocks(me, std::move(sb), std::move(so), std::move(rb), std::move(ro));
}

}  // namespace

bool CommUsesVMailbox(const Comm& comm, CollKind kind) {
  sched::VColl c;
  if (!ToVColl(kind, &c) || !comm.one_node_segment() || comm.node_segment_failed() ||
      GetParams().WEFT_SCHEDULES == 0) {
    return false;
  }
  return kind != CollKind::kAllToAllV || !comm.selection_knobs_agreed ||
         GetParams().WEFT_ALLTOALLV != "native";
}

Status BuildVMailbox(Comm& comm, const CollArgs& args, std::unique_ptr<CompiledColl>* out) {
  sched::VMailboxShape shape;
  if (!ToVColl(args.kind, &shape.coll) || args.v == nullptr) {
    return comm.Fail(weftInternalError, "%s: not a mailbox v-collective", CollApiName(args.kind));
  }
  const size_t es = TypeSize(args.type);
  Extents e;
  if (!ComputeVExtents(comm, args, es, &e)) {
    return comm.Fail(weftInternalError, "%s: extents of validated counts overflow",
                     CollApiName(args.kind));
  }
  shape.nranks = comm.size;
  shape.rank = comm.rank;
  shape.send_bytes = e.send;
  shape.recv_bytes = e.recv;
  shape.in_place = args.in_place;
  const bool segment = comm.has_node_segment() && !comm.node_segment_failed();
  shape.mailbox_bytes = segment ? MailboxBytes(comm, shape.coll) : 0;
  shape.bank_bytes = BankPlacer::kBankBytes;
  shape.dtype = args.type;
  shape.op = args.op;
  sched::Recipe recipe;
  recipe.generator = "mailbox";
  recipe.factors = {static_cast<int>(shape.mailbox_bytes)};  // "mailbox:8128" in traces
  // A reduce_scatterv's one array is every rank's: each rank has every block's size.
  ir::Program program =
      args.kind == CollKind::kReduceScatterV
          ? sched::VMailboxReduceScatter(shape, Scaled(args.v->recv_counts, es, comm.size))
          : sched::VMailbox(shape, RankBlocks(comm, args, es));
  std::unique_ptr<CompiledColl> c;
  WEFT_CHECK(BuildCompiledProgram(comm, std::move(program), recipe, 0, 0, &c));
  // Most of a large call's results are written by MPI's messages: streaming the few weft copies
  // gains nothing, and a reused buffer would leave the cache (2 ranks, 1 MiB blocks, hot:
  // 121 us streamed against 107 plain; native 93-105).
  c->set_plain_results();
  // Where the segment cannot grow at a later execution, every rank of the node learns it there
  // and runs this call's blocks as messages from then on.
  c->rebuild_without_segment = [args](Comm& cm, std::unique_ptr<CompiledColl>* fresh) {
    return BuildVMailbox(cm, args, fresh);
  };
  WEFT_TRACE(kColl, "%s: mailbox schedule, blocks of up to %llu bytes through the segment",
             CollShortName(args.kind), static_cast<unsigned long long>(shape.mailbox_bytes));
  *out = std::move(c);
  return weftSuccess;
}

}  // namespace weft
