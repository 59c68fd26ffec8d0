#include "core/build_info.h"

#include <mpi.h>

#include "core/build_config.h"
#include "weft/weft.h"

namespace weft {

std::vector<std::pair<std::string, std::string>> BuildInfo() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  PMPI_Get_library_version(lib, &len);  // callable before MPI_Init
  std::string mpi(lib, len > 0 ? static_cast<size_t>(len) : 0);
  size_t cut = mpi.find_first_of("\n,");
  if (cut != std::string::npos) mpi.resize(cut);
  while (!mpi.empty() && (mpi.back() == ' ' || mpi.back() == '\0')) mpi.pop_back();
  return {
      {"version",
       std::string(WEFT_VERSION_STRING) + " (code " + std::to_string(WEFT_VERSION_CODE) + ")"},
      {"build_type", WEFT_BUILD_TYPE},
      {"compiler", WEFT_COMPILER},
      {"mpi_library", mpi},
      {"mpi_standard", WEFT_MPI_HEADER_VERSION},
      {"cuda", WEFT_WITH_CUDA_BUILT ? "on" : "off"},
      {"nccl", WEFT_WITH_NCCL_BUILT ? "on" : "off"},
      {"execution", "compiled schedules, native MPI fallback"},
      {"device_backends", BuiltDeviceBackends()},
  };
}

const char* BuiltDeviceBackends() {
  return WEFT_WITH_CUDA_BUILT ? "host,emulated,cuda" : "host,emulated";
}

std::string BuildInfoLine() {
  std::string s = "weft";
  for (const auto& [k, v] : BuildInfo()) s += " " + k + "=" + v + ";";
  s.pop_back();
  return s;
}

}  // namespace weft
