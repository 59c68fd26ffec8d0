#include "tensor_args.h"

#include <stdexcept>
#include <string>

namespace weft_torch {

weftDataType_t TypeOf(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kChar:
      return weftInt8;
    case at::kByte:
      return weftUint8;
    case at::kInt:
      return weftInt32;
    case at::kLong:
      return weftInt64;
    case at::kHalf:
      return weftFloat16;
    case at::kBFloat16:
      return weftBfloat16;
    case at::kFloat:
      return weftFloat32;
    case at::kDouble:
      return weftFloat64;
    default:
      throw std::invalid_argument(std::string("weft backend: dtype ") +
                                  c10::toString(t.scalar_type()) +
                                  " is not supported (int8, uint8, int32, int64, float16, "
                                  "bfloat16, float32, float64 are)");
  }
}

weftRedOp_t OpOf(int red_op_type) {
  // c10d::ReduceOp::RedOpType: SUM 0, AVG 1, PRODUCT 2, MIN 3, MAX 4, BAND 5, BOR 6, BXOR 7,
  // PREMUL_SUM 8.
  switch (red_op_type) {
    case 0:
      return weftSum;
    case 1:
      return weftAvg;
    case 2:
      return weftProd;
    case 3:
      return weftMin;
    case 4:
      return weftMax;
    default:
      throw std::invalid_argument(
          "weft backend: this ReduceOp is not supported (SUM, AVG, PRODUCT, MIN and MAX are; "
          "not BAND, BOR, BXOR or PREMUL_SUM)");
  }
}

void CheckTensor(const at::Tensor& t, const char* what) {
  if (!t.defined())
    throw std::invalid_argument(std::string("weft backend: ") + what + ": undefined tensor");
  if (!t.device().is_cpu()) {
    throw std::invalid_argument(std::string("weft backend: ") + what +
                                ": only CPU tensors are supported, got " + t.device().str());
  }
  (void)TypeOf(t);
}

void CheckSameShape(const std::vector<at::Tensor>& ts, const at::Tensor& like, const char* what) {
  for (const at::Tensor& t : ts) {
    CheckTensor(t, what);
    if (t.scalar_type() != like.scalar_type() || t.numel() != like.numel()) {
      throw std::invalid_argument(std::string("weft backend: ") + what +
                                  ": every tensor needs the dtype and size of the input");
    }
  }
}

Staged::Staged(const at::Tensor& t) : user(t), flat(t.is_contiguous() ? t : t.contiguous()) {}

void Staged::CopyBack() const {
  if (!flat.is_same(user)) user.copy_(flat.view(user.sizes()));
}

}  // namespace weft_torch
