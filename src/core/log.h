// Debug logging in NCCL's manner: WEFT_DEBUG sets the level, WEFT_DEBUG_SUBSYS filters by
// subsystem, WEFT_DEBUG_FILE redirects (with %h host and %p pid expanded).
#pragma once

#include <cstdint>
#include <string>

namespace weft {

/// Levels in increasing verbosity.
enum class LogLevel : int { kNone = 0, kWarn = 1, kInfo = 2, kTrace = 3 };

/// Subsystems, as bits, so WEFT_DEBUG_SUBSYS can select several.
enum LogSubsys : uint32_t {
  kInit = 1u << 0,
  kColl = 1u << 1,
  kTopo = 1u << 2,
  kPlan = 1u << 3,
  kEnv = 1u << 4,
  kShim = 1u << 5,
  kDevice = 1u << 6,
  kAll = ~0u,
};

/// True when a message of this level and subsystem would be written.
bool LogEnabled(LogLevel level, uint32_t subsys);
/// Writes one formatted line (printf format) if enabled.
void LogLine(LogLevel level, uint32_t subsys, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
/// Rank shown in every line (set when the first communicator is created).
void SetLogRank(int rank);
/// Applies WEFT_DEBUG* again (after ReloadParams).
void ReloadLogConfig();
/// Expands %h (host name) and %p (process id) in a file name pattern.
std::string ExpandPathPattern(const std::string& pattern);
/// Parses a level name (case-insensitive); returns false for an unknown name.
bool ParseLogLevel(const std::string& text, LogLevel* out);
/// Parses a WEFT_DEBUG_SUBSYS list into a bit mask.
uint32_t ParseSubsysMask(const std::string& text);

}  // namespace weft

#define WEFT_LOG_(level, subsys, ...)                                          \
  do {                                                                         \
    if (::weft::LogEnabled(level, ::weft::subsys))                             \
      ::weft::LogLine(level, ::weft::subsys, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)
/// A problem the user should know of (fallbacks, ignored settings).
#define WEFT_WARN(subsys, ...) WEFT_LOG_(::weft::LogLevel::kWarn, subsys, __VA_ARGS__)
/// One line per notable event (init, plan creation and the path chosen).
#define WEFT_INFO(subsys, ...) WEFT_LOG_(::weft::LogLevel::kInfo, subsys, __VA_ARGS__)
/// Per-call detail and error unwinding.
#define WEFT_TRACE(subsys, ...) WEFT_LOG_(::weft::LogLevel::kTrace, subsys, __VA_ARGS__)
