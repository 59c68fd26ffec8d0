// weft-info: version, build options and every environment knob with its current value.
//   weft-info                 human-readable report
//   weft-info --env-markdown  the knob table of docs/env.md (generated from params.def)
//   weft-info --ir-markdown   the opcode table of docs/ir.md (generated from opcodes.def)
//   weft-info --topology FILE load a topology dump (WEFT_TOPO_DUMP_FILE) and print its layout
//   weft-info --devices       the number of devices of the active backend (WEFT_DEVICE)
//   weft-info --wisdom FILE   what a wisdom file (weft-tune, WEFT_WISDOM) holds, per section
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "core/build_config.h"
#include "core/build_info.h"
#include "core/params.h"
#include "device/backend.h"
#if WEFT_WITH_NCCL_BUILT
#include "device/nccl/nccl_coll.h"
#endif
#include "sched/ir/program.h"
#include "topo/topology.h"
#include "tune/wisdom.h"

namespace {

// Prints each section: its key, calibrated parameters (with the model's default beside) and
// per-range recipes. 1 when the file does not parse, with the line and reason.
int PrintWisdom(const char* path) {
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  weft::tune::Wisdom w;
  std::string why = f ? "" : "cannot read the file";
  if (!why.empty() || !weft::tune::ParseWisdom(text.str(), &w, &why)) {
    std::fprintf(stderr, "weft-info: %s: %s\n", path, why.c_str());
    return 1;
  }
  std::printf("%s: wisdom version %d, %zu section(s)\n", path, weft::tune::kWisdomVersion,
              w.sections.size());
  const weft::tune::CostModel defaults;
  for (const weft::tune::WisdomSection& s : w.sections) {
    std::printf("\n%d ranks, nodes %s\n  mpi %s\n  cpu %s\n", s.key.ranks, s.key.topology.c_str(),
                s.key.mpi.c_str(), s.key.cpu.c_str());
    for (const weft::tune::WisdomParam& p : s.params) {
      double d = 0;
      weft::tune::GetParam(defaults, p.name, &d);
      std::printf("  %-26s %10.4g  (model default %g)\n", p.name.c_str(), p.value, d);
    }
    for (const weft::tune::Override& o : s.ranges) {
      std::printf("  %s\n", weft::tune::OverrideText(o).c_str());
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--env-markdown") == 0) {
    std::fputs(weft::ParamsMarkdown().c_str(), stdout);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--ir-markdown") == 0) {
    std::fputs(weft::ir::OpcodesMarkdown().c_str(), stdout);
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[1], "--topology") == 0) {
    std::ifstream f(argv[2]);
    std::stringstream text;
    text << f.rdbuf();
    weft::Topology topo;
    std::string why;
    if (!f.good() && !f.eof()) why = "cannot read the file";
    if (!why.empty() || !weft::Topology::FromText(text.str(), &topo, &why)) {
      std::fprintf(stderr, "weft-info: %s: %s\n", argv[2], why.c_str());
      return 1;
    }
    std::printf("%d ranks on %d nodes:", topo.nranks, topo.num_nodes());
    for (const auto& node : topo.ranks_of_node) {
      std::printf(" [");
      for (size_t i = 0; i < node.size(); ++i) std::printf(i ? " %d" : "%d", node[i]);
      std::printf("]");
    }
    std::printf("\n");
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[1], "--wisdom") == 0) return PrintWisdom(argv[2]);
  weft::device::Backend* backend = nullptr;
  const bool backend_ok = weft::device::GetBackend(&backend) == weftSuccess;
  if (argc > 1 && std::strcmp(argv[1], "--devices") == 0) {
    std::printf("%d\n", backend_ok ? backend->DeviceCount() : 0);
    return backend_ok ? 0 : 1;
  }
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    std::fprintf(help ? stdout : stderr,
                 "usage: weft-info [--env-markdown | --ir-markdown | --topology FILE | "
                 "--devices | --wisdom FILE]\n"
                 "  without flags: version, build options and every WEFT_* variable's value\n");
    return help ? 0 : 2;
  }
  std::printf("weft build\n");
  for (const auto& [k, v] : weft::BuildInfo()) std::printf("  %-14s %s\n", k.c_str(), v.c_str());
  std::printf("  %-14s %s, %d device(s)%s\n", "device", backend->name(), backend->DeviceCount(),
              backend_ok ? "" : " (the WEFT_DEVICE asked for is unavailable; see the WARN above)");
#if WEFT_WITH_NCCL_BUILT
  const int nccl = weft::device::NcclRuntimeVersion();
  if (nccl > 0) {
    std::printf("  %-14s libnccl.so.2 loads, version %d.%d.%d\n", "nccl_runtime", nccl / 10000,
                nccl / 100 % 100, nccl % 100);
  } else {
    std::printf("  %-14s libnccl.so.2 does not load (the NCCL path stays off)\n", "nccl_runtime");
  }
#endif
  std::printf(
      "\nenvironment (value, then [default] where it differs; * = set in the environment)\n");
  for (const auto& p : weft::ListParams()) {
    std::printf("  %s %-24s %s", p.set_in_env ? "*" : " ", p.name.c_str(),
                p.value.empty() ? "(empty)" : p.value.c_str());
    if (p.value != p.default_value) std::printf("  [%s]", p.default_value.c_str());
    std::printf("\n      %s\n", p.doc.c_str());
  }
  return 0;
}
