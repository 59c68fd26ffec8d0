// Blocking collectives: MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgather,
// MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Alltoall, MPI_Barrier, and the large-count
// _c forms where the library has them (MPI 4). Each either runs weft on the same buffers
// (packed where a rank's layout has gaps) or calls the PMPI routine; the choice depends only
// on what every rank shares (shim_route.cc).
#include "shim_colls.h"

#include "shim_requests.h"
#include "shim_state.h"
#include "shim_stats.h"

using namespace weft::shim;

namespace {

// Each collective once, over size_t counts; the int and MPI_Count entry points call these.
int Allreduce(const void* s, void* r, size_t n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
              const char* fn, const NativeFn& native) {
  return Run({Kind::kAllreduce, fn, s, r, n, dt, n, dt, op, 0, comm}, native);
}

int Reduce(const void* s, void* r, size_t n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
           const char* fn, const NativeFn& native) {
  return Run({Kind::kReduce, fn, s, r, n, dt, n, dt, op, root, comm}, native);
}

int Bcast(void* buf, size_t n, MPI_Datatype dt, int root, MPI_Comm comm, const char* fn,
          const NativeFn& native) {
  return Run({Kind::kBcast, fn, buf, buf, n, dt, n, dt, MPI_OP_NULL, root, comm}, native);
}

int Allgather(const void* s, size_t sn, MPI_Datatype st, void* r, size_t rn, MPI_Datatype rt,
              MPI_Comm comm, const char* fn, const NativeFn& native) {
  return Run({Kind::kAllgather, fn, s, r, sn, st, rn, rt, MPI_OP_NULL, 0, comm}, native);
}

int Alltoall(const void* s, size_t sn, MPI_Datatype st, void* r, size_t rn, MPI_Datatype rt,
             MPI_Comm comm, const char* fn, const NativeFn& native) {
  return Run({Kind::kAlltoall, fn, s, r, sn, st, rn, rt, MPI_OP_NULL, 0, comm}, native);
}

int ReduceScatterBlock(const void* s, void* r, size_t n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                       const char* fn, const NativeFn& native) {
  return Run({Kind::kReduceScatterBlock, fn, s, r, n, dt, n, dt, op, 0, comm}, native);
}

}  // namespace

namespace weft::shim {

int ReduceScatter(const void* s, void* r, const int counts[], MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm, MPI_Request* req, const NativeFn& native) {
  const char* fn = req ? "MPI_Ireduce_scatter" : "MPI_Reduce_scatter";
  // recvcounts is the same array on every rank (MPI requires it), so this choice is shared.
  int size = 0, rank = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(comm, &rank);
  bool equal = true;
  size_t total = 0;
  for (int i = 0; i < size; ++i) {
    if (counts[i] < 0) {  // an erroneous call: MPI's routine reports it
      NoteFallback(Fallback::kDatatype, fn);
      return req ? native() : RunNative(comm, native);
    }
    equal = equal && counts[i] == counts[0];
    total += static_cast<size_t>(counts[i]);
  }
  CallArgs a{Kind::kReduceScatterBlock,
             fn,
             s,
             r,
             size_t(size > 0 ? counts[0] : 0),
             dt,
             size_t(size > 0 ? counts[0] : 0),
             dt,
             op,
             0,
             comm};
  if (!equal) {  // weft's reduce_scatterv, where it serves (one node)
    a.kind = Kind::kReduceScatter;
    a.scount = total;
    a.rcount = static_cast<size_t>(counts[rank]);
    a.counts = counts;
  }
  return req ? Post(a, req, native) : Run(a, native);
}

int Barrier(MPI_Comm comm, MPI_Request* req, const NativeFn& native) {
  const char* fn = req ? "MPI_Ibarrier" : "MPI_Barrier";
  Fallback why;
  weftComm_t wc = CommFor(comm, &why);
  if (!wc) {
    NoteFallback(why, fn);
    return req ? native() : RunNative(comm, native);
  }
  CountCall(fn, true);
  if (req == nullptr) return Finish(weftBarrier(wc, nullptr), comm, fn);
  weftRequest_t started = nullptr;
  weftResult_t r = weftIBarrier(wc, &started);
  if (r != weftSuccess) return Finish(r, comm, fn);
  return AddNonblocking(started, std::make_shared<Buffers>(), comm, req);
}

}  // namespace weft::shim

