// Element types and reduction operators: sizes, names, parsing, and validity checks.
#pragma once

#include <cstddef>
#include <string>

#include "weft/weft.h"

namespace weft {

/// True for a value of weftDataType_t that names a type.
inline bool IsValidType(int t) { return t >= 0 && t < weftNumTypes; }
/// True for a value of weftRedOp_t that names an operator.
inline bool IsValidOp(int op) { return op >= 0 && op < weftNumOps; }
/// Bytes per element of each weftDataType_t, in the enum's order.
inline constexpr size_t kTypeSizes[weftNumTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
/// Bytes per element (0 for an invalid type). Inline: every call asks several times.
inline size_t TypeSize(weftDataType_t t) { return IsValidType(t) ? kTypeSizes[t] : 0; }
/// Short name as used by tools: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16.
const char* TypeName(weftDataType_t t);
/// Operator name: sum prod max min avg.
const char* OpName(weftRedOp_t op);
/// Parses a type name (also nccl-tests' names and aliases such as fp16, bf16, fp32, fp64).
bool ParseType(const std::string& text, weftDataType_t* out);
/// Parses an operator name.
bool ParseOp(const std::string& text, weftRedOp_t* out);
/// True for fp16, bf16, fp32, fp64.
bool IsFloatType(weftDataType_t t);
/// True for the signed integer types.
bool IsSignedInt(weftDataType_t t);

}  // namespace weft
