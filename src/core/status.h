// Internal status flow: functions return [[nodiscard]] Status; WEFT_CHECK returns early and
// logs the call site at TRACE, so a failure's path up the stack can be followed (NCCL style).
#pragma once

#include <string>

#include "weft/weft.h"

namespace weft {

/// Internal status type: the public code plus nothing else (the text lives on the comm).
using Status = weftResult_t;

/// Logs one frame of an error's unwinding (TRACE level, subsystem ALL).
void LogUnwind(Status s, const char* file, int line);

}  // namespace weft

/// Evaluates expr (a Status); on failure returns it from the enclosing function.
#define WEFT_CHECK(expr)                              \
  do {                                                \
    ::weft::Status weft_s_ = (expr);                  \
    if (weft_s_ != weftSuccess) {                     \
      ::weft::LogUnwind(weft_s_, __FILE__, __LINE__); \
      return weft_s_;                                 \
    }                                                 \
  } while (0)