extern "C" {

int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return Guard([&] {
    return Allreduce(s, r, n, dt, op, comm, "MPI_Allreduce",
                     [&] { return PMPI_Allreduce(s, r, n, dt, op, comm); });
  });
}

int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
  return Guard([&] {
    return Reduce(s, r, n, dt, op, root, comm, "MPI_Reduce",
                  [&] { return PMPI_Reduce(s, r, n, dt, op, root, comm); });
  });
}

int MPI_Bcast(void* buf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  return Guard([&] {
    return Bcast(buf, n, dt, root, comm, "MPI_Bcast",
                 [&] { return PMPI_Bcast(buf, n, dt, root, comm); });
  });
}

int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                  MPI_Comm comm) {
  return Guard([&] {
    return Allgather(s, sn, st, r, rn, rt, comm, "MPI_Allgather",
                     [&] { return PMPI_Allgather(s, sn, st, r, rn, rt, comm); });
  });
}

int MPI_Alltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                 MPI_Comm comm) {
  return Guard([&] {
    return Alltoall(s, sn, st, r, rn, rt, comm, "MPI_Alltoall",
                    [&] { return PMPI_Alltoall(s, sn, st, r, rn, rt, comm); });
  });
}

int MPI_Reduce_scatter_block(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm) {
  return Guard([&] {
    return ReduceScatterBlock(s, r, n, dt, op, comm, "MPI_Reduce_scatter_block",
                              [&] { return PMPI_Reduce_scatter_block(s, r, n, dt, op, comm); });
  });
}

int MPI_Reduce_scatter(const void* s, void* r, const int counts[], MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm) {
  return Guard([&] {
    return ReduceScatter(s, r, counts, dt, op, comm, nullptr,
                         [&] { return PMPI_Reduce_scatter(s, r, counts, dt, op, comm); });
  });
}

int MPI_Barrier(MPI_Comm comm) {
  return Guard([&] { return Barrier(comm, nullptr, [&] { return PMPI_Barrier(comm); }); });
}

#if MPI_VERSION >= 4
int MPI_Allreduce_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm) {
  return Guard([&] {
    return Allreduce(s, r, n, dt, op, comm, "MPI_Allreduce_c",
                     [&] { return PMPI_Allreduce_c(s, r, n, dt, op, comm); });
  });
}

int MPI_Reduce_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm) {
  return Guard([&] {
    return Reduce(s, r, n, dt, op, root, comm, "MPI_Reduce_c",
                  [&] { return PMPI_Reduce_c(s, r, n, dt, op, root, comm); });
  });
}

int MPI_Bcast_c(void* buf, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  return Guard([&] {
    return Bcast(buf, n, dt, root, comm, "MPI_Bcast_c",
                 [&] { return PMPI_Bcast_c(buf, n, dt, root, comm); });
  });
}

int MPI_Allgather_c(const void* s, MPI_Count sn, MPI_Datatype st, void* r, MPI_Count rn,
                    MPI_Datatype rt, MPI_Comm comm) {
  return Guard([&] {
    return Allgather(s, sn, st, r, rn, rt, comm, "MPI_Allgather_c",
                     [&] { return PMPI_Allgather_c(s, sn, st, r, rn, rt, comm); });
  });
}

int MPI_Alltoall_c(const void* s, MPI_Count sn, MPI_Datatype st, void* r, MPI_Count rn,
                   MPI_Datatype rt, MPI_Comm comm) {
  return Guard([&] {
    return Alltoall(s, sn, st, r, rn, rt, comm, "MPI_Alltoall_c",
                    [&] { return PMPI_Alltoall_c(s, sn, st, r, rn, rt, comm); });
  });
}

int MPI_Reduce_scatter_block_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                               MPI_Comm comm) {
  return Guard([&] {
    return ReduceScatterBlock(s, r, n, dt, op, comm, "MPI_Reduce_scatter_block_c",
                              [&] { return PMPI_Reduce_scatter_block_c(s, r, n, dt, op, comm); });
  });
}
#endif

}  // extern "C"
