#include "common/spec_args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "common/parse_int.h"
#include "compile/compile.h"
#include "core/dtype.h"
#include "sched/ir/program.h"
#include "tune/wisdom.h"

namespace weft::tools {
namespace {

// A shape ("2x4", "2x4:rr", "3+1") or "@FILE": a cluster file, whose `param NAME VALUE` lines
// (the wisdom file's names) set the cost model and whose other lines, '#' comments aside, are a
// shape on one line or the topology's text form (weft-info --topology).
bool ReadTopology(const std::string& v, Topology* t, tune::CostModel* model, std::string* why) {
  if (v.empty() || v[0] != '@') return Topology::FromShape(v, t, why);
  std::ifstream in(v.substr(1));
  if (!in) {
    *why = "cannot read " + v.substr(1);
    return false;
  }
  std::string line, placement;
  int placement_lines = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const size_t a = line.find_first_not_of(" \t\r");
    if (a == std::string::npos || line[a] == '#') continue;
    if (line.compare(a, 6, "param ") == 0) {
      tune::WisdomParam p;
      std::string param_why;
      if (!tune::ParseParamLine(line.substr(a + 6), &p, &param_why)) {
        *why = v.substr(1) + " line " + std::to_string(lineno) + ": " + param_why;
        return false;
      }
      tune::ApplyParams(tune::WisdomSection{{}, {p}, {}}, model);
      continue;
    }
    placement += line.substr(a) + "\n";
    ++placement_lines;
  }
  if (placement_lines == 1 && placement.compare(0, 13, "weft-topology") != 0) {
    placement.pop_back();
    while (!placement.empty() && (placement.back() == ' ' || placement.back() == '\r')) {
      placement.pop_back();
    }
    return Topology::FromShape(placement, t, why);
  }
  return Topology::FromText(placement, t, why);
}

// The calibrated parameters of the first section of a wisdom file for the call's rank count
// (and node shape, where the section names one), applied to a->model; later flags such as
// --net-gbits do not override them (they are applied last).
bool ApplyWisdom(const std::string& path, SpecArgs* a) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  tune::Wisdom w;
  std::string why = in ? "" : "cannot read it";
  if (!why.empty() || !tune::ParseWisdom(text.str(), &w, &why)) {
    a->rest_error = "--wisdom " + path + ": " + why;
    return false;
  }
  const std::string shape =
      a->spec.nodes ? a->spec.nodes->ShapeText() : "1x" + std::to_string(a->spec.nranks);
  for (const tune::WisdomSection& sec : w.sections) {
    if (sec.key.ranks == a->spec.nranks &&
        (sec.key.topology.empty() || sec.key.topology == shape)) {
      tune::ApplyParams(sec, &a->model);
      return true;
    }
  }
  a->rest_error = "--wisdom " + path + ": no section for " + std::to_string(a->spec.nranks) +
                  " ranks on nodes " + shape;
  return false;
}

}  // namespace

const char* SpecUsage() {
  return "<allreduce|reduce_scatter|allgather|bcast|reduce|alltoall|gather|scatter> -p P -n COUNT\n"
         "  [--dtype T] [--op sum|prod|max|min|matmul2x2] [--root R] [--in-place]\n"
         "  [--recipe GEN[:FACTORS][@CHUNK] | NODE/NET | [NODE/NET]@CHUNK] [--net-gbits G]\n"
         "  [--net-latency-us US] [--net-message-us US] [--send-overhead-us US]\n"
         "  [--recv-overhead-us US]\n"
         "  [--topology NODESxRANKS[:rr] | L1+L2+... | @FILE] [--no-node-shm] [--no-zero-copy]\n"
         "  [--no-single-copy] [--oversubscribed] [--wisdom FILE]\n";
}

