#include "sim/reference.h"

#include <cstring>
#include <random>

#include "core/dtype.h"
#include "core/half.h"
#include "exec/kway_reduce.h"
#include "sched/ir/program.h"

namespace weft::sim {

using sched::Coll;

void FillInput(const sched::CollSpec& spec, int rank, uint64_t seed, unsigned char* data,
               uint64_t bytes) {
  std::mt19937_64 rng(seed * 1000003u + static_cast<uint64_t>(rank) * 7919u + 17);
  const uint64_t es = sched::ElemBytes(spec), n = bytes / es;
  const bool product = spec.op == weftProd;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    // Sums of +-1 and 0 stay exact in bf16 for the rank counts tested; products of +-1 stay
    // exact everywhere; the matrix op uses full 16-bit entries (its arithmetic is exact).
    const int v = product ? ((r & 1) ? 1 : -1) : static_cast<int>(r % 3) - 1;
    unsigned char* p = data + i * es;
    if (spec.op == ir::kOpMatMul2x2) {
      std::memcpy(p, &r, 8);
      continue;
    }
    switch (spec.dtype) {
      case weftFloat16: {
        uint16_t h = FloatToHalf(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case weftBfloat16: {
        uint16_t h = FloatToBf16(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case weftFloat32: {
        float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
        break;
      }
      case weftFloat64: {
        double d = v;
        std::memcpy(p, &d, 8);
        break;
      }
      default: {
        // Integers: wider values exercise wrap-around in the small types (wrapping sums are
        // exact in any order).
        const int64_t x = product ? v : static_cast<int64_t>(r >> 8) % 1000 - 500;
        std::memcpy(p, &x, es);  // little-endian: the low bytes
        break;
      }
    }
  }
}

namespace {

// memcpy with a null pointer is undefined even for 0 bytes, and empty inputs have none.
void CopyBytes(void* dst, const void* src, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
}

}  // namespace

std::vector<unsigned char> Expected(const sched::CollSpec& spec, int rank,
                                    const std::vector<std::vector<unsigned char>>& in) {
  const int P = spec.nranks;
  const uint64_t es = sched::ElemBytes(spec), blk = spec.count * es;
  std::vector<unsigned char> out(sched::RecvBytes(spec, rank));
  auto reduce_range = [&](uint64_t offset, uint64_t bytes, unsigned char* dst) {
    std::vector<const void*> srcs(P);
    for (int q = 0; q < P; ++q) srcs[q] = in[q].data() + offset;
    // Rank order, pairwise left to right (k-way in one call would round fp16 once; two at a
    // time matches the exactness argument of FillInput either way).
    CopyBytes(dst, srcs[0], bytes);
    for (int q = 1; q < P; ++q) {
      const void* two[2] = {dst, srcs[q]};
      KWayReduce(dst, two, 2, bytes / es, spec.dtype, spec.op);
    }
  };
  switch (spec.coll) {
    case Coll::kAllReduce:
      reduce_range(0, blk, out.data());
      break;
    case Coll::kReduce:
      if (rank == spec.root) reduce_range(0, blk, out.data());
      break;
    case Coll::kReduceScatter:
      reduce_range(rank * blk, blk, out.data());
      break;
    case Coll::kBroadcast:
      CopyBytes(out.data(), in[spec.root].data(), blk);
      break;
    case Coll::kAllGather:
      for (int q = 0; q < P; ++q) CopyBytes(out.data() + q * blk, in[q].data(), blk);
      break;
    case Coll::kAllToAll:
      for (int q = 0; q < P; ++q) CopyBytes(out.data() + q * blk, in[q].data() + rank * blk, blk);
      break;
    case Coll::kGather:
      if (rank != spec.root) break;
      for (int q = 0; q < P; ++q) CopyBytes(out.data() + q * blk, in[q].data(), blk);
      break;
    case Coll::kScatter:
      CopyBytes(out.data(), in[spec.root].data() + rank * blk, blk);
      break;
    case Coll::kScan:
    case Coll::kExScan:
      return ExpectedPrefixes(spec, in)[rank];
  }
  return out;
}

std::vector<std::vector<unsigned char>> ExpectedPrefixes(
    const sched::CollSpec& spec, const std::vector<std::vector<unsigned char>>& in) {
  const uint64_t es = sched::ElemBytes(spec), blk = spec.count * es;
  std::vector<std::vector<unsigned char>> out(spec.nranks);
  std::vector<unsigned char> prefix(blk);  // in_0 op ... op in_r, left to right
  for (int r = 0; r < spec.nranks; ++r) {
    if (spec.coll == Coll::kExScan && r > 0) out[r] = prefix;
    if (r == 0) {
      CopyBytes(prefix.data(), in[0].data(), blk);
    } else {
      const void* two[2] = {prefix.data(), in[r].data()};
      KWayReduce(prefix.data(), two, 2, blk / es, spec.dtype, spec.op);
    }
    if (spec.coll == Coll::kScan) out[r] = prefix;
  }
  return out;
}

}  // namespace weft::sim
