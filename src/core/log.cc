#include "core/log.h"

#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "core/params.h"
#include "core/status.h"

namespace weft {
namespace {

struct LogConfig {
  LogLevel level = LogLevel::kWarn;
  uint32_t mask = kAll;
  FILE* out = stderr;
};

std::mutex g_mu;
LogConfig g_cfg;
std::atomic<bool> g_configured{false};
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
std::atomic<uint32_t> g_mask{kAll};
std::atomic<int> g_rank{-1};

const char* LevelName(LogLevel l) {
  switch (l) {
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kTrace:
      return "TRACE";
    default:
      return "NONE";
  }
}

const char* SubsysName(uint32_t s) {
  switch (s) {
    case kInit:
      return "INIT";
    case kColl:
      return "COLL";
    case kTopo:
      return "TOPO";
    case kPlan:
      return "PLAN";
    case kEnv:
      return "ENV";
    case kShim:
      return "SHIM";
    case kDevice:
      return "DEVICE";
    default:
      return "ALL";
  }
}

// Called with g_mu held.
void ConfigureLocked() {
  const Params& p = PeekParams();
  LogConfig cfg;
  if (!ParseLogLevel(p.WEFT_DEBUG, &cfg.level)) {
    std::fprintf(stderr, "weft WARN WEFT_DEBUG=%s is not NONE/WARN/INFO/TRACE; using WARN [ENV]\n",
                 p.WEFT_DEBUG.c_str());
  }
  cfg.mask = ParseSubsysMask(p.WEFT_DEBUG_SUBSYS);
  if (!p.WEFT_DEBUG_FILE.empty()) {
    std::string path = ExpandPathPattern(p.WEFT_DEBUG_FILE);
    FILE* f = std::fopen(path.c_str(), "a");
    if (f != nullptr) {
      cfg.out = f;
    } else {
      std::fprintf(stderr, "weft WARN cannot open WEFT_DEBUG_FILE %s; logging to stderr [ENV]\n",
                   path.c_str());
    }
  }
  if (g_cfg.out != stderr && g_cfg.out != cfg.out) std::fclose(g_cfg.out);
  g_cfg = cfg;
  g_level.store(static_cast<int>(cfg.level));
  g_mask.store(cfg.mask);
  g_configured.store(true, std::memory_order_release);
}

void EnsureConfigured() {
  if (g_configured.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_configured.load()) ConfigureLocked();
}

}  // namespace

bool ParseLogLevel(const std::string& text, LogLevel* out) {
  static const struct {
    const char* name;
    LogLevel level;
  } kNames[] = {{"NONE", LogLevel::kNone},
                {"WARN", LogLevel::kWarn},
                {"INFO", LogLevel::kInfo},
                {"TRACE", LogLevel::kTrace},
                {"VERSION", LogLevel::kInfo}};
  for (const auto& n : kNames) {
    if (strcasecmp(text.c_str(), n.name) == 0) {
      *out = n.level;
      return true;
    }
  }
  return false;
}

uint32_t ParseSubsysMask(const std::string& text) {
  static const struct {
    const char* name;
    uint32_t bit;
  } kNames[] = {{"INIT", kInit}, {"COLL", kColl}, {"TOPO", kTopo},     {"PLAN", kPlan},
                {"ENV", kEnv},   {"SHIM", kShim}, {"DEVICE", kDevice}, {"ALL", kAll}};
  bool exclude = !text.empty() && text[0] == '^';
  uint32_t mask = 0;
  size_t pos = exclude ? 1 : 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(pos, comma - pos);
    for (const auto& n : kNames) {
      if (strcasecmp(item.c_str(), n.name) == 0) mask |= n.bit;
    }
    pos = comma + 1;
  }
  if (text.empty()) return kAll;
  return exclude ? ~mask : mask;
}

std::string ExpandPathPattern(const std::string& pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      char c = pattern[i + 1];
      if (c == 'h') {
        char host[256] = {0};
        gethostname(host, sizeof(host) - 1);
        out += host;
        ++i;
        continue;
      }
      if (c == 'p') {
        out += std::to_string(getpid());
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

bool LogEnabled(LogLevel level, uint32_t subsys) {
  EnsureConfigured();
  return static_cast<int>(level) <= g_level.load(std::memory_order_relaxed) &&
         (g_mask.load(std::memory_order_relaxed) & subsys) != 0;
}

void SetLogRank(int rank) { g_rank.store(rank); }

void ReloadLogConfig() {
  std::lock_guard<std::mutex> lk(g_mu);
  ConfigureLocked();
}

void LogLine(LogLevel level, uint32_t subsys, const char* file, int line, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  char host[64] = {0};
  gethostname(host, sizeof(host) - 1);
  const char* base = file;
  for (const char* p = file; *p; ++p) {
    if (*p == '/') base = p + 1;
  }
  std::lock_guard<std::mutex> lk(g_mu);
  // NCCL's order: who and how grave, then the text a user acts on, then where in weft it was
  // said (subsystem and source line), for a bug report.
  std::fprintf(g_cfg.out, "%s:%d:%ld [%d] weft %s %s [%s %s:%d]\n", host, getpid(),
               static_cast<long>(syscall(SYS_gettid)), g_rank.load(), LevelName(level), msg,
               SubsysName(subsys), base, line);
  std::fflush(g_cfg.out);
}

void LogUnwind(Status s, const char* file, int line) {
  WEFT_TRACE(kAll, "-> %s:%d (%s)", file, line, weftGetErrorString(s));
}

}  // namespace weft
