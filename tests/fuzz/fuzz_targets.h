// Fuzz targets: every parser of outside text, each a function of one input (libFuzzer's
// LLVMFuzzerTestOneInput shape). A target checks what must hold for any input: no crash, no
// exception, no sanitizer report, and for accepted input a text form that round-trips. A
// broken property aborts (this is test code).
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::fuzz {

/// One fuzz target.
struct Target {
  const char* name;  ///< as on the command line and in tests/fuzz/corpus/NAME
  void (*run)(const uint8_t* data, size_t size);
};

/// Every target: recipe (WEFT_RECIPE, --recipe), ir (weft-plan's program text), topology
/// (WEFT_TOPO_DUMP_FILE, weft-info --topology), spec_args (weft-sim and weft-plan arguments),
/// wisdom (WEFT_WISDOM files).
const Target* Targets(size_t* count);

}  // namespace weft::fuzz
