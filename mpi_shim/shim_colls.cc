// Blocking collectives: MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgather,
// MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Alltoall, MPI_Barrier, and the large-count
// _c forms where the library has them (MPI 4). Each either runs weft on the same buffers or
// calls the PMPI routine; the choice depends only on arguments every rank shares.
#include "shim_colls.h"

#include <cstring>

#include "core/dtype.h"
#include "shim_state.h"

namespace weft::shim {

Route RouteReduction(MPI_Datatype dt, MPI_Op op, MPI_Comm comm, const char* fn, weftDataType_t* t,
                     weftRedOp_t* o) {
  Route route;
  Fallback why = Fallback::kDatatype;
  if (ReductionType(dt, t)) {
    if (!ReductionOp(op, o))
      why = Fallback::kOp;
    else
      route.comm = CommFor(comm, &why);
  }
  if (route.comm == nullptr) NoteFallback(why, fn);
  return route;
}

Route RouteMovement(MPI_Datatype st, size_t scount, MPI_Datatype rt, size_t rcount, bool has_send,
                    MPI_Comm comm, const char* fn, size_t* bytes) {
  Route route;
  Fallback why = Fallback::kDatatype;
  size_t rbytes = 0, sbytes = 0;
  if (ContiguousBytes(rt, rcount, &rbytes) && (!has_send || ContiguousBytes(st, scount, &sbytes))) {
    if (has_send && sbytes != rbytes)
      why = Fallback::kMismatch;
    else
      route.comm = CommFor(comm, &why);
  }
  if (route.comm == nullptr) NoteFallback(why, fn);
  *bytes = rbytes;
  return route;
}

int Finish(weftResult_t r, MPI_Comm comm, const char* fn) {
  return r == weftSuccess ? MPI_SUCCESS : MpiErrorFrom(r, comm, fn);
}

int RankOf(weftComm_t c) {
  int rank = 0;
  weftCommUserRank(c, &rank);
  return rank;
}

}  // namespace weft::shim

using namespace weft::shim;

namespace {

// Each collective once, over size_t counts; the int and MPI_Count entry points call these.
int Allreduce(const void* s, void* r, size_t n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
              const NativeFn& native) {
  weftDataType_t t;
  weftRedOp_t o;
  Route route = RouteReduction(dt, op, comm, "MPI_Allreduce", &t, &o);
  if (!route.comm) return native();
  return Finish(weftAllReduce(s == MPI_IN_PLACE ? r : s, r, n, t, o, route.comm, nullptr), comm,
                "MPI_Allreduce");
}

int Reduce(const void* s, void* r, size_t n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
           const NativeFn& native) {
  weftDataType_t t;
  weftRedOp_t o;
  Route route = RouteReduction(dt, op, comm, "MPI_Reduce", &t, &o);
  if (!route.comm) return native();
  return Finish(weftReduce(s == MPI_IN_PLACE ? r : s, r, n, t, o, root, route.comm, nullptr), comm,
                "MPI_Reduce");
}

int Bcast(void* buf, size_t n, MPI_Datatype dt, int root, MPI_Comm comm, const NativeFn& native) {
  size_t bytes;
  Route route = RouteMovement(dt, n, dt, n, false, comm, "MPI_Bcast", &bytes);
  if (!route.comm) return native();
  return Finish(weftBroadcast(buf, buf, bytes, weftUint8, root, route.comm, nullptr), comm,
                "MPI_Bcast");
}

int Allgather(const void* s, size_t sn, MPI_Datatype st, void* r, size_t rn, MPI_Datatype rt,
              MPI_Comm comm, const NativeFn& native) {
  size_t bytes;
  const bool in_place = s == MPI_IN_PLACE;
  Route route = RouteMovement(st, sn, rt, rn, !in_place, comm, "MPI_Allgather", &bytes);
  if (!route.comm) return native();
  const void* src = in_place ? static_cast<char*>(r) + RankOf(route.comm) * bytes : s;
  return Finish(weftAllGather(src, r, bytes, weftUint8, route.comm, nullptr), comm,
                "MPI_Allgather");
}

int Alltoall(const void* s, size_t sn, MPI_Datatype st, void* r, size_t rn, MPI_Datatype rt,
             MPI_Comm comm, const NativeFn& native) {
  size_t bytes;
  const bool in_place = s == MPI_IN_PLACE;
  Route route = RouteMovement(st, sn, rt, rn, !in_place, comm, "MPI_Alltoall", &bytes);
  if (!route.comm) return native();
  return Finish(weftAllToAll(in_place ? r : s, r, bytes, weftUint8, route.comm, nullptr), comm,
                "MPI_Alltoall");
}

int ReduceScatterBlock(const void* s, void* r, size_t n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                       const char* fn, const NativeFn& native) {
  weftDataType_t t;
  weftRedOp_t o;
  Route route = RouteReduction(dt, op, comm, fn, &t, &o);
  if (!route.comm) return native();
  if (s != MPI_IN_PLACE)
    return Finish(weftReduceScatter(s, r, n, t, o, route.comm, nullptr), comm, fn);
  // MPI's in-place form: the input fills r and the result goes to its start; weft's leaves
  // the result at block `rank`, so move it.
  int size = 0;
  PMPI_Comm_size(comm, &size);
  const size_t block = n * weft::TypeSize(t);
  char* mine = static_cast<char*>(r) + RankOf(route.comm) * block;
  weftResult_t res = weftReduceScatter(r, mine, n, t, o, route.comm, nullptr);
  if (res == weftSuccess && mine != r) std::memmove(r, mine, block);
  return Finish(res, comm, fn);
}

}  // namespace

