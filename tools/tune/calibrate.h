// Calibration: measures the cost model's parameters (tune/cost_model.h) on this machine, with
// the MPI and memory the schedules use. What each measures:
//   intra.latency_us      ping-pong over MPI between rank 0 and a rank of its node (as weft
//       sees nodes): half the round trip of 8 B
//   intra.gbytes_per_s    16 MiB sent both ways at once, bytes over (time - latency): schedules
//       exchange, and large calls come from memory, not cache
//   intra.eager_bytes / intra.rendezvous_us   ping-pongs from 256 B to 256 KiB: the largest
//       step in time between doubling sizes beyond what the bytes explain (MPI's switch from
//       eager to rendezvous), bisected to 64 bytes
//   intra.eager_gbytes_per_s   below that limit, bytes over the half round trip they add from
//       256 B to the largest ping-pong size under it
//   inter.*               the same between rank 0 and the first rank of another node
//   message_overhead_us   64 small sends posted at once against one: the extra time per send
//   intra.recv_overhead_us / inter.recv_overhead_us   64 small messages from a rank of the
//       node / another node, already arrived (waiting in the unexpected queue), received
//       together against one: the extra time per receive
//   link_message_us       every rank of rank 0's node sends 64 small messages at once to its
//       counterpart on another node, against one each: the extra time per message of the node
//       (the link's gap; where the node's senders cannot fill the link, their o_s over their
//       number, an upper bound)
//   counter_wait_us       a counter in MPI shared memory handed back and forth between two
//       ranks of one machine: half the round trip (what a node phase's wait costs)
//   call_overhead_us      rank 0 and its partner on a weft communicator of their own: an 8 B
//       allreduce by one exchange (rexch:2) against the same exchange in MPI, per call
//   copy_gbytes_per_s     memcpy of buffers twice the last-level cache, on every rank at once
//       (a collective's ranks share the machine's memory bandwidth); rank 0's rate
//   reduce_gbytes_per_s / reduce_half_gbytes_per_s   weft's reduce kernel (sum, one such
//       buffer into another) on fp32 / fp16, every rank at once: bytes read per second
//   compute_cached_bytes / reduce_cached_gbytes_per_s   memcpy with working sets from 128 KiB
//       to 16 MiB, every rank at once: the largest within 80% of the best rate; and the fp32
//       reduce kernel with that working set
//   handover_gbytes_per_s   a chunk copied into a shared slot by local rank 0 and out of it by
//       local rank 1, in turns (what a shared-memory schedule's copies cost between cores)
//   single_copy_us        process_vm_readv of 64 B, local ranks 0 and 1 reading each other at
//       once, on rank 0
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