bool ParseSpecArgs(int argc, char** argv, SpecArgs* a,
                   bool (*extra)(int argc, char** argv, int* i, void* ctx), void* ctx) {
  if (argc < 2 || !sched::ParseColl(argv[1], &a->spec.coll)) {
    a->rest_error = "first argument: a collective";
    return false;
  }
  bool have_p = false;
  std::string wisdom_path;
  bool node_shm = true, zero_copy = true, single_copy = true, oversubscribed = false;
  for (int i = 2; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return true;
    };
    std::string v;
    bool ok = true;
    if (f == "-p") {
      long long p = 0;
      ok = value(&v) && ParseInt(v, 1, kMaxRanks, &p);
      if (!ok) a->rest_error = "-p: ranks from 1 to " + std::to_string(kMaxRanks);
      a->spec.nranks = static_cast<int>(p);
      have_p = true;
    } else if (f == "-n") {
      uint64_t n = 0;
      ok = value(&v) && sched::ParseBytes(v, &n);
      a->spec.count = n;
    } else if (f == "--dtype" || f == "-d") {
      ok = value(&v) && ParseType(v, &a->spec.dtype);
    } else if (f == "--op" || f == "-o") {
      ok = value(&v);
      if (ok && v == "matmul2x2") {
        a->spec.op = ir::kOpMatMul2x2;
        a->spec.dtype = weftUint64;
      } else {
        ok = ok && ParseOp(v, &a->spec.op);
      }
    } else if (f == "--root") {
      long long root = -1;
      ok = value(&v) && ParseInt(v, 0, kMaxRanks - 1, &root);
      a->spec.root = static_cast<int>(root);
    } else if (f == "--in-place") {
      a->spec.in_place = true;
    } else if (f == "--recipe") {
      std::string why;
      ok = value(&v) && sched::ParseRecipe(v, &a->recipe, &why);
      if (!ok) a->rest_error = "--recipe: " + why;
      a->has_recipe = true;
    } else if (f == "--net-gbits") {
      // One node's link, shared by its ranks (as WEFT_NET_GBITS sets it in the library).
      long long gbits = 0;
      ok = value(&v) && ParseInt(v, 1, 1 << 20, &gbits);
      if (ok) a->model.inter.gbytes_per_s = static_cast<double>(gbits) / 8.0;
    } else if (f == "--net-latency-us" || f == "--net-message-us" || f == "--send-overhead-us" ||
               f == "--recv-overhead-us") {
      // The network's latency; the NIC's gap (what a node's link spends on each message beside
      // its bytes, 1 / its message rate); a sender's core time per message, and a receiver's
      // per message from another node.
      ok = value(&v);
      char* end = nullptr;
      const double us = ok ? std::strtod(v.c_str(), &end) : 0;
      ok = ok && end != v.c_str() && *end == 0 && us >= 0 && us <= 1e6;
      double* field = f == "--net-latency-us"     ? &a->model.inter.latency_us
                      : f == "--net-message-us"   ? &a->model.link_message_us
                      : f == "--send-overhead-us" ? &a->model.message_overhead_us
                                                  : &a->model.inter.recv_overhead_us;
      *field = us;
    } else if (f == "--no-node-shm") {
      // Across nodes, the node levels point-to-point (as WEFT_SHM=0 or a node without its
      // segment makes them in the library).
      node_shm = false;
    } else if (f == "--no-zero-copy") {
      // Buffers the peers cannot map (not from weftMemAlloc): no zerocopy schedules.
      zero_copy = false;
    } else if (f == "--no-single-copy") {
      // Peers' buffers unreachable by process_vm_readv (WEFT_CMA=0, or a probe that failed):
      // no cma schedules.
      single_copy = false;
    } else if (f == "--oversubscribed") {
      // Ranks outnumber the cores on some machine (as the library finds at creation):
      // selection offers no pipelining across levels.
      oversubscribed = true;
    } else if (f == "--wisdom") {
      // The calibrated parameters of a weft-tune file's section for -p ranks (applied below).
      ok = value(&wisdom_path);
    } else if (f == "--topology") {
      // NxR, NxR:rr, node sizes (3+1), or @FILE, a cluster file (ReadTopology).
      Topology t;
      std::string why;
      ok = value(&v) && ReadTopology(v, &t, &a->model, &why) && t.nranks <= kMaxRanks;
      if (!ok) a->rest_error = "--topology: " + (why.empty() ? "more than 65536 ranks" : why);
      if (ok) {
        if (!have_p) a->spec.nranks = t.nranks;
        have_p = true;
        if (t.num_nodes() > 1) a->spec.nodes = std::make_shared<const Topology>(std::move(t));
        a->model.nodes = a->spec.nodes;
      }
    } else if (extra == nullptr || !extra(argc, argv, &i, ctx)) {
      ok = false;
    }
    if (!ok) {
      if (a->rest_error.empty()) a->rest_error = "bad or incomplete argument '" + f + "'";
      return false;
    }
  }
  if (!have_p) {
    a->rest_error = "-p P is required";
    return false;
  }
  if (!wisdom_path.empty() && !ApplyWisdom(wisdom_path, a)) return false;
  if (a->spec.op == ir::kOpMatMul2x2) a->spec.dtype = weftUint64;
  // Every rank's buffers of the call, as the simulator holds them at once (an upper bound:
  // blocks of P count elements on one side for allgather and reduce_scatter, both for alltoall).
  const long double p = a->spec.nranks;
  const long double sides =
      a->spec.coll == sched::Coll::kAllToAll ? 2 * p
      : a->spec.coll == sched::Coll::kAllGather || a->spec.coll == sched::Coll::kReduceScatter
          ? 1 + p
          : 2;
  const long double bytes =
      static_cast<long double>(a->spec.count) * sched::ElemBytes(a->spec) * p * sides;
  if (bytes > static_cast<long double>(kMaxCallBytes)) {
    a->rest_error = "-n: the call's buffers over all ranks would exceed 1T";
    return false;
  }
  if (a->spec.root < 0 || a->spec.root >= a->spec.nranks) {
    a->rest_error = "--root out of range";
    return false;
  }
  if (a->spec.nodes && a->spec.nodes->nranks != a->spec.nranks) {
    a->rest_error = "--topology must place exactly -p ranks";
    return false;
  }
  a->env.shared_memory = sched::NumNodes(a->spec) == 1;
  a->env.single_copy = a->env.shared_memory && single_copy;  // the simulator reaches every peer
  a->env.node_shared_memory = sched::NumNodes(a->spec) > 1 && node_shm;  // the library's default
  a->env.node_single_copy = a->env.node_shared_memory && single_copy;
  // Buffers from weftMemAlloc, mapped in every node peer (--no-zero-copy: the user's own).
  a->env.zero_copy = (a->env.shared_memory || a->env.node_shared_memory) && zero_copy;
  a->model.peer_buffers_mapped = a->env.zero_copy;  // memcpy, not process_vm_readv
  a->env.oversubscribed = oversubscribed;
  return true;
}

bool ChooseRecipe(SpecArgs* a) {
  std::string why;
  sched::Recipe chosen;
  if (!sched::SelectRecipe(a->spec, a->env, a->model, a->has_recipe ? &a->recipe : nullptr, &chosen,
                           &why)) {
    std::fprintf(stderr, "no schedule: %s\n", why.c_str());
    std::printf("FAIL: no schedule: %s\n", why.c_str());
    return false;
  }
  a->recipe = chosen;
  std::printf("spec: %s\nrecipe: %s%s\n", sched::SpecText(a->spec).c_str(),
              sched::RecipeText(chosen).c_str(),
              a->has_recipe ? "" : " (chosen by the cost model)");
  return true;
}

}  // namespace weft::tools
