// The values of every knob in params.def, read from the environment in one place.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace weft {

/// One field per knob of params.def, named as the variable.
struct Params {
#define WEFT_PARAM_Int int64_t
#define WEFT_PARAM_Str std::string
#define WEFT_PARAM(name, kind, def, doc) WEFT_PARAM_##kind name = def;
#include "core/params.def"
#undef WEFT_PARAM
#undef WEFT_PARAM_Int
#undef WEFT_PARAM_Str
};

namespace params_detail {
/// The knobs once read and any malformed ones reported (null before).
extern std::atomic<const Params*> g_reported;
const Params& GetParamsSlow();
}  // namespace params_detail

/// The knobs as read at first use (thread-safe). Inline: every call asks.
inline const Params& GetParams() {
  if (const Params* p = params_detail::g_reported.load(std::memory_order_acquire)) return *p;
  return params_detail::GetParamsSlow();
}
/// GetParams without logging malformed settings (for the logger itself, which they configure).
const Params& PeekParams();
/// Reads the environment again (tests and tools; not thread-safe against readers).
void ReloadParams();

/// A knob as weft-info and docs/env.md show it.
struct ParamInfo {
  std::string name, kind, default_value, value, doc;
  bool set_in_env = false;
};
/// Every knob in declaration order, with its current value.
std::vector<ParamInfo> ListParams();
/// docs/env.md's table, generated from params.def.
std::string ParamsMarkdown();

}  // namespace weft
