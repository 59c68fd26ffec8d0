#include "bench_vcolls.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "check/reference.h"
#include "core/dtype.h"
#include "native/mpi_types.h"

namespace bench {
namespace {

using weft::check::CountWrong;
using weft::check::Fill;

constexpr uint64_t kSeed = 0xbe9c;

MPI_Datatype NativeType(weftDataType_t t) {
  return t == weftFloat16 || t == weftBfloat16 ? MPI_DATATYPE_NULL : weft::MpiTypeOf(t);
}

MPI_Op NativeOp(weftRedOp_t op) {
  static const MPI_Op k[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_OP_NULL};
  return k[op];
}

// Elements rank i sends rank j (alltoallv) for a base block of c elements: skewed, the pairs
// with (i + j) mod 4 == 0 send 4c and the others c/4; sparse, only ring neighbours exchange
// (a halo exchange), c each way.
size_t PairCount(VPattern p, size_t c, int i, int j, int P) {
  switch (p) {
    case VPattern::kUniform:
      return c;
    case VPattern::kSkewed:
      return (i + j) % 4 == 0 ? 4 * c : c / 4;
    case VPattern::kSparse:
      return i != j && (j == (i + 1) % P || i == (j + 1) % P) ? c : 0;
  }
  return c;
}

// Elements of rank q's block (the one-array kinds): skewed, 4c for q mod 4 == 0 and c/4 for
// the others; sparse, c for q mod 4 == 1 and none for the others (at 2 ranks the one block
// travels between the ranks, not to or from a root 0 itself).
size_t BlockCount(VPattern p, size_t c, int q) {
  switch (p) {
    case VPattern::kUniform:
      return c;
    case VPattern::kSkewed:
      return q % 4 == 0 ? 4 * c : c / 4;
    case VPattern::kSparse:
      return q % 4 == 1 ? c : 0;
  }
  return c;
}

std::vector<int> ToInt(const std::vector<size_t>& a) {
  std::vector<int> out;
  for (size_t e : a) out.push_back(static_cast<int>(std::min<size_t>(e, INT_MAX)));
  return out;
}

size_t Sum(const std::vector<size_t>& a) {
  size_t n = 0;
  for (size_t e : a) n += e;
  return n;
}

// Packed in rank order: counts from count_of(q), their displacements.
template <typename F>
void Packed(int P, F count_of, std::vector<size_t>* counts, std::vector<size_t>* displs) {
  size_t at = 0;
  for (int q = 0; q < P; ++q) {
    counts->push_back(count_of(q));
    displs->push_back(at);
    at += counts->back();
  }
}

std::shared_ptr<const VLayout> MakeVLayout(const Ctx& x, size_t c) {
  auto v = std::make_shared<VLayout>();
  const int P = x.size, me = x.rank;
  const VPattern p = x.vpattern;
  switch (x.coll) {
    case Coll::kAllToAllV:
      Packed(
          P, [&](int q) { return PairCount(p, c, me, q, P); }, &v->send_counts, &v->send_displs);
      Packed(
          P, [&](int q) { return PairCount(p, c, q, me, P); }, &v->recv_counts, &v->recv_displs);
      break;
    case Coll::kScatterV:  // the root's blocks
      Packed(
          P, [&](int q) { return BlockCount(p, c, q); }, &v->send_counts, &v->send_displs);
      break;
    default:  // allgatherv, gatherv, reduce_scatterv: the blocks received (or kept)
      Packed(
          P, [&](int q) { return BlockCount(p, c, q); }, &v->recv_counts, &v->recv_displs);
      break;
  }
  v->fits_int = Sum(v->send_counts) <= static_cast<size_t>(INT_MAX) &&
                Sum(v->recv_counts) <= static_cast<size_t>(INT_MAX);
  v->mpi_send_counts = ToInt(v->send_counts);
  v->mpi_send_displs = ToInt(v->send_displs);
  v->mpi_recv_counts = ToInt(v->recv_counts);
  v->mpi_recv_displs = ToInt(v->recv_displs);
  return v;
}

// The one array of a one-array kind, and this rank's entry.
const std::vector<size_t>& Blocks(const Ctx& x, const VLayout& v) {
  return x.coll == Coll::kScatterV ? v.send_counts : v.recv_counts;
}
const std::vector<size_t>& Displs(const Ctx& x, const VLayout& v) {
  return x.coll == Coll::kScatterV ? v.send_displs : v.recv_displs;
}

// In place every call has one buffer, recv (bench_main.cc): a gathering rank's block is at its
// displacement in it, a scatterv root's at its own, a reduce_scatterv's input is all of it.
unsigned char* OwnBlock(const Ctx& x, const Shape& s, unsigned char* buf) {
  return buf + Displs(x, *s.v)[x.rank] * weft::TypeSize(x.type);
}

}  // namespace

bool IsV(Coll c) {
  return c == Coll::kAllToAllV || c == Coll::kAllGatherV || c == Coll::kGatherV ||
         c == Coll::kScatterV || c == Coll::kReduceScatterV;
}

Coll EqualForm(Coll c) {
  switch (c) {
    case Coll::kAllToAllV:
      return Coll::kAllToAll;
    case Coll::kAllGatherV:
      return Coll::kAllGather;
    case Coll::kGatherV:
      return Coll::kGather;
    case Coll::kScatterV:
      return Coll::kScatter;
    case Coll::kReduceScatterV:
      return Coll::kReduceScatter;
    default:
      return c;
  }
}

size_t RowBytes(const Ctx& x, const Shape& s) {
  if (!IsV(x.coll)) return s.send_bytes;
  const bool gathers = x.coll == Coll::kAllGatherV || x.coll == Coll::kGatherV;
  return s.count * weft::TypeSize(x.type) * (gathers ? 1 : static_cast<size_t>(x.size));
}

void ShapeOfV(const Ctx& x, size_t bytes, Shape* s) {
  const size_t es = weft::TypeSize(x.type), p = static_cast<size_t>(x.size);
  const double P = x.size;
  // The base block: a rank's share of `bytes` (alltoallv, scatterv and reduce_scatterv, whose
  // per-rank buffer holds P blocks) or all of it (the gathers, one block per rank).
  const bool gathers = x.coll == Coll::kAllGatherV || x.coll == Coll::kGatherV;
  s->count = gathers ? bytes / es : bytes / (es * p);
  s->v = MakeVLayout(x, s->count);
  const VLayout& v = *s->v;
  const size_t all = Sum(Blocks(x, v)) * es;
  const size_t mine = x.coll == Coll::kAllToAllV ? 0 : Blocks(x, v)[x.rank] * es;
  switch (x.coll) {
    case Coll::kAllToAllV:
      s->send_bytes = Sum(v.send_counts) * es;
      s->recv_bytes = Sum(v.recv_counts) * es;
      s->alg_bytes = s->send_bytes;
      break;
    case Coll::kAllGatherV:
    case Coll::kGatherV:
      s->send_bytes = mine;
      s->recv_bytes = all;
      s->alg_bytes = all;
      break;
    default:  // scatterv, reduce_scatterv
      s->send_bytes = all;
      s->recv_bytes = mine;
      s->alg_bytes = all;
      break;
  }
  s->bus_factor = (P - 1) / P;
  // In place, one buffer holds every block (a gathering or scattering rank's own block lies at
  // its displacement, whatever it is).
  s->buf_bytes = std::max({s->send_bytes, s->recv_bytes, x.coll == Coll::kAllToAllV ? 0 : all});
}

int NativeV(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
            MPI_Request* req) {
  const VLayout& v = *s.v;
  const MPI_Datatype t = NativeType(x.type);
  const bool root = x.rank == x.root;
  const int* sc = v.mpi_send_counts.data();
  const int* sd = v.mpi_send_displs.data();
  const int* rc = v.mpi_recv_counts.data();
  const int* rd = v.mpi_recv_displs.data();
  const int mine = x.coll == Coll::kAllToAllV ? 0 : static_cast<int>(Blocks(x, v)[x.rank]);
  const MPI_Comm c = x.mpi;
  switch (x.coll) {
    case Coll::kAllToAllV: {
      const void* in = ip ? MPI_IN_PLACE : send;
      return req ? MPI_Ialltoallv(in, sc, sd, t, recv, rc, rd, t, c, req)
                 : MPI_Alltoallv(in, sc, sd, t, recv, rc, rd, t, c);
    }
    case Coll::kAllGatherV: {
      const void* in = ip ? MPI_IN_PLACE : send;
      return req ? MPI_Iallgatherv(in, mine, t, recv, rc, rd, t, c, req)
                 : MPI_Allgatherv(in, mine, t, recv, rc, rd, t, c);
    }
    case Coll::kGatherV: {
      const void* in = !ip ? send : root ? MPI_IN_PLACE : OwnBlock(x, s, recv);
      return req ? MPI_Igatherv(in, mine, t, recv, rc, rd, t, x.root, c, req)
                 : MPI_Gatherv(in, mine, t, recv, rc, rd, t, x.root, c);
    }
    case Coll::kScatterV: {
      const void* in = ip ? recv : send;
      void* out = ip && root ? MPI_IN_PLACE : recv;
      return req ? MPI_Iscatterv(in, sc, sd, t, out, mine, t, x.root, c, req)
                 : MPI_Scatterv(in, sc, sd, t, out, mine, t, x.root, c);
    }
    case Coll::kReduceScatterV: {
      const void* in = ip ? MPI_IN_PLACE : send;
      const MPI_Op op = NativeOp(x.op);
      return req ? MPI_Ireduce_scatter(in, recv, rc, t, op, c, req)
                 : MPI_Reduce_scatter(in, recv, rc, t, op, c);
    }
    default:
      return MPI_ERR_OTHER;
  }
}

int WeftV(const Ctx& x, const Shape& s, bool ip, unsigned char* send, unsigned char* recv,
          weftRequest_t* req) {
  const VLayout& v = *s.v;
  const bool root = x.rank == x.root;
  const size_t* sc = v.send_counts.data();
  const size_t* sd = v.send_displs.data();
  const size_t* rc = v.recv_counts.data();
  const size_t* rd = v.recv_displs.data();
  const size_t mine = x.coll == Coll::kAllToAllV ? 0 : Blocks(x, v)[x.rank];
  const weftDataType_t t = x.type;
  const weftComm_t c = x.comm;
  switch (x.coll) {
    case Coll::kAllToAllV: {
      const unsigned char* in = ip ? recv : send;
      return req ? weftIAllToAllV(in, sc, sd, recv, rc, rd, t, c, req)
                 : weftAllToAllV(in, sc, sd, recv, rc, rd, t, c, nullptr);
    }
    case Coll::kAllGatherV:
    case Coll::kGatherV: {
      const unsigned char* in = ip ? OwnBlock(x, s, recv) : send;
      if (x.coll == Coll::kAllGatherV) {
        return req ? weftIAllGatherV(in, mine, recv, rc, rd, t, c, req)
                   : weftAllGatherV(in, mine, recv, rc, rd, t, c, nullptr);
      }
      return req ? weftIGatherV(in, mine, recv, rc, rd, t, x.root, c, req)
                 : weftGatherV(in, mine, recv, rc, rd, t, x.root, c, nullptr);
    }
    case Coll::kScatterV: {
      const unsigned char* in = ip ? recv : send;
      unsigned char* out = ip && root ? OwnBlock(x, s, recv) : recv;
      return req ? weftIScatterV(in, sc, sd, out, mine, t, x.root, c, req)
                 : weftScatterV(in, sc, sd, out, mine, t, x.root, c, nullptr);
    }
    case Coll::kReduceScatterV: {
      // In place weft's result is block `rank` of the buffer; MPI's at its start.
      const unsigned char* in = ip ? recv : send;
      unsigned char* out = ip ? OwnBlock(x, s, recv) : recv;
      return req ? weftIReduceScatterV(in, out, rc, t, x.op, c, req)
                 : weftReduceScatterV(in, out, rc, t, x.op, c, nullptr);
    }
    default:
      return weftInternalError;
  }
}

size_t ValidateV(Impl impl, const Ctx& x, const Shape& s, bool ip, unsigned char* send,
                 unsigned char* recv) {
  const VLayout& v = *s.v;
  const size_t es = weft::TypeSize(x.type);
  const int P = x.size;
  const bool root = x.rank == x.root, weft_side = impl != Impl::kNative;
  std::vector<unsigned char> want;
  size_t wrong = 0;
  // Counts the elements of block q (n elements at got) that differ from rank `from`'s data.
  auto diffs = [&](const unsigned char* got, size_t n, int from) {
    want.resize(std::max<size_t>(n * es, 1));
    Fill(x.type, weftSum, from, kSeed, want.data(), n);
    size_t w = 0;
    for (size_t i = 0; i < n; ++i) w += std::memcmp(got + i * es, want.data() + i * es, es) != 0;
    return w;
  };
  if (x.coll == Coll::kAllToAllV) {
    unsigned char* in = ip ? recv : send;
    for (int p = 0; p < P; ++p) {
      Fill(x.type, weftSum, x.rank * 1000 + p, kSeed, in + v.send_displs[p] * es, v.send_counts[p]);
    }
    if (RunOnce(impl, x, s, ip, send, recv) != 0) return s.recv_bytes / es;
    for (int p = 0; p < P; ++p) {
      wrong += diffs(recv + v.recv_displs[p] * es, v.recv_counts[p], p * 1000 + x.rank);
    }
    return wrong;
  }
  const std::vector<size_t>& n = Blocks(x, v);
  const std::vector<size_t>& at = Displs(x, v);
  switch (x.coll) {
    case Coll::kAllGatherV:
    case Coll::kGatherV: {
      // The receive buffer cleared first: in place this rank's own block is the input.
      if (x.coll == Coll::kAllGatherV || root) std::memset(recv, 0, s.recv_bytes);
      Fill(x.type, weftSum, x.rank, kSeed, ip ? OwnBlock(x, s, recv) : send, n[x.rank]);
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return s.recv_bytes / es;
      if (x.coll == Coll::kGatherV && !root) return 0;
      for (int p = 0; p < P; ++p) wrong += diffs(recv + at[p] * es, n[p], p);
      return wrong;
    }
    case Coll::kScatterV: {
      unsigned char* out = ip && root ? OwnBlock(x, s, recv) : recv;
      std::memset(out, 0, n[x.rank] * es);  // before the input: at an in-place root it is in it
      if (root) {
        for (int p = 0; p < P; ++p)
          Fill(x.type, weftSum, p, kSeed, (ip ? recv : send) + at[p] * es, n[p]);
      }
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n[x.rank];
      return diffs(out, n[x.rank], x.rank);
    }
    case Coll::kReduceScatterV: {
      Fill(x.type, x.op, x.rank, kSeed, ip ? recv : send, Sum(n));
      if (RunOnce(impl, x, s, ip, send, recv) != 0) return n[x.rank];
      const unsigned char* out = ip && weft_side ? OwnBlock(x, s, recv) : recv;
      return CountWrong(x.type, x.op, P, kSeed, out, n[x.rank], at[x.rank], nullptr);
    }
    default:
      return 0;
  }
}

}  // namespace bench
