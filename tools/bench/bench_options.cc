#include "bench_options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_colls.h"
#include "bench_device.h"
#include "common/parse_int.h"
#include "core/dtype.h"

namespace bench {
namespace {

constexpr Coll kAll[] = {Coll::kAllReduce, Coll::kReduceScatter, Coll::kAllGather,
                         Coll::kBroadcast, Coll::kReduce,        Coll::kAllToAll,
                         Coll::kAllToAllV, Coll::kGather,        Coll::kScatter,
                         Coll::kScan,      Coll::kExScan,        Coll::kAllGatherV,
                         Coll::kGatherV,   Coll::kScatterV,      Coll::kReduceScatterV};

void Usage() {
  std::fprintf(
      stderr,
      "usage: weft-bench "
      "<allreduce|reduce_scatter|allgather|broadcast|reduce|alltoall|alltoallv|gather|scatter|"
      "scan|exscan|allgatherv|gatherv|scatterv|reduce_scatterv|all> [flags]\n"
      "  -b, --minbytes N   smallest per-rank send buffer (default 8; K, M, G suffixes)\n"
      "  -e, --maxbytes N   largest (default 64M)\n"
      "  -f, --stepfactor F multiply the size by F each step (default 2)\n"
      "  -d, --datatype T   int8 uint8 int32 uint32 int64 uint64 half bfloat16 float "
      "double (default double)\n"
      "  -o, --op O         sum prod max min avg (default sum)\n"
      "  -r, --root R       root of broadcast, reduce, gather and scatter (default 0)\n"
      "  -w, --warmup_iters N  untimed iterations per size (default 5)\n"
      "  -n, --iters N      timed iterations per size (default 20)\n"
      "  -c, --check 0|1    validate results and count #wrong (default 1)\n"
      "      --place out|in|both  out-of-place, in-place or both (default both)\n"
      "      --timing call|loop  call: each call timed alone after a barrier; loop:\n"
      "                     blocks of -n calls back to back, time / n (default call)\n"
      "      --cold BYTES   call timing: before each call every rank writes BYTES of\n"
      "                     other memory (a compute phase), so calls start cold (default 0)\n"
      "      --buffers hot|rotate  hot: one buffer per size, reused by every call (as\n"
      "                     OSU, IMB and nccl-tests); rotate: calls cycle through buffers\n"
      "                     spanning twice the last-level cache (default rotate)\n"
      "      --csv FILE     one row per (size, place, implementation)\n"
      "      --json FILE    the same records as JSON\n"
      "      --memory host|device|shared  device: buffers in device memory of the\n"
      "                     active backend (WEFT_DEVICE), one row per mode; shared:\n"
      "                     host buffers from weftMemAlloc, for both sides (default host)\n"
      "      --modes LIST   with --memory device: copy_d2h,copy_h2d,copy_roundtrip,host,\n"
      "                     stage_alloc,stage_reuse,weft (default: all)\n"
      "      --elements N   one size: N elements per rank (sets -b and -e)\n"
      "      --link-gbps R  each host's link rate in Gbit/s: across hosts the floor\n"
      "                     columns are then the network floor (without it, n/a)\n"
      "      --nonblocking  both sides post the nonblocking call and wait for it\n"
      "      --overlap      also measure how much of a nonblocking call computation hides\n"
      "                     (OSU's overlap, per size and side)\n"
      "      --overlap-compute busy|sleep  the overlap's computation spins (OSU's, busy,\n"
      "                     default) or sleeps (a host thread waiting on a device: its\n"
      "                     core is free for a progress thread)\n"
      "      --vpattern uniform|skewed|sparse  the v-collectives' block sizes, from the\n"
      "                     equal form's block B at size S (S/P, or S for the gathers):\n"
      "                     every block B (uniform); 4B for alltoallv's pairs with (i+j)\n"
      "                     mod 4 == 0 and the other kinds' ranks q with q mod 4 == 0, B/4\n"
      "                     for the rest (skewed); B between ring neighbours only (alltoallv)\n"
      "                     or for q mod 4 == 1 only, none for the rest (sparse)\n"
      "                     (default uniform)\n"
      "      --warmup N, --validate 0|1  aliases of -w and -c\n");
}

}  // namespace

const char* CollName(Coll c) {
  static const char* k[] = {"allreduce", "reduce_scatter", "allgather",      "broadcast",
                            "reduce",    "alltoall",       "alltoallv",      "gather",
                            "scatter",   "scan",           "exscan",         "allgatherv",
                            "gatherv",   "scatterv",       "reduce_scatterv"};
  return k[static_cast<int>(c)];
}

bool Rooted(Coll c) {
  return c == Coll::kBroadcast || c == Coll::kReduce || c == Coll::kGather || c == Coll::kScatter ||
         c == Coll::kGatherV || c == Coll::kScatterV;
}

// Iterations per size: a run must end (ten million 8-byte calls take tens of seconds).
constexpr int kMaxIters = 10'000'000;

bool ParseSize(const std::string& text, size_t* out) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || v < 0) return false;
  size_t mult = 1;
  switch (*end) {
    case 'K':
    case 'k':
      mult = 1u << 10;
      ++end;
      break;
    case 'M':
    case 'm':
      mult = 1u << 20;
      ++end;
      break;
    case 'G':
    case 'g':
      mult = 1u << 30;
      ++end;
      break;
    default:
      break;
  }
  if (*end == 'B' || *end == 'b') ++end;
  if (*end != '\0') return false;
  const double bytes = v * static_cast<double>(mult);
  if (!(bytes <= 281474976710656.0)) return false;  // 2^48, what weft accepts (NaN fails too)
  *out = static_cast<size_t>(bytes);
  return true;
}

