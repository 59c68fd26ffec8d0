// weft-info: version, build options and every environment knob with its current value.
//   weft-info                 human-readable report
//   weft-info --env-markdown  the knob table of docs/env.md (generated from params.def)
//   weft-info --ir-markdown   the opcode table of docs/ir.md (generated from opcodes.def)
//   weft-info --topology FILE load a topology dump (WEFT_TOPO_DUMP_FILE) and print its layout
//   weft-info --devices       the number of devices of the active backend (WEFT_DEVICE)
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
  weft::device::Backend* backend = nullptr;
  const bool backend_ok = weft::device::GetBackend(&backend) == weftSuccess;
  if (argc > 1 && std::strcmp(argv[1], "--devices") == 0) {
    std::printf("%d\n", backend_ok ? backend->DeviceCount() : 0);
    return backend_ok ? 0 : 1;
  }
  if (argc > 1) {
    std::fprintf(stderr,
                 "usage: weft-info [--env-markdown | --ir-markdown | --topology FILE | "
                 "--devices]\n");
    return 2;
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
