// Finding a communicator's topology: which ranks share a node, from
// PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED), optionally split into virtual nodes
// (WEFT_VIRTUAL_NODES) so multi-node paths run on one machine.
#pragma once

#include <mpi.h>

#include "topo/topology.h"

namespace weft {

/// Whether ranks outnumber the CPUs they may run on, where MPI says so.
struct Oversubscription {
  /// This rank's machine (the shared-memory node, before any virtual split) runs more of the
  /// communicator's ranks than the CPUs their affinity masks allow together.
  bool machine = false;
  /// The same for this rank's (virtual) node: its ranks alone.
  bool node = false;
};

/// Collective over c: more of c's ranks than the CPUs their affinity masks allow together
/// (false where MPI fails: unknown).
bool RanksOutnumberCpus(MPI_Comm c);

/// Collective over comm: discovers the topology and a communicator of this rank's (virtual)
/// node; `virtual_nodes` parts of each machine, dealt round-robin or in blocks; and *load. On
/// MPI failure returns the MPI error code.
int DiscoverTopology(MPI_Comm comm, int virtual_nodes, bool round_robin, Topology* topo,
                     MPI_Comm* node_comm, Oversubscription* load);

}  // namespace weft
