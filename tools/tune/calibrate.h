// Calibration: measures the cost model's parameters (tune/cost_model.h) on this machine, with
// the MPI and memory the schedules use. What each measures:
//   intra.latency_us / intra.gbytes_per_s   ping-pong over MPI between rank 0 and a rank of its
//       node (as weft sees nodes): half the round trip of 8 B; 4 MiB over (half trip - latency)
//   inter.latency_us / inter.gbytes_per_s   the same with the first rank of another node
//   message_overhead_us   64 small sends posted at once against one: the extra time per send
//   counter_wait_us       a counter in MPI shared memory handed back and forth between two
//       ranks of one machine: half the round trip (what a node phase's wait costs)
//   copy_gbytes_per_s     memcpy of 4 MiB on rank 0
//   reduce_gbytes_per_s / reduce_half_gbytes_per_s   weft's reduce kernel (sum, 1 MiB into
//       1 MiB) on fp32 / fp16: bytes read per second
// Every rank calls it; rank 0's values are broadcast so all hold the same.
#pragma once

#include <string>
#include <vector>

#include "comm/comm.h"
#include "tune/wisdom.h"

namespace weft::tune_tool {

/// Measures the parameters; *notes gets one line per measurement for the wisdom's comments.
std::vector<tune::WisdomParam> Calibrate(Comm& comm, std::vector<std::string>* notes);

}  // namespace weft::tune_tool
