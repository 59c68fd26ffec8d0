// Finding a communicator's topology: which ranks share a node, from
// PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED), optionally split into virtual nodes
// (WEFT_VIRTUAL_NODES) so multi-node paths run on one machine.
#pragma once

#include <mpi.h>

#include "topo/topology.h"

namespace weft {

/// Collective over comm: discovers the topology and a communicator of this rank's (virtual)
/// node; `virtual_nodes` parts of each machine, dealt round-robin or in blocks. On MPI failure
/// returns the MPI error code. *machine_oversubscribed: this rank's machine (the shared-memory
/// node, before any virtual split) runs more of comm's ranks than the CPUs their affinity masks
/// allow together.
int DiscoverTopology(MPI_Comm comm, int virtual_nodes, bool round_robin, Topology* topo,
                     MPI_Comm* node_comm, bool* machine_oversubscribed);

}  // namespace weft
