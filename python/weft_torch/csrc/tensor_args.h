// Tensors as weft sees them (ATen only, no c10d: the same for every torch version): dtype and
// op mapping with clear errors, and a contiguous CPU view of a tensor that copies results back
// into a non-contiguous original.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "weft/weft.h"

namespace weft_torch {

/// weft's datatype for a tensor's dtype; throws for dtypes weft does not have (bool, int16,
/// complex, ...).
weftDataType_t TypeOf(const at::Tensor& t);
/// weft's op for torch's c10d::ReduceOp::RedOpType value; throws for BAND, BOR, BXOR,
/// PREMUL_SUM.
weftRedOp_t OpOf(int red_op_type);
/// Throws unless t is a CPU tensor weft can serve.
void CheckTensor(const at::Tensor& t, const char* what);
/// Every tensor of the list has the dtype and number of elements of the first.
void CheckSameShape(const std::vector<at::Tensor>& ts, const at::Tensor& like, const char* what);

/// A contiguous tensor to run weft on, and where its result goes afterwards.
struct Staged {
  at::Tensor user;  ///< the caller's tensor
  at::Tensor flat;  ///< contiguous: the same storage when user already is
  /// Stages t (a copy when it is not contiguous).
  explicit Staged(const at::Tensor& t);
  /// Copies the result back into user when flat is a copy.
  void CopyBack() const;
};

}  // namespace weft_torch
