#include "core/dtype.h"

#include <strings.h>

namespace weft {
namespace {

struct TypeInfo {
  const char* name;
  const char* aliases[4];
};

constexpr TypeInfo kTypes[weftNumTypes] = {
    {"int8", {"char", "i8", nullptr, nullptr}},
    {"uint8", {"u8", nullptr, nullptr, nullptr}},
    {"int32", {"int", "i32", nullptr, nullptr}},
    {"uint32", {"u32", nullptr, nullptr, nullptr}},
    {"int64", {"i64", nullptr, nullptr, nullptr}},
    {"uint64", {"u64", nullptr, nullptr, nullptr}},
    {"half", {"fp16", "float16", nullptr, nullptr}},
    {"float", {"fp32", "float32", nullptr, nullptr}},
    {"double", {"fp64", "float64", nullptr, nullptr}},
    {"bfloat16", {"bf16", nullptr, nullptr, nullptr}},
};

constexpr const char* kOps[weftNumOps] = {"sum", "prod", "max", "min", "avg"};

}  // namespace

const char* TypeName(weftDataType_t t) { return IsValidType(t) ? kTypes[t].name : "invalid"; }

const char* OpName(weftRedOp_t op) { return IsValidOp(op) ? kOps[op] : "invalid"; }

bool ParseType(const std::string& text, weftDataType_t* out) {
  for (int t = 0; t < weftNumTypes; ++t) {
    bool match = strcasecmp(text.c_str(), kTypes[t].name) == 0;
    for (const char* a : kTypes[t].aliases) {
      if (a != nullptr && strcasecmp(text.c_str(), a) == 0) match = true;
    }
    if (match) {
      *out = static_cast<weftDataType_t>(t);
      return true;
    }
  }
  return false;
}

bool ParseOp(const std::string& text, weftRedOp_t* out) {
  for (int o = 0; o < weftNumOps; ++o) {
    if (strcasecmp(text.c_str(), kOps[o]) == 0) {
      *out = static_cast<weftRedOp_t>(o);
      return true;
    }
  }
  return false;
}

bool IsFloatType(weftDataType_t t) {
  return t == weftFloat16 || t == weftBfloat16 || t == weftFloat32 || t == weftFloat64;
}

bool IsSignedInt(weftDataType_t t) { return t == weftInt8 || t == weftInt32 || t == weftInt64; }

}  // namespace weft