extern "C" {

int MPI_Allreduce(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  auto native = [&] { return PMPI_Allreduce(s, r, n, dt, op, comm); };
  return Guard([&] { return Allreduce(s, r, n, dt, op, comm, native); }, native);
}

int MPI_Reduce(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
  auto native = [&] { return PMPI_Reduce(s, r, n, dt, op, root, comm); };
  return Guard([&] { return Reduce(s, r, n, dt, op, root, comm, native); }, native);
}

int MPI_Bcast(void* buf, int n, MPI_Datatype dt, int root, MPI_Comm comm) {
  auto native = [&] { return PMPI_Bcast(buf, n, dt, root, comm); };
  return Guard([&] { return Bcast(buf, n, dt, root, comm, native); }, native);
}

int MPI_Allgather(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                  MPI_Comm comm) {
  auto native = [&] { return PMPI_Allgather(s, sn, st, r, rn, rt, comm); };
  return Guard([&] { return Allgather(s, sn, st, r, rn, rt, comm, native); }, native);
}

int MPI_Alltoall(const void* s, int sn, MPI_Datatype st, void* r, int rn, MPI_Datatype rt,
                 MPI_Comm comm) {
  auto native = [&] { return PMPI_Alltoall(s, sn, st, r, rn, rt, comm); };
  return Guard([&] { return Alltoall(s, sn, st, r, rn, rt, comm, native); }, native);
}

int MPI_Reduce_scatter_block(const void* s, void* r, int n, MPI_Datatype dt, MPI_Op op,
                             MPI_Comm comm) {
  auto native = [&] { return PMPI_Reduce_scatter_block(s, r, n, dt, op, comm); };
  return Guard(
      [&] { return ReduceScatterBlock(s, r, n, dt, op, comm, "MPI_Reduce_scatter_block", native); },
      native);
}

int MPI_Reduce_scatter(const void* s, void* r, const int counts[], MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm) {
  auto native = [&] { return PMPI_Reduce_scatter(s, r, counts, dt, op, comm); };
  return Guard(
      [&] {
        int size = 0;
        PMPI_Comm_size(comm, &size);
        for (int i = 1; i < size; ++i) {
          if (counts[i] != counts[0]) {
            NoteFallback(Fallback::kUneven, "MPI_Reduce_scatter");
            return native();
          }
        }
        return ReduceScatterBlock(s, r, counts[0], dt, op, comm, "MPI_Reduce_scatter", native);
      },
      native);
}

int MPI_Barrier(MPI_Comm comm) {
  auto native = [&] { return PMPI_Barrier(comm); };
  return Guard(
      [&] {
        Fallback why;
        weftComm_t wc = CommFor(comm, &why);
        if (!wc) {
          NoteFallback(why, "MPI_Barrier");
          return native();
        }
        return Finish(weftBarrier(wc, nullptr), comm, "MPI_Barrier");
      },
      native);
}

#if MPI_VERSION >= 4
int MPI_Allreduce_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm) {
  auto native = [&] { return PMPI_Allreduce_c(s, r, n, dt, op, comm); };
  return Guard([&] { return Allreduce(s, r, n, dt, op, comm, native); }, native);
}

int MPI_Reduce_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm) {
  auto native = [&] { return PMPI_Reduce_c(s, r, n, dt, op, root, comm); };
  return Guard([&] { return Reduce(s, r, n, dt, op, root, comm, native); }, native);
}

int MPI_Bcast_c(void* buf, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  auto native = [&] { return PMPI_Bcast_c(buf, n, dt, root, comm); };
  return Guard([&] { return Bcast(buf, n, dt, root, comm, native); }, native);
}

int MPI_Allgather_c(const void* s, MPI_Count sn, MPI_Datatype st, void* r, MPI_Count rn,
                    MPI_Datatype rt, MPI_Comm comm) {
  auto native = [&] { return PMPI_Allgather_c(s, sn, st, r, rn, rt, comm); };
  return Guard([&] { return Allgather(s, sn, st, r, rn, rt, comm, native); }, native);
}

int MPI_Alltoall_c(const void* s, MPI_Count sn, MPI_Datatype st, void* r, MPI_Count rn,
                   MPI_Datatype rt, MPI_Comm comm) {
  auto native = [&] { return PMPI_Alltoall_c(s, sn, st, r, rn, rt, comm); };
  return Guard([&] { return Alltoall(s, sn, st, r, rn, rt, comm, native); }, native);
}

int MPI_Reduce_scatter_block_c(const void* s, void* r, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                               MPI_Comm comm) {
  auto native = [&] { return PMPI_Reduce_scatter_block_c(s, r, n, dt, op, comm); };
  return Guard(
      [&] {
        return ReduceScatterBlock(s, r, n, dt, op, comm, "MPI_Reduce_scatter_block_c", native);
      },
      native);
}
#endif

}  // extern "C"
