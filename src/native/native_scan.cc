// Scan and ExScan (inclusive and exclusive prefix reductions) on native MPI, in pieces of at
// most WEFT_NATIVE_CHUNK_BYTES, through the wire form of native/wire.h (fp16/bf16 accumulate
// in fp32; Avg is the mean of the prefix: divided by rank+1, or by rank for ExScan).
// ExScan leaves rank 0's recvbuff untouched, where MPI leaves it undefined.
#include <algorithm>

#include "core/dtype.h"
#include "exec/reduce_kernels.h"
#include "native/native_colls.h"
#include "native/wire.h"

namespace weft {
namespace {

struct ScanCtx {
  MPI_Comm mc;
  int rank;
  weftDataType_t type;
  size_t es;
  Wire w;
  bool exclusive;
  int divisor;  // ranks in this rank's prefix
};

// Elements [off, off+c). tmp holds the wire form when the data is converted; sink receives
// what MPI writes at ExScan's rank 0, whose result is nothing.
NativeStep ScanStep(const ScanCtx& x, const CollArgs& a, size_t off, size_t c, void* tmp,
                    void* sink) {
  const size_t at = off * x.es;
  const bool no_result = x.exclusive && x.rank == 0;
  const bool converts = x.w.conv != Wire::Conv::kNone;
  const bool in_place = a.in_place && !no_result;
  const int n = static_cast<int>(c) * x.w.per_elem;
  NativeStep s;
  s.what = x.exclusive ? "MPI_Exscan" : "MPI_Scan";
  if (converts) {
    s.before = [=](const Bind& b) { ToWire(x.w, x.type, b.send + at, tmp, c); };
  }
  if (!no_result && (converts || x.w.divide)) {
    s.after = [=](const Bind& b) {
      FromWire(x.w, x.type, converts ? tmp : b.recv + at, b.recv + at, c, x.divisor);
    };
  }
  s.call = [=](const Bind& b, MPI_Request* r) {
    const void* sb = converts ? MPI_IN_PLACE : (in_place ? MPI_IN_PLACE : b.send + at);
    void* rb = converts ? tmp : (no_result ? sink : b.recv + at);
    if (x.exclusive) {
      return r ? PMPI_Iexscan(sb, rb, n, x.w.type, x.w.op, x.mc, r)
               : PMPI_Exscan(sb, rb, n, x.w.type, x.w.op, x.mc);
    }
    return r ? PMPI_Iscan(sb, rb, n, x.w.type, x.w.op, x.mc, r)
             : PMPI_Scan(sb, rb, n, x.w.type, x.w.op, x.mc);
  };
  return s;
}

}  // namespace

Status BuildNativeScan(Comm& comm, const CollArgs& a, NativeProgram* p) {
  const bool exclusive = a.kind == CollKind::kExScan;
  ScanCtx x{comm.mpi,
            comm.rank,
            a.type,
            TypeSize(a.type),
            {},
            exclusive,
            exclusive ? comm.rank : comm.rank + 1};
  if (SelectWire(a.type, a.op, &x.w) != weftSuccess) {
    return comm.Fail(weftMpiError, "%s: cannot create weft's MPI reduction operators",
                     CollApiName(a.kind));
  }
  const size_t n = a.count;
  const size_t chunk = NativeChunkElems(x.w.size, x.w.per_elem);
  const size_t c0 = std::min(chunk, n);
  const bool converts = x.w.conv != Wire::Conv::kNone;
  void* tmp = converts && n > 0 ? p->Scratch(c0 * x.w.size) : nullptr;
  void* sink = exclusive && comm.rank == 0 && !converts && n > 0 ? p->Scratch(c0 * x.es) : nullptr;
  for (size_t off = 0; off < n; off += chunk) {
    p->steps.push_back(ScanStep(x, a, off, std::min(chunk, n - off), tmp, sink));
  }
  p->note = converts ? "wire: converted, prefix in the wire type" : "wire: native type";
  return weftSuccess;
}

}  // namespace weft
