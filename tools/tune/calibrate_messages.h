// Calibration's per-message costs, LogGP's o and g: what a sender's and a receiver's core spend
// on each message, and the least time a node's network link spends on one (calibrate.h lists
// the parameters; docs/tuning.md how each is measured).
#pragma once

#include <mpi.h>

#include "topo/topology.h"

namespace weft::tune_tool {

/// On rank a: the time per send of 64 8-byte sends posted together to b, beyond one alone
/// (message_overhead_us); -1 off the pair.
double MessageOverheadUs(MPI_Comm comm, int me, int a, int b);
/// On rank b: the time per receive of 64 8-byte messages from a that have already arrived,
/// posted and completed together, beyond one alone (recv_overhead_us); -1 off the pair.
double RecvOverheadUs(MPI_Comm comm, int me, int a, int b);
/// On world rank 0: the time per message of a node's link (link_message_us) where every rank of
/// rank 0's node sends 64 8-byte messages at once, each to the rank of the same local index on
/// `other`'s node, beyond one message each, divided by the messages of the node; -1 on other
/// ranks and where there is no other node. Every rank of comm calls it.
double LinkMessageUs(MPI_Comm comm, const Topology& topo, int me, int other);

}  // namespace weft::tune_tool
