#include "bench_colls.h"

#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_device.h"
#include "bench_vcolls.h"
#include "check/reference.h"
#include "core/dtype.h"
#include "native/mpi_types.h"

namespace bench {
namespace {

using weft::check::CountWrong;
using weft::check::Fill;

// MPI cannot reduce or even name fp16/bf16: native runs none of them.
MPI_Datatype NativeType(weftDataType_t t) {
  return t == weftFloat16 || t == weftBfloat16 ? MPI_DATATYPE_NULL : weft::MpiTypeOf(t);
}

MPI_Op NativeOp(weftRedOp_t op) {
  static const MPI_Op k[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_OP_NULL};
  return k[op];
}

bool Reduces(Coll c) {
  return c == Coll::kAllReduce || c == Coll::kReduce || c == Coll::kReduceScatter ||
         c == Coll::kReduceScatterV || c == Coll::kScan || c == Coll::kExScan;
}

// In place every call has one buffer, recv (bench_main.cc): a gather's input is block `rank`
// of it (the root's in-place form; MPI_IN_PLACE for MPI at the root), and a scatter's root
// sends from it and leaves its own block there (block `root`; MPI_IN_PLACE for MPI).
const void* GatherSend(const Ctx& x, const Shape& s, bool ip, unsigned char* send,
                       unsigned char* recv, bool mpi) {
  if (!ip) return send;
  if (mpi && x.rank == x.root) return MPI_IN_PLACE;
  return recv + x.rank * s.send_bytes;
}
void* ScatterRecv(const Ctx& x, const Shape& s, bool ip, unsigned char* recv, bool mpi) {
  if (!ip || x.rank != x.root) return recv;
  return mpi ? MPI_IN_PLACE : recv + x.root * s.recv_bytes;
}

}  // namespace

int PostNative(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
               MPI_Request* req) {
  if (IsV(x.coll)) return NativeV(x, s, ip, send, recv, req);
  const int n = static_cast<int>(s.count);
  const MPI_Datatype t = NativeType(x.type);
  const MPI_Op op = NativeOp(x.op);
  const bool root = x.rank == x.root;
  switch (x.coll) {
    case Coll::kAllReduce:
      return MPI_Iallreduce(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi, req);
    case Coll::kReduce:
      return MPI_Ireduce(ip && root ? MPI_IN_PLACE : (ip ? recv : send), recv, n, t, op, x.root,
                         x.mpi, req);
    case Coll::kReduceScatter:
      return MPI_Ireduce_scatter_block(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi, req);
    case Coll::kAllGather:
      return MPI_Iallgather(ip ? MPI_IN_PLACE : send, n, t, recv, n, t, x.mpi, req);
    case Coll::kBroadcast:
      if (!ip && root) std::memcpy(recv, send, s.send_bytes);  // same contract as weft's
      return MPI_Ibcast(recv, n, t, x.root, x.mpi, req);
    case Coll::kAllToAll:
      return MPI_Ialltoall(ip ? MPI_IN_PLACE : send, n, t, recv, n, t, x.mpi, req);
    case Coll::kGather:
      return MPI_Igather(GatherSend(x, s, ip, send, recv, true), n, t, recv, n, t, x.root, x.mpi,
                         req);
    case Coll::kScatter:
      return MPI_Iscatter(ip ? recv : send, n, t, ScatterRecv(x, s, ip, recv, true), n, t, x.root,
                          x.mpi, req);
    case Coll::kScan:
      return MPI_Iscan(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi, req);
    case Coll::kExScan:
      return MPI_Iexscan(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi, req);
  }
  return MPI_ERR_OTHER;
}

int PostWeft(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
             weftRequest_t* req) {
  if (IsV(x.coll)) return WeftV(x, s, ip, send, recv, req);
  const size_t es = weft::TypeSize(x.type);
  const size_t n = s.count;
  switch (x.coll) {
    case Coll::kAllReduce:
      return weftIAllReduce(ip ? recv : send, recv, n, x.type, x.op, x.comm, req);
    case Coll::kReduce:
      return weftIReduce(ip ? recv : send, recv, n, x.type, x.op, x.root, x.comm, req);
    case Coll::kReduceScatter:
      return ip ? weftIReduceScatter(recv, recv + x.rank * n * es, n, x.type, x.op, x.comm, req)
                : weftIReduceScatter(send, recv, n, x.type, x.op, x.comm, req);
    case Coll::kAllGather:
      return weftIAllGather(ip ? recv + x.rank * n * es : send, recv, n, x.type, x.comm, req);
    case Coll::kBroadcast:
      return weftIBroadcast(ip ? recv : send, recv, n, x.type, x.root, x.comm, req);
    case Coll::kAllToAll:
      return weftIAllToAll(ip ? recv : send, recv, n, x.type, x.comm, req);
    case Coll::kGather:
      return weftIGather(GatherSend(x, s, ip, send, recv, false), recv, n, x.type, x.root, x.comm,
                         req);
    case Coll::kScatter:
      return weftIScatter(ip ? recv : send, ScatterRecv(x, s, ip, recv, false), n, x.type, x.root,
                          x.comm, req);
    case Coll::kScan:
      return weftIScan(ip ? recv : send, recv, n, x.type, x.op, x.comm, req);
    case Coll::kExScan:
      return weftIExScan(ip ? recv : send, recv, n, x.type, x.op, x.comm, req);
  }
  return weftInternalError;
}

int RunNative(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv) {
  if (x.nonblocking) {
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = PostNative(x, s, ip, send, recv, &req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (IsV(x.coll)) return NativeV(x, s, ip, send, recv, nullptr);
  const int n = static_cast<int>(s.count);
  const MPI_Datatype t = NativeType(x.type);
  const MPI_Op op = NativeOp(x.op);
  const bool root = x.rank == x.root;
  switch (x.coll) {
    case Coll::kAllReduce:
      return MPI_Allreduce(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi);
    case Coll::kReduce:
      return MPI_Reduce(ip && root ? MPI_IN_PLACE : (ip ? recv : send), recv, n, t, op, x.root,
                        x.mpi);
    case Coll::kReduceScatter:
      return MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi);
    case Coll::kAllGather:
      return MPI_Allgather(ip ? MPI_IN_PLACE : send, n, t, recv, n, t, x.mpi);
    case Coll::kBroadcast:
      if (!ip && root) std::memcpy(recv, send, s.send_bytes);  // same contract as weft's
      return MPI_Bcast(recv, n, t, x.root, x.mpi);
    case Coll::kAllToAll:
      return MPI_Alltoall(ip ? MPI_IN_PLACE : send, n, t, recv, n, t, x.mpi);
    case Coll::kGather:
      return MPI_Gather(GatherSend(x, s, ip, send, recv, true), n, t, recv, n, t, x.root, x.mpi);
    case Coll::kScatter:
      return MPI_Scatter(ip ? recv : send, n, t, ScatterRecv(x, s, ip, recv, true), n, t, x.root,
                         x.mpi);
    case Coll::kScan:
      return MPI_Scan(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi);
    case Coll::kExScan:
      return MPI_Exscan(ip ? MPI_IN_PLACE : send, recv, n, t, op, x.mpi);
  }
  return MPI_ERR_OTHER;
}

int RunWeft(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv) {
  if (x.nonblocking) {
    weftRequest_t req = nullptr;
    int rc = PostWeft(x, s, ip, send, recv, &req);
    return rc != weftSuccess ? rc : weftRequestWait(&req);
  }
  if (IsV(x.coll)) return WeftV(x, s, ip, send, recv, nullptr);
  const size_t es = weft::TypeSize(x.type);
  const size_t n = s.count;
  switch (x.coll) {
    case Coll::kAllReduce:
      return weftAllReduce(ip ? recv : send, recv, n, x.type, x.op, x.comm, nullptr);
    case Coll::kReduce:
      return weftReduce(ip ? recv : send, recv, n, x.type, x.op, x.root, x.comm, nullptr);
    case Coll::kReduceScatter:
      return ip ? weftReduceScatter(recv, recv + x.rank * n * es, n, x.type, x.op, x.comm, nullptr)
                : weftReduceScatter(send, recv, n, x.type, x.op, x.comm, nullptr);
    case Coll::kAllGather:
      return weftAllGather(ip ? recv + x.rank * n * es : send, recv, n, x.type, x.comm, nullptr);
    case Coll::kBroadcast:
      return weftBroadcast(ip ? recv : send, recv, n, x.type, x.root, x.comm, nullptr);
    case Coll::kAllToAll:
      return weftAllToAll(ip ? recv : send, recv, n, x.type, x.comm, nullptr);
    case Coll::kGather:
      return weftGather(GatherSend(x, s, ip, send, recv, false), recv, n, x.type, x.root, x.comm,
                        nullptr);
    case Coll::kScatter:
      return weftScatter(ip ? recv : send, ScatterRecv(x, s, ip, recv, false), n, x.type, x.root,
                         x.comm, nullptr);
    case Coll::kScan:
      return weftScan(ip ? recv : send, recv, n, x.type, x.op, x.comm, nullptr);
    case Coll::kExScan:
      return weftExScan(ip ? recv : send, recv, n, x.type, x.op, x.comm, nullptr);
  }
  return weftInternalError;
}

namespace {

// Counts elements of got that differ from want (byte-exact per element).
size_t CountDiffs(const unsigned char* got, const unsigned char* want, size_t n, size_t es) {
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += std::memcmp(got + i * es, want + i * es, es) != 0;
  return wrong;
}

}  // namespace

Shape ShapeOf(const Ctx& x, size_t bytes) {
  Shape s;
  const size_t es = weft::TypeSize(x.type), p = static_cast<size_t>(x.size);
  const double P = x.size;
  switch (x.coll) {
    case Coll::kAllReduce:
      s.count = bytes / es;
      s.send_bytes = s.recv_bytes = s.count * es;
      s.alg_bytes = s.send_bytes;
      s.bus_factor = 2 * (P - 1) / P;
      break;
    case Coll::kReduce:
    case Coll::kBroadcast:
    case Coll::kScan:
    case Coll::kExScan:
      s.count = bytes / es;
      s.send_bytes = s.recv_bytes = s.count * es;
      s.alg_bytes = s.send_bytes;
      s.bus_factor = 1;
      break;
    case Coll::kReduceScatter:
    case Coll::kScatter:  // the root's buffer of P blocks, as reduce_scatter's input
      s.count = bytes / (es * p);
      s.send_bytes = s.count * es * p;
      s.recv_bytes = s.count * es;
      s.alg_bytes = s.send_bytes;
      s.bus_factor = (P - 1) / P;
      break;
    case Coll::kAllGather:
    case Coll::kGather:  // a rank's block; the root receives P of them, as allgather's ranks
      s.count = bytes / es;
      s.send_bytes = s.count * es;
      s.recv_bytes = s.send_bytes * p;
      s.alg_bytes = s.recv_bytes;
      s.bus_factor = (P - 1) / P;
      break;
    case Coll::kAllToAll:
      s.count = bytes / (es * p);
      s.send_bytes = s.recv_bytes = s.count * es * p;
      s.alg_bytes = s.send_bytes;
      s.bus_factor = (P - 1) / P;
      break;
    default:  // the v-collectives: count is the base block; the sizes follow --vpattern
      ShapeOfV(x, bytes, &s);
      return s;
  }
  s.buf_bytes = std::max(s.send_bytes, s.recv_bytes);
  return s;
}

bool NativeSupports(const Ctx& x, const Shape& s) {
  if (s.count > static_cast<size_t>(INT_MAX) || (s.v && !s.v->fits_int)) return false;
  if (NativeType(x.type) == MPI_DATATYPE_NULL) return false;
  return !Reduces(x.coll) || x.op != weftAvg;
}

int RunOnce(Impl impl, const Ctx& x, const Shape& s, bool in_place, unsigned char* send,
            unsigned char* recv) {
  int rc = impl == Impl::kNative ? RunNative(x, s, in_place, send, recv)
           : impl == Impl::kWeft ? RunWeft(x, s, in_place, send, recv)
                                 : RunDeviceViaHost(impl, x, s, in_place, send, recv);
  if (rc != 0) {
    if (impl != Impl::kNative) {
      std::fprintf(stderr, "weft-bench: %s failed: %s: %s\n", CollName(x.coll),
                   weftGetErrorString(static_cast<weftResult_t>(rc)), weftGetLastError(x.comm));
    } else {
      char msg[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, msg, &len);
      std::fprintf(stderr, "weft-bench: native %s failed: %s\n", CollName(x.coll), msg);
    }
  }
  return rc;
}

size_t Validate(Impl impl, const Ctx& x, const Shape& s, bool ip, unsigned char* send,
                unsigned char* recv) {
  if (IsV(x.coll)) return ValidateV(impl, x, s, ip, send, recv);
  const size_t es = weft::TypeSize(x.type), n = s.count, block = n * es;
  const uint64_t seed = 0xbe9c;
  unsigned char* in = ip ? recv : send;
  const int P = x.size;
  std::vector<unsigned char> want(std::max<size_t>(block, 1));
  size_t wrong = 0;
  switch (x.coll) {
    case Coll::kAllReduce:
    case Coll::kReduce:
    case Coll::kReduceScatter: {
      const size_t in_elems = x.coll == Coll::kReduceScatter ? n * P : n;
      Fill(x.type, x.op, x.rank, seed, in, in_elems);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n;
      if (x.coll == Coll::kReduce && x.rank != x.root) return 0;
      const unsigned char* out = recv;
      size_t first = 0;
      if (x.coll == Coll::kReduceScatter) {
        first = x.rank * n;
        // In place, weft leaves the block at the rank's offset; MPI at the start.
        if (ip && (impl == Impl::kWeft || impl == Impl::kWeftDevice)) out = recv + x.rank * block;
      }
      return CountWrong(x.type, x.op, P, seed, out, n, first, nullptr);
    }
    case Coll::kBroadcast:
      if (x.rank == x.root)
        Fill(x.type, weftSum, x.root, seed, in, n);
      else
        std::memset(recv, 0, block);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n;
      Fill(x.type, weftSum, x.root, seed, want.data(), n);
      return CountDiffs(recv, want.data(), n, es);
    case Coll::kAllGather:
      Fill(x.type, weftSum, x.rank, seed, ip ? recv + x.rank * block : send, n);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n * P;
      for (int p = 0; p < P; ++p) {
        Fill(x.type, weftSum, p, seed, want.data(), n);
        wrong += CountDiffs(recv + p * block, want.data(), n, es);
      }
      return wrong;
    case Coll::kAllToAll:
      for (int p = 0; p < P; ++p) Fill(x.type, weftSum, x.rank * 1000 + p, seed, in + p * block, n);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n * P;
      for (int p = 0; p < P; ++p) {
        Fill(x.type, weftSum, p * 1000 + x.rank, seed, want.data(), n);
        wrong += CountDiffs(recv + p * block, want.data(), n, es);
      }
      return wrong;
    case Coll::kGather: {
      // The root's receive buffer cleared first: in place its own block is the input.
      if (x.rank == x.root) std::memset(recv, 0, s.recv_bytes);
      Fill(x.type, weftSum, x.rank, seed, ip ? recv + x.rank * block : send, n);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n * P;
      if (x.rank != x.root) return 0;
      for (int p = 0; p < P; ++p) {
        Fill(x.type, weftSum, p, seed, want.data(), n);
        wrong += CountDiffs(recv + p * block, want.data(), n, es);
      }
      return wrong;
    }
    case Coll::kScatter: {
      unsigned char* out = ip && x.rank == x.root ? recv + x.root * block : recv;
      std::memset(out, 0, block);  // before the input: in place at the root it is block root
      if (x.rank == x.root) {
        for (int p = 0; p < P; ++p) Fill(x.type, weftSum, p, seed, in + p * block, n);
      }
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n;
      Fill(x.type, weftSum, x.rank, seed, want.data(), n);
      return CountDiffs(out, want.data(), n, es);
    }
    case Coll::kScan:
    case Coll::kExScan: {
      Fill(x.type, x.op, x.rank, seed, in, n);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n;
      // The reference over ranks 0..r (scan) or 0..r-1 (exscan; rank 0 has no result).
      const int ranks = x.coll == Coll::kScan ? x.rank + 1 : x.rank;
      return ranks == 0 ? 0 : CountWrong(x.type, x.op, ranks, seed, recv, n, 0, nullptr);
    }
  }
  return 0;
}

}  // namespace bench
