// Count matrices for the alltoallv tests in the simulator (sim_alltoallv_test.cc,
// sim_v_mailbox_test.cc): every rank's blocks known to the test, in count patterns that
// stress the schedules' per-block choices, laid out packed in rank order or reversed with gaps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "sched/algos/node_alltoallv.h"
#include "sim/sim.h"

namespace weft::simtest {

// Every rank's blocks, known to the test: bytes[s][d], send offsets so[s][d], recv
// offsets ro[d][s].
struct Matrix final : sched::VBlocks {
  std::vector<std::vector<uint64_t>> bytes, so, ro;
  uint64_t Bytes(int from, int to) const override { return bytes[from][to]; }
  uint64_t SendOffset(int from, int to) const override { return so[from][to]; }
  uint64_t RecvOffset(int to, int from) const override { return ro[to][from]; }
  uint64_t SendExtent(int s) const {
    uint64_t e = 0;
    for (size_t d = 0; d < bytes.size(); ++d) e = std::max(e, so[s][d] + bytes[s][d]);
    return e;
  }
  uint64_t RecvExtent(int d) const {
    uint64_t e = 0;
    for (size_t s = 0; s < bytes.size(); ++s) e = std::max(e, ro[d][s] + bytes[s][d]);
    return e;
  }
};

// kOneHuge: random sizes with zeros, and one block of 1 MiB + 3 bytes (last rank to rank 0).
enum class Pattern { kUniform, kRandom, kSkewed, kAroundDirect, kEmpty, kOneHuge };
inline const char* PatternName(Pattern p) {
  switch (p) {
    case Pattern::kUniform:
      return "uniform";
    case Pattern::kRandom:
      return "random";
    case Pattern::kSkewed:
      return "skewed";
    case Pattern::kAroundDirect:
      return "around_direct";
    case Pattern::kEmpty:
      return "empty";
    case Pattern::kOneHuge:
      return "one_huge";
  }
  return "?";
}

// Offsets in rank order, packed; or reversed with a 3-byte gap after every block.
inline std::vector<uint64_t> Layout(const std::vector<uint64_t>& sizes, bool reversed) {
  const int P = static_cast<int>(sizes.size());
  std::vector<uint64_t> at(P);
  uint64_t o = 0;
  for (int j = 0; j < P; ++j) {
    const int x = reversed ? P - 1 - j : j;
    at[x] = o;
    o += sizes[x] + (reversed ? 3 : 0);
  }
  return at;
}

// `direct` is the size the kAroundDirect blocks straddle; symmetric: bytes[s][d] == bytes[d][s]
// with one layout for send and receive (in place).
inline Matrix MakeMatrix(int P, Pattern pat, uint64_t direct, bool symmetric, bool reversed,
                         std::mt19937& rng) {
  Matrix m;
  m.bytes.assign(P, std::vector<uint64_t>(P, 0));
  for (int s = 0; s < P; ++s) {
    for (int d = symmetric ? s : 0; d < P; ++d) {
      uint64_t b = 0;
      switch (pat) {
        case Pattern::kUniform:
          b = 24;
          break;
        case Pattern::kRandom:
          b = rng() % 3 == 0 ? 0 : rng() % 200;
          break;
        case Pattern::kSkewed:
          b = s == 1 % P || d == 0 ? 300 + rng() % 50 : rng() % 5;
          break;
        case Pattern::kAroundDirect:
          b = direct - 1 + rng() % 3;
          break;
        case Pattern::kEmpty:
          b = 0;
          break;
        case Pattern::kOneHuge:
          b = s == P - 1 && d == 0 ? (1u << 20) + 3 : rng() % 3 == 0 ? 0 : rng() % 200;
          break;
      }
      m.bytes[s][d] = b;
      if (symmetric) m.bytes[d][s] = b;
    }
  }
  m.so.resize(P);
  m.ro.resize(P);
  for (int r = 0; r < P; ++r) {
    std::vector<uint64_t> out(P), in(P);
    for (int x = 0; x < P; ++x) {
      out[x] = m.bytes[r][x];
      in[x] = m.bytes[x][r];
    }
    m.so[r] = Layout(out, reversed);
    m.ro[r] = Layout(in, reversed);
    if (symmetric) m.so[r] = m.ro[r];  // in place: one layout
  }
  return m;
}

// One rank's random input (its send buffer, or in place its receive buffer) and its expected
// receive buffer before the blocks land: untouched, or in place what the buffer held (the gaps
// keep it).
inline void RandomInput(bool in_place, uint64_t send_bytes, uint64_t recv_bytes, std::mt19937& rng,
                        std::vector<unsigned char>* input, std::vector<unsigned char>* want) {
  input->resize(in_place ? recv_bytes : send_bytes);
  for (auto& byte : *input) byte = static_cast<unsigned char>(rng());
  want->assign(recv_bytes, sim::kUnwritten);
  if (in_place) *want = *input;
}

// The expected receive buffers: every block s sends d, from inputs[s] at so[s][d] into
// (*want)[d] at ro[d][s].
inline void PlaceBlocks(const Matrix& m, const std::vector<std::vector<unsigned char>>& inputs,
                        std::vector<std::vector<unsigned char>>* want) {
  const size_t P = m.bytes.size();
  for (size_t s = 0; s < P; ++s) {
    for (size_t d = 0; d < P; ++d) {
      if (m.bytes[s][d] == 0) continue;
      std::memcpy((*want)[d].data() + m.ro[d][s], inputs[s].data() + m.so[s][d], m.bytes[s][d]);
    }
  }
}

}  // namespace weft::simtest
