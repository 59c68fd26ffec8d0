#include "core/params.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "core/log.h"

namespace weft {
namespace {

std::unique_ptr<Params> g_params;
std::once_flag g_once;
std::vector<std::string> g_bad;  // malformed settings, reported after the read
std::atomic<bool> g_bad_reported{false};

void ReadInto(const char* name, int64_t* out, std::vector<std::string>* bad) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v, &end, 0);
  if (errno != 0 || end == v || *end != '\0') {
    bad->push_back(std::string(name) + "=" + v);
    return;
  }
  *out = x;
}

void ReadInto(const char* name, std::string* out, std::vector<std::string>*) {
  const char* v = std::getenv(name);
  if (v != nullptr) *out = v;
}

// Must not log: logging reads the params.
std::unique_ptr<Params> ReadAll(std::vector<std::string>* bad) {
  auto p = std::make_unique<Params>();
#define WEFT_PARAM(name, kind, def, doc) ReadInto(#name, &p->name, bad);
#include "core/params.def"
#undef WEFT_PARAM
  return p;
}

void ReportBad() {
  if (g_bad_reported.load(std::memory_order_relaxed) || g_bad.empty() ||
      g_bad_reported.exchange(true))
    return;
  for (const auto& b : g_bad) {
    WEFT_WARN(kEnv, "ignoring %s: not an integer; the default stays", b.c_str());
  }
}

std::string ToText(int64_t v) { return std::to_string(v); }
std::string ToText(const std::string& v) { return v; }

}  // namespace

static std::atomic<const Params*> g_ready{nullptr};  // fast path once read (no call_once per call)

const Params& PeekParams() {
  if (const Params* p = g_ready.load(std::memory_order_acquire)) return *p;
  std::call_once(g_once, [] {
    g_params = ReadAll(&g_bad);
    g_ready.store(g_params.get(), std::memory_order_release);
  });
  return *g_params;
}

namespace params_detail {
std::atomic<const Params*> g_reported{nullptr};

const Params& GetParamsSlow() {
  const Params& p = PeekParams();
  ReportBad();
  g_reported.store(&p, std::memory_order_release);
  return p;
}
}  // namespace params_detail

void ReloadParams() {
  PeekParams();
  params_detail::g_reported.store(nullptr, std::memory_order_release);
  g_bad.clear();
  g_params = ReadAll(&g_bad);
  g_ready.store(g_params.get(), std::memory_order_release);
  g_bad_reported = false;
  ReloadLogConfig();
  ReportBad();
  params_detail::g_reported.store(g_params.get(), std::memory_order_release);
}

std::vector<ParamInfo> ListParams() {
  const Params& p = GetParams();
  const Params defaults;
  std::vector<ParamInfo> out;
#define WEFT_PARAM(name, kind, def, doc) \
  out.push_back(                         \
      {#name, #kind, ToText(defaults.name), ToText(p.name), doc, std::getenv(#name) != nullptr});
#include "core/params.def"
#undef WEFT_PARAM
  return out;
}

std::string ParamsMarkdown() {
  std::string s =
      "| variable | kind | default | meaning |\n"
      "|---|---|---|---|\n";
  for (const auto& p : ListParams()) {
    std::string def = p.default_value.empty() ? "(empty)" : "`" + p.default_value + "`";
    s += "| `" + p.name + "` | " + (p.kind == "Int" ? "integer" : "string") + " | " + def + " | " +
         p.doc + " |\n";
  }
  return s;
}

}  // namespace weft