// A whole decimal integer in [lo, hi] into an int option.
bool ParseInt(const std::string& text, long long lo, long long hi, int* out) {
  long long v = 0;
  if (!weft::tools::ParseInt(text, lo, hi, &v)) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseOptions(int argc, char** argv, Options* o, int* exit_code) {
  *exit_code = 2;
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    Usage();
    *exit_code = argc < 2 ? 2 : 0;
    return false;
  }
  std::string which = argv[1];
  if (which == "all") {
    o->colls.assign(std::begin(kAll), std::end(kAll));
  } else {
    for (Coll c : kAll) {
      if (which == CollName(c)) o->colls = {c};
    }
    if (o->colls.empty()) {
      std::fprintf(stderr, "weft-bench: unknown collective '%s'\n", which.c_str());
      Usage();
      return false;
    }
  }
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--nonblocking" || a == "--overlap") {  // switches: no value
      (a == "--overlap" ? o->overlap : o->nonblocking) = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "weft-bench: %s needs a value\n", a.c_str());
      Usage();
      return false;
    }
    std::string v = argv[++i];
    bool ok = true;
    if (a == "-b" || a == "--minbytes")
      ok = ParseSize(v, &o->min_bytes);
    else if (a == "-e" || a == "--maxbytes")
      ok = ParseSize(v, &o->max_bytes);
    else if (a == "-f" || a == "--stepfactor")
      ok = (o->factor = std::atof(v.c_str())) > 1 && o->factor <= 1024;
    else if (a == "-d" || a == "--datatype")
      ok = weft::ParseType(v, &o->type);
    else if (a == "-o" || a == "--op")
      ok = weft::ParseOp(v, &o->op);
    else if (a == "-r" || a == "--root")
      ok = ParseInt(v, 0, 1 << 20, &o->root);
    else if (a == "--memory") {
      o->device_memory = v == "device";
      o->shared_memory = v == "shared";
      ok = v == "device" || v == "host" || v == "shared";
    } else if (a == "--modes") {
      o->modes.clear();
      for (size_t p = 0; ok && p <= v.size();) {
        size_t q = v.find(',', p);
        std::string name = v.substr(p, q == std::string::npos ? std::string::npos : q - p);
        Impl m;
        ok = ParseMode(name, &m);
        if (ok) o->modes.push_back(static_cast<int>(m));
        p = q == std::string::npos ? v.size() + 1 : q + 1;
      }
    } else if (a == "--elements") {
      size_t n = 0;
      ok = ParseSize(v, &n);
      o->min_bytes = o->max_bytes = n * weft::TypeSize(o->type);
      o->elements = n;
    } else if (a == "-w" || a == "--warmup_iters" || a == "--warmup")
      ok = ParseInt(v, 0, kMaxIters, &o->warmup);
    else if (a == "-n" || a == "--iters")
      ok = ParseInt(v, 1, kMaxIters, &o->iters);
    else if (a == "-c" || a == "--check" || a == "--validate") {
      int check = 0;
      ok = ParseInt(v, 0, 1, &check);
      o->check = check != 0;
    } else if (a == "--cold")
      ok = ParseSize(v, &o->cold_bytes);
    else if (a == "--buffers") {
      o->hot_buffers = v == "hot";
      ok = v == "hot" || v == "rotate";
    } else if (a == "--timing") {
      o->loop = v == "loop";
      ok = v == "loop" || v == "call";
    } else if (a == "--overlap-compute") {
      o->overlap_sleeps = v == "sleep";
      ok = v == "sleep" || v == "busy";
    } else if (a == "--place") {
      o->out_of_place = v == "out" || v == "both";
      o->in_place = v == "in" || v == "both";
      ok = o->out_of_place || o->in_place;
    } else if (a == "--link-gbps") {
      char* end = nullptr;
      o->link_gbps = std::strtod(v.c_str(), &end);
      ok = end != v.c_str() && *end == '\0' && o->link_gbps > 0 && o->link_gbps <= 1e6;
    } else if (a == "--vpattern") {
      o->vpattern = v == "skewed"   ? VPattern::kSkewed
                    : v == "sparse" ? VPattern::kSparse
                                    : VPattern::kUniform;
      ok = v == "skewed" || v == "sparse" || v == "uniform";
    } else if (a == "--csv")
      o->csv = v;
    else if (a == "--json")
      o->json = v;
    else {
      std::fprintf(stderr, "weft-bench: unknown flag %s\n", a.c_str());
      Usage();
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "weft-bench: bad value '%s' for %s\n", v.c_str(), a.c_str());
      return false;
    }
  }
  if (o->cold_bytes > 0 && o->loop) {
    std::fprintf(stderr, "weft-bench: --cold applies to --timing call only\n");
    *exit_code = 2;
    return false;
  }
  if (o->elements > 0) o->min_bytes = o->max_bytes = o->elements * weft::TypeSize(o->type);
  if (o->device_memory && o->modes.empty()) {
    for (Impl m : {Impl::kCopyD2H, Impl::kCopyH2D, Impl::kCopyRoundtrip, Impl::kNative,
                   Impl::kStageAlloc, Impl::kStageReuse, Impl::kWeftDevice})
      o->modes.push_back(static_cast<int>(m));
  }
  if (o->min_bytes > o->max_bytes) {
    std::fprintf(stderr, "weft-bench: minbytes above maxbytes\n");
    return false;
  }
  return true;
}

}  // namespace bench
