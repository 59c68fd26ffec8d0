// Version and build options, as printed once at init (INFO) and by weft-info.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weft {

/// (name, value) pairs: version, build type, compiler, MPI library, device support.
std::vector<std::pair<std::string, std::string>> BuildInfo();
/// BuildInfo on one line.
std::string BuildInfoLine();
/// The device backends this build has ("host,emulated" and ",cuda" where nvcc built it).
const char* BuiltDeviceBackends();

}  // namespace weft
