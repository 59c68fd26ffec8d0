#include "comm/wisdom_load.h"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "core/log.h"
#include "core/params.h"

namespace weft {
namespace {

std::string FirstLine(std::string s) {
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string CpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const size_t a = line.find_first_not_of(' ', colon + 1);
        return a == std::string::npos ? "" : FirstLine(line.substr(a));
      }
    }
  }
  return "unknown";
}

std::string MpiLibrary() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (PMPI_Get_library_version(v, &len) != MPI_SUCCESS) return "unknown";
  return FirstLine(std::string(v, strnlen(v, sizeof v)));
}

// One WARN per process for each distinct text: a program creating many communicators of a
// shape the file lacks is told once.
void WarnOnce(const std::string& text) {
  static std::mutex mu;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lk(mu);
  if (said.insert(text).second) WEFT_WARN(kInit, "%s", text.c_str());
}

struct Loaded {
  std::string path;
  bool explicit_path = false;
  bool ok = false;
  tune::Wisdom wisdom;
  /// wisdom's sections, shared by every communicator that uses one (made once).
  std::vector<std::shared_ptr<const tune::WisdomSection>> shared;
};

const Loaded& LoadOnce() {
  static std::once_flag once;
  static Loaded l;
  std::call_once(once, [] {
    const std::string env = GetParams().WEFT_WISDOM;
    if (env == "none") return;
    l.explicit_path = !env.empty();
    l.path = l.explicit_path ? env : DefaultWisdomPath();
    if (l.path.empty()) return;
    std::ifstream f(l.path, std::ios::binary);
    if (!f) {
      if (l.explicit_path) {
        WarnOnce("WEFT_WISDOM=" + l.path + ": cannot read it; choosing by the cost model");
      }
      return;
    }
    // A wisdom file is a few KiB; a huge one is not ours.
    std::string text(1 << 20, '\0');
    f.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(f.gcount()));
    if (f.peek() != EOF) {
      WarnOnce("wisdom " + l.path + " ignored: larger than 1 MiB; choosing by the cost model");
      return;
    }
    std::string why;
    if (!tune::ParseWisdom(text, &l.wisdom, &why)) {
      WarnOnce("wisdom " + l.path + " ignored: " + why + "; choosing by the cost model");
      return;
    }
    l.ok = true;
    for (const tune::WisdomSection& sec : l.wisdom.sections) {
      l.shared.push_back(std::make_shared<const tune::WisdomSection>(sec));
    }
    WEFT_INFO(kInit, "wisdom %s: %zu section(s)", l.path.c_str(), l.wisdom.sections.size());
  });
  return l;
}

}  // namespace

tune::WisdomKey MachineKey(const Topology& topo, int ranks) {
  static const std::string mpi = MpiLibrary(), cpu = CpuModel();
  tune::WisdomKey k;
  k.ranks = ranks;
  k.topology = topo.ShapeText();
  k.mpi = mpi;
  k.cpu = cpu;
  return k;
}

std::string DefaultWisdomPath() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x != nullptr && *x) {
    return std::string(x) + "/weft/wisdom";
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h) {
    return std::string(h) + "/.config/weft/wisdom";
  }
  return "";
}

std::shared_ptr<const tune::WisdomSection> LoadWisdomFor(const tune::WisdomKey& key,
                                                         bool report_shape) {
  const Loaded& l = LoadOnce();
  if (!l.ok) return nullptr;
  const tune::WisdomSection* s = tune::FindSection(l.wisdom, key);
  if (s != nullptr) return l.shared[s - l.wisdom.sections.data()];
  if (report_shape) {
    WarnOnce("wisdom " + l.path + " not used for " + std::to_string(key.ranks) + " ranks on " +
             key.topology + ": " + tune::WhyNoSection(l.wisdom, key) +
             "; choosing by the cost model");
  }
  return nullptr;
}

}  // namespace weft
