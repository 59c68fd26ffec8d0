// Whole decimal integers from the command line, in a range (atoi takes "12x" as 12 and wraps
// long input). Header-only: weft-bench links no other tool code.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <string>

namespace weft::tools {

/// A whole decimal integer in [lo, hi]; false (out untouched) for anything else.
inline bool ParseInt(const std::string& text, long long lo, long long hi, long long* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

}  // namespace weft::tools
