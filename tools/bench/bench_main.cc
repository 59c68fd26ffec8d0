// weft-bench: the native MPI routine and weft side by side, in one run, on the same buffers
// (rotated out of cache, or with --buffers hot one set reused), with nccl-tests' columns
// (time, algbw, busbw, #wrong) and the speedup.
//   mpiexec -n 2 weft-bench allreduce -b 8 -e 64M -f 2 -d double -o sum --csv out.csv
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench_colls.h"
#include "bench_device.h"
#include "bench_floor.h"
#include "bench_output.h"
#include "bench_overlap.h"
#include "bench_vcolls.h"
#include "check/reference.h"
#include "core/dtype.h"

namespace bench {
namespace {

// Rotating through this many bytes of buffers keeps a run's data out of the last-level cache,
// so neither side is flattered by a warm cache.
size_t RotationBytes() {
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  size_t cache = llc > 0 ? static_cast<size_t>(llc) : (32u << 20);
  return 2 * cache;
}

void FillOnes(weftDataType_t t, unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (weft::IsFloatType(t))
      weft::check::StoreF(t, p, i, 1.0);
    else
      weft::check::StoreI(t, p, i, 1);
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// A call's buffers: in host memory of their own, or (--memory shared) carved from g_arena.
struct BufferSet {
  std::vector<unsigned char> own_send, own_recv;
  unsigned char *send = nullptr, *recv = nullptr;
  size_t send_bytes = 0, recv_bytes = 0;
};
unsigned char* g_arena = nullptr;  // --memory shared: weftMemAlloc memory
size_t g_arena_bytes = 0;

// Measures one (size, place): both implementations interleaved; returns false on a failure.
bool Measure(const Ctx& x, const Options& o, const Shape& s, bool in_place,
             std::vector<Record>* out, Record* native_rec, Record* weft_rec, bool* native_ran) {
  const size_t es = weft::TypeSize(x.type);
  const size_t per_set = std::max<size_t>(1, in_place ? s.buf_bytes : s.send_bytes + s.recv_bytes);
  size_t sets =
      o.hot_buffers ? 1 : std::clamp<size_t>((RotationBytes() + per_set - 1) / per_set, 1, 32);
  auto line = [](size_t n) { return (n + 63) / 64 * 64; };
  std::vector<BufferSet> bufs(sets);
  size_t carved = 0;
  for (auto& b : bufs) {
    b.recv_bytes = std::max<size_t>(in_place ? s.buf_bytes : s.recv_bytes, 1);
    b.send_bytes = in_place ? 1 : std::max<size_t>(s.send_bytes, 1);
    if (g_arena != nullptr && carved + line(b.send_bytes) + line(b.recv_bytes) <= g_arena_bytes) {
      b.send = g_arena + carved;
      b.recv = b.send + line(b.send_bytes);
      carved += line(b.send_bytes) + line(b.recv_bytes);
    } else if (g_arena != nullptr) {  // the arena holds fewer sets at this size
      sets = &b - bufs.data();
      break;
    } else {
      b.own_send.resize(b.send_bytes);
      b.own_recv.resize(b.recv_bytes);
      b.send = b.own_send.data();
      b.recv = b.own_recv.data();
    }
    FillOnes(x.type, b.recv, b.recv_bytes / es);
    FillOnes(x.type, b.send, b.send_bytes / es);
  }
  if (sets == 0) return false;  // the arena is sized for the largest call: not reached
  bufs.resize(sets);
  *native_ran = NativeSupports(x, s);
  std::vector<Impl> impls = {Impl::kWeft};
  if (*native_ran) impls.insert(impls.begin(), Impl::kNative);
  size_t next = 0;
  // --cold: the memory a compute phase between calls would write (allocated once per size).
  std::vector<unsigned char> cold(o.cold_bytes);
  unsigned char stamp = 0;
  auto run = [&](Impl impl, double* seconds) {
    BufferSet& b = bufs[next++ % sets];
    ++stamp;
    volatile unsigned char* c = cold.data();  // stores the compiler must keep
    for (size_t i = 0; i < cold.size(); i += 64) c[i] = stamp;
    MPI_Barrier(x.mpi);
    double t0 = MPI_Wtime();
    int rc = RunOnce(impl, x, s, in_place, b.send, b.recv);
    *seconds = MPI_Wtime() - t0;
    return rc == 0;
  };
  bool ok = true;
  double ignored;
  for (int w = 0; w < o.warmup && ok; ++w) {
    for (Impl impl : impls) ok &= run(impl, &ignored);
  }
  // Loop timing: kLoopBlocks blocks of o.iters calls back to back after one barrier, each
  // block's time / o.iters (max over ranks, median over blocks).
  constexpr int kLoopBlocks = 9;
  auto block = [&](Impl impl, double* seconds) {
    MPI_Barrier(x.mpi);
    double t0 = MPI_Wtime();
    for (int i = 0; i < o.iters && ok; ++i) {
      BufferSet& b = bufs[next++ % sets];
      ok &= RunOnce(impl, x, s, in_place, b.send, b.recv) == 0;
    }
    *seconds = (MPI_Wtime() - t0) / o.iters;
  };
  const int samples = o.loop ? kLoopBlocks : o.iters;
  std::vector<std::vector<double>> times(2, std::vector<double>(samples, 0));
  for (int it = 0; it < samples && ok; ++it) {
    // Alternate which side goes first, so drift and cache effects fall on both.
    for (size_t k = 0; k < impls.size() && ok; ++k) {
      Impl impl = impls[it % 2 ? impls.size() - 1 - k : k];
      double* t = &times[static_cast<int>(impl)][it];
      if (o.loop) {
        block(impl, t);
      } else {
        ok &= run(impl, t);
      }
    }
  }
  int all_ok = ok;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, x.mpi);
  if (!all_ok) return false;
  for (Impl impl : impls) {
    auto& t = times[static_cast<int>(impl)];
    MPI_Allreduce(MPI_IN_PLACE, t.data(), samples, MPI_DOUBLE, MPI_MAX, x.mpi);
    Record r;
    r.collective = CollName(x.coll);
    r.bytes = RowBytes(x, s);
    r.count = s.count;
    r.dtype = weft::check::TName(x.type);
    r.op = weft::check::OName(x.op);
    r.root = Rooted(x.coll) ? x.root : -1;
    r.in_place = in_place;
    r.impl = impl == Impl::kNative ? "native" : "weft";
    double sec = Median(t);
    r.time_us = sec * 1e6;
    r.algbw = sec > 0 ? s.alg_bytes / sec / 1e9 : 0;
    r.busbw = r.algbw * s.bus_factor;
    r.wrong = -1;
    if (o.check) {
      long long wrong =
          static_cast<long long>(Validate(impl, x, s, in_place, bufs[0].send, bufs[0].recv));
      MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, x.mpi);
      r.wrong = wrong;
    }
    out->push_back(r);
    *(impl == Impl::kNative ? native_rec : weft_rec) = r;
  }
  return true;
}

std::string MpiLibraryName() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string s(lib);
  size_t cut = s.find_first_of("\n,");
  return cut == std::string::npos ? s : s.substr(0, cut);
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  int code = 0;
  if (!ParseOptions(argc, argv, &o, &code) || (o.root < 0 || o.root >= size)) {
    if (o.root < 0 || o.root >= size) code = 2;
    if (rank == 0 && code == 2 && (o.root < 0 || o.root >= size))
      std::fprintf(stderr, "weft-bench: root out of range\n");
    MPI_Finalize();
    return code;
  }
  Ctx x{MPI_COMM_NULL, nullptr, rank, size, Coll::kAllReduce, o.type, o.op, o.root};
  x.nonblocking = o.nonblocking;
  x.vpattern = o.vpattern;
  MPI_Comm_dup(MPI_COMM_WORLD, &x.mpi);
  if (weftCommInitMPI(&x.comm, MPI_COMM_WORLD) != weftSuccess) {
    std::fprintf(stderr, "weft-bench: weftCommInitMPI failed: %s\n", weftGetLastError(nullptr));
    MPI_Finalize();
    return 1;
  }
  if (o.shared_memory) {
    // One arena for the whole sweep, the same size on every rank: the largest call's buffers,
    // or more, up to the rotation the host sweep uses.
    size_t need = 0;
    for (Coll c : o.colls) {
      x.coll = c;
      Shape s = ShapeOf(x, o.max_bytes);
      need = std::max(need, s.send_bytes + s.recv_bytes + s.buf_bytes + 256);
    }
    g_arena_bytes = std::max(need, RotationBytes());
    void* p = nullptr;
    if (weftMemAlloc(&p, g_arena_bytes, x.comm) != weftSuccess) {
      std::fprintf(stderr, "weft-bench: weftMemAlloc failed: %s\n", weftGetLastError(x.comm));
      MPI_Finalize();
      return 1;
    }
    g_arena = static_cast<unsigned char*>(p);
    if (rank == 0) {
      std::printf("# buffers: one weftMemAlloc arena of %zu bytes (both implementations use it)\n",
                  g_arena_bytes);
    }
  }
  const NodeCopy node_copy = MeasureNodeCopy(MPI_COMM_WORLD);
  // Across hosts the floor is the network's; inside one node, memory's.
  const bool network_floor = node_copy.hosts > 1;
  if (rank == 0 && !network_floor) {
    std::printf(
        "# node copy bandwidth: %.1f GB/s (read + write, %d rank(s) of this node copying "
        "64 MiB at once); floor = the collective's memory traffic (docs/benchmarking.md) "
        "at that rate\n",
        node_copy.gbps, node_copy.ranks);
  } else if (rank == 0 && o.link_gbps > 0) {
    std::printf(
        "# %d hosts, up to %d ranks each; floor = the bytes that must cross the busiest host "
        "link (docs/benchmarking.md) at %g Gbit/s (--link-gbps)\n",
        node_copy.hosts, node_copy.max_ranks, o.link_gbps);
  } else if (rank == 0) {
    std::printf("# %d hosts, up to %d ranks each; floor: n/a (give the link rate: --link-gbps)\n",
                node_copy.hosts, node_copy.max_ranks);
  }
  std::vector<Record> rows;
  long long weft_wrong = 0, native_wrong = 0;
  bool failed = false;
  if (o.device_memory) {
    failed = !RunDeviceBench(x, o, &rows, &weft_wrong);
    if (rank == 0) std::printf("# wrong elements (staged and weft modes): %lld\n", weft_wrong);
    o.colls.clear();  // the host sweep below is not run
  }
  double bus_sum[2] = {0, 0};
  int bus_n[2] = {0, 0};
  for (Coll c : o.colls) {
    x.coll = c;
    if (rank == 0) PrintTableHeader(stdout, x, o, MpiLibraryName());
    for (size_t b = o.min_bytes; b <= o.max_bytes && !failed;) {
      Shape s = ShapeOf(x, b);
      if (s.count > 0 || b == 0) {
        for (bool ip : {false, true}) {
          if ((ip && !o.in_place) || (!ip && !o.out_of_place)) continue;
          Record nr, wr;
          bool native_ran = false;
          if (!Measure(x, o, s, ip, &rows, &nr, &wr, &native_ran)) {
            failed = true;
            break;
          }
          if (network_floor && o.link_gbps > 0) {
            wr.floor_us = NetworkFloorBytes(c, s.send_bytes, node_copy.hosts, node_copy.max_ranks) /
                          (o.link_gbps / 8 * 1e3);
          } else if (!network_floor && node_copy.gbps > 0) {
            wr.floor_us = FloorBytes(c, s.send_bytes, node_copy.ranks) / (node_copy.gbps * 1e3);
          }
          if (rank == 0) PrintRow(stdout, native_ran ? &nr : nullptr, wr);
          weft_wrong += std::max(0LL, wr.wrong);
          bus_sum[1] += wr.busbw;
          ++bus_n[1];
          if (native_ran) {
            native_wrong += std::max(0LL, nr.wrong);
            bus_sum[0] += nr.busbw;
            ++bus_n[0];
          }
        }
      }
      size_t nb = static_cast<size_t>(std::llround(static_cast<double>(b) * o.factor));
      b = std::max(nb, b + 1);
    }
  }
  if (o.overlap && !o.device_memory && !failed) failed = !RunOverlapTables(x, o);
  if (rank == 0 && !o.device_memory) {
    std::printf("# wrong elements: weft %lld, native %lld%s\n", weft_wrong, native_wrong,
                native_wrong > 0
                    ? " (native MPI's own results; weft's are checked against the same reference)"
                    : "");
    std::printf("# average busbw: native %.3f GB/s, weft %.3f GB/s\n",
                bus_n[0] ? bus_sum[0] / bus_n[0] : 0.0, bus_n[1] ? bus_sum[1] / bus_n[1] : 0.0);
  }
  // Measured again: a neighbour on a shared machine can slow memory for seconds, and a start
  // caught in such a spell prints every floor column too high (seen once in six runs on a VM:
  // 6.6 GB/s against 20-26 in the others).
  const NodeCopy end_copy = MeasureNodeCopy(MPI_COMM_WORLD);
  if (rank == 0 && !network_floor && node_copy.gbps > 0 && end_copy.gbps > 0) {
    const double ratio = end_copy.gbps / node_copy.gbps;
    std::printf("# node copy bandwidth at the end: %.1f GB/s (%.2f of the start's)%s\n",
                end_copy.gbps, ratio,
                ratio > 1.25 || ratio < 0.8
                    ? ": the floor columns used the start's rate and are off by that ratio "
                      "if the machine was busy then; rerun before quoting them"
                    : "");
  }
  if (rank == 0) {
    if (!o.csv.empty() && !WriteCsv(o.csv, rows)) {
      std::fprintf(stderr, "weft-bench: cannot write %s\n", o.csv.c_str());
      failed = true;
    }
    if (!o.json.empty() && !WriteJson(o.json, rows)) {
      std::fprintf(stderr, "weft-bench: cannot write %s\n", o.json.c_str());
      failed = true;
    }
  }
  weftCommDestroy(x.comm);
  weftMemFree(g_arena);
  MPI_Comm_free(&x.mpi);
  MPI_Finalize();
  return failed || weft_wrong > 0 ? 1 : 0;
}
