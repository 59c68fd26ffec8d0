// weft-info: version, build options and every environment knob with its current value.
//   weft-info                 human-readable report
//   weft-info --env-markdown  the knob table of docs/env.md (generated from params.def)
#include <cstdio>
#include <cstring>

#include "core/build_info.h"
#include "core/params.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--env-markdown") == 0) {
    std::fputs(weft::ParamsMarkdown().c_str(), stdout);
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "usage: weft-info [--env-markdown]\n");
    return 2;
  }
  std::printf("weft build\n");
  for (const auto& [k, v] : weft::BuildInfo()) std::printf("  %-14s %s\n", k.c_str(), v.c_str());
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
