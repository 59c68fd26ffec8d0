// The simulator: the Programs of all P ranks of one collective run in one process, on random
// data, with message matching (a send completes only against its receive, as under rendezvous,
// so any schedule that could hang under MPI hangs here too) and one address space for the
// shared-memory spaces. It reports a deadlock (which ranks wait on what), a size mismatch, a
// modified send buffer or the first wrong element; and it replays the programs under a cost
// model to predict the time. It is the oracle for every generator at any P.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sched/coll_spec.h"
#include "sched/ir/program.h"
#include "tune/cost_model.h"

namespace weft::sim {

/// How to run.
struct SimOptions {
  bool check_data = true;  // false: timing only (no buffers; for shapes too big for memory)
  uint64_t seed = 1;
  tune::CostModel model;
  /// Given (one entry per rank), each rank's send-buffer contents and expected receive-buffer
  /// contents replace the spec's generated input and reference: for calls the reference does
  /// not know (alltoallv). Bytes a program must leave alone are expected to hold kUnwritten.
  const std::vector<std::vector<unsigned char>>* inputs = nullptr;
  const std::vector<std::vector<unsigned char>>* expected = nullptr;
  /// In place, where each rank's receive buffer starts in its send buffer, one entry per rank:
  /// for blocks of unequal size (reduce_scatterv). Null: the spec's equal blocks.
  const std::vector<uint64_t>* in_place_recv_at = nullptr;
  /// Calls run back to back, each rank starting its next call when it ends the last (a
  /// benchmark's or the tuner's loop); predicted_us is then the time per call after the first:
  /// (the last rank's end of the last call - the last rank's end of the first) / (calls - 1).
  /// A rank that only sends runs ahead of its peers, so the next call hides the latency of its
  /// messages, which one call pays in full (the tree's 8 B bcast at 2 ranks: 0.9 us for one
  /// call, 0.33-0.42 measured in loops). More than 1 needs check_data false.
  int calls = 1;
};

/// What the simulator fills every buffer with before a run (inputs aside).
inline constexpr unsigned char kUnwritten = 0xEE;

/// What happened.
struct SimResult {
  bool pass = false;
  std::string why;  // "" on PASS; else the first failure
  double predicted_us = 0;
  uint64_t messages = 0, bytes_sent = 0;
};

/// Runs programs (one per rank, indexed by rank) for spec, the rank with the earliest clock first.
SimResult Simulate(const sched::CollSpec& spec, const std::vector<ir::Program>& programs,
                   const SimOptions& opt);

/// Bytes of memory a data-checking simulation of spec would use (for choosing timing only).
uint64_t SimFootprintBytes(const sched::CollSpec& spec, const std::vector<ir::Program>& programs);

}  // namespace weft::sim
