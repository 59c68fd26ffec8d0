// AllReduce, Reduce and ReduceScatter on native MPI, in pieces of at most
// WEFT_NATIVE_CHUNK_BYTES, through the wire form of native/wire.h; ReduceScatterV in one call.
#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "exec/reduce_kernels.h"
#include "native/mpi_quirks.h"
#include "native/native_colls.h"
#include "native/wire.h"

namespace weft {
namespace {

const char* WireName(const Wire& w) {
  switch (w.conv) {
    case Wire::Conv::kHalfToF32:
    case Wire::Conv::kBf16ToF32:
      return w.divide ? "wire: fp32 (accumulates in fp32), then divided by nranks"
                      : "wire: fp32 (accumulates in fp32)";
    case Wire::Conv::kSplit64:
      return "wire: two int64 words per value (exact sums), then divided by nranks";
    default:
      return w.divide ? "wire: native type, then divided by nranks" : "wire: native type";
  }
}

struct Ctx {
  MPI_Comm mc;
  int nranks, rank;
  weftDataType_t type;
  size_t es;
  Wire w;
};

// Where a step's MPI send and receive buffers come from, resolved against the call's Bind.
enum class Buf { kUser, kInPlace, kTmp, kRootTmp, kNone };

// True when a Reduce at this root must not pass MPI_IN_PLACE (see mpi_quirks.h): the root
// then reduces from a copy of its input.
bool RootAvoidsInPlace(int root) {
  return root > 0 && GetMpiQuirks().in_place_reduce_at_nonzero_root_crashes;
}

// AllReduce (root < 0) or Reduce (root >= 0) of elements [off, off+c). `tmp` holds the wire
// form when the data is converted; `root_tmp` is a second buffer that a Reduce's root uses
// for the converted result, or for a copy of its input where MPI_IN_PLACE is unsafe.
NativeStep ReduceStep(const Ctx& x, const CollArgs& a, size_t off, size_t c, void* tmp,
                      void* root_tmp) {
  const size_t at = off * x.es;  // byte offset of this piece in the user buffers
  const int root = a.kind == CollKind::kReduce ? a.root : -1;
  const bool is_root = root == x.rank;
  const bool gets_result = root < 0 || is_root;
  NativeStep s;
  s.what = root < 0 ? "MPI_Allreduce" : "MPI_Reduce";
  Buf src = Buf::kUser, dst = gets_result ? Buf::kUser : Buf::kNone;
  if (tmp != nullptr) {  // converted: reduce the wire form, convert the result back
    s.before = [=](const Bind& b) { ToWire(x.w, x.type, b.send + at, tmp, c); };
    src = root < 0 ? Buf::kInPlace : Buf::kTmp;
    dst = root < 0 ? Buf::kTmp : (is_root ? Buf::kRootTmp : Buf::kNone);
    void* result = root < 0 ? tmp : root_tmp;
    if (gets_result) {
      s.after = [=](const Bind& b) { FromWire(x.w, x.type, result, b.recv + at, c, x.nranks); };
    }
  } else {
    if (a.in_place && (root < 0 || (is_root && !RootAvoidsInPlace(root)))) src = Buf::kInPlace;
    if (a.in_place && is_root && RootAvoidsInPlace(root)) {
      s.before = [=](const Bind& b) { std::memcpy(root_tmp, b.recv + at, c * x.es); };
      src = Buf::kRootTmp;
    }
    if (x.w.divide && gets_result) {
      s.after = [=](const Bind& b) { DivideFloats(b.recv + at, c, x.type, x.nranks); };
    }
  }
  const int n = static_cast<int>(c) * x.w.per_elem;
  s.call = [=](const Bind& b, MPI_Request* r) {
    auto resolve = [&](Buf k, char* user) -> void* {
      switch (k) {
        case Buf::kUser:
          return user + at;
        case Buf::kInPlace:
          return MPI_IN_PLACE;
        case Buf::kTmp:
          return tmp;
        case Buf::kRootTmp:
          return root_tmp;
        default:
          return nullptr;
      }
    };
    const void* sb = resolve(src, const_cast<char*>(b.send));
    void* rb = resolve(dst, b.recv);
    if (root < 0) {
      return r ? PMPI_Iallreduce(sb, rb, n, x.w.type, x.w.op, x.mc, r)
               : PMPI_Allreduce(sb, rb, n, x.w.type, x.w.op, x.mc);
    }
    return r ? PMPI_Ireduce(sb, rb, n, x.w.type, x.w.op, root, x.mc, r)
             : PMPI_Reduce(sb, rb, n, x.w.type, x.w.op, root, x.mc);
  };
  return s;
}

// ReduceScatter of piece [off, off+c) of every block, through a packed wire buffer.
NativeStep ReduceScatterPackedStep(const Ctx& x, const CollArgs& a, size_t off, size_t c,
                                   void* tmp) {
  const size_t at = off * x.es;
  const size_t block = a.count * x.es;
  NativeStep s;
  s.what = "MPI_Reduce_scatter_block";
  s.before = [=](const Bind& b) {
    for (int r = 0; r < x.nranks; ++r) {
      ToWire(x.w, x.type, b.send + r * block + at, static_cast<char*>(tmp) + r * c * x.w.size, c);
    }
  };
  const int n = static_cast<int>(c) * x.w.per_elem;
  s.call = [=](const Bind&, MPI_Request* r) {
    return r ? PMPI_Ireduce_scatter_block(MPI_IN_PLACE, tmp, n, x.w.type, x.w.op, x.mc, r)
             : PMPI_Reduce_scatter_block(MPI_IN_PLACE, tmp, n, x.w.type, x.w.op, x.mc);
  };
  // In place, recv is block `rank` of send: pieces before `off` are already consumed.
  s.after = [=](const Bind& b) { FromWire(x.w, x.type, tmp, b.recv + at, c, x.nranks); };
  return s;
}

// ReduceScatter in one call on the user's buffers (no conversion, fits one MPI count).
NativeStep ReduceScatterDirectStep(const Ctx& x, const CollArgs& a) {
  NativeStep s;
  s.what = "MPI_Reduce_scatter_block";
  const bool in_place = a.in_place;
  const size_t bytes = a.count * x.es;
  const int n = static_cast<int>(a.count);
  // MPI's in-place form leaves the result at the start of the buffer; NCCL's wants it at
  // block `rank`.
  s.call = [=](const Bind& b, MPI_Request* r) {
    const void* sb = in_place ? MPI_IN_PLACE : b.send;
    void* rb = in_place ? const_cast<char*>(b.send) : b.recv;
    return r ? PMPI_Ireduce_scatter_block(sb, rb, n, x.w.type, x.w.op, x.mc, r)
             : PMPI_Reduce_scatter_block(sb, rb, n, x.w.type, x.w.op, x.mc);
  };
  // No pass at all when there is nothing to do (a device-aware MPI may then run the program on
  // device buffers: mpi_direct.h). In place, rank 0's block is already where MPI leaves it.
  if ((in_place && x.rank != 0) || x.w.divide) {
    s.after = [=](const Bind& b) {
      if (in_place && b.send != b.recv) std::memmove(b.recv, b.send, bytes);
      if (x.w.divide) DivideFloats(b.recv, bytes / x.es, x.type, x.nranks);
    };
  }
  return s;
}

// ReduceScatterV in one MPI_Reduce_scatter: through a wire copy of the whole input when the
// data is converted or divided, else on the user's buffers (in place: MPI leaves the result at
// the start of the buffer, NCCL's form wants it at this rank's block).
Status AddReduceScatterV(Comm& comm, const Ctx& x, const CollArgs& a, NativeProgram* p) {
  const std::vector<size_t>& counts = a.v->recv_counts;
  auto units = std::make_shared<std::vector<int>>();
  size_t total = 0, before = 0;
  for (int i = 0; i < x.nranks; ++i) {
    if (counts[i] > static_cast<size_t>(INT_MAX / x.w.per_elem)) {
      return comm.Fail(weftInvalidArgument,
                       "weftReduceScatterV: recvcounts[%d] = %zu is past what one MPI call takes "
                       "for %s in its wire form",
                       i, counts[i], TypeName(x.type));
    }
    units->push_back(static_cast<int>(counts[i]) * x.w.per_elem);
    if (i < x.rank) before += counts[i];
    total += counts[i];
  }
  const bool wire = x.w.conv != Wire::Conv::kNone || x.w.divide;
  const size_t mine = counts[x.rank];
  const bool in_place = a.in_place;
  void* tmp = wire && total > 0 ? p->Scratch(total * x.w.size) : nullptr;
  NativeStep s;
  s.what = "MPI_Reduce_scatter";
  if (wire && total > 0) {  // (nothing to convert when every count is 0: tmp is null then)
    s.before = [=](const Bind& b) { ToWire(x.w, x.type, b.send, tmp, total); };
    if (mine > 0) {
      s.after = [=](const Bind& b) { FromWire(x.w, x.type, tmp, b.recv, mine, x.nranks); };
    }
  } else if (in_place && before > 0) {
    s.after = [=](const Bind& b) { std::memmove(b.recv, b.send, mine * x.es); };
  }
  s.call = [=](const Bind& b, MPI_Request* r) {
    const void* sb = wire || in_place ? MPI_IN_PLACE : b.send;
    void* rb = wire ? tmp : (in_place ? const_cast<char*>(b.send) : b.recv);
    return r ? PMPI_Ireduce_scatter(sb, rb, units->data(), x.w.type, x.w.op, x.mc, r)
             : PMPI_Reduce_scatter(sb, rb, units->data(), x.w.type, x.w.op, x.mc);
  };
  p->steps.push_back(std::move(s));
  return weftSuccess;
}

}  // namespace

Status BuildNativeReduction(Comm& comm, const CollArgs& a, NativeProgram* p) {
  Ctx x{comm.mpi, comm.size, comm.rank, a.type, TypeSize(a.type), {}};
  if (SelectWire(a.type, a.op, &x.w) != weftSuccess) {
    return comm.Fail(weftMpiError, "%s: cannot create weft's MPI reduction operators",
                     CollApiName(a.kind));
  }
  const bool converts = x.w.conv != Wire::Conv::kNone;
  const size_t n = a.count;
  if (a.kind == CollKind::kReduceScatterV) {
    WEFT_CHECK(AddReduceScatterV(comm, x, a, p));
  } else if (a.kind == CollKind::kReduceScatter) {
    const size_t chunk = std::max<size_t>(1, NativeChunkElems(x.w.size, x.w.per_elem) / comm.size);
    if (!converts && n <= chunk) {
      if (n > 0) p->steps.push_back(ReduceScatterDirectStep(x, a));
    } else if (n > 0) {
      const size_t c0 = std::min(chunk, n);
      void* tmp = p->Scratch(c0 * comm.size * x.w.size);
      for (size_t off = 0; off < n; off += c0) {
        p->steps.push_back(ReduceScatterPackedStep(x, a, off, std::min(c0, n - off), tmp));
      }
    }
  } else {
    const size_t chunk = NativeChunkElems(x.w.size, x.w.per_elem);
    const size_t c0 = std::min(chunk, n);
    void* tmp = converts && n > 0 ? p->Scratch(c0 * x.w.size) : nullptr;
    const bool root_needs_tmp = a.kind == CollKind::kReduce && a.root == comm.rank &&
                                (converts || (a.in_place && RootAvoidsInPlace(a.root)));
    void* root_tmp = root_needs_tmp && n > 0 ? p->Scratch(c0 * x.w.size) : nullptr;
    for (size_t off = 0; off < n; off += chunk) {
      p->steps.push_back(ReduceStep(x, a, off, std::min(chunk, n - off), tmp, root_tmp));
    }
  }
  p->note = WireName(x.w);
  return weftSuccess;
}

}  // namespace weft
