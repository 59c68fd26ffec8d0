// Which ranks share a node. Built from PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED), optionally
// split into virtual nodes (WEFT_VIRTUAL_NODES) so multi-node paths run on one machine. A
// Topology has a text form that round-trips, so a file can reproduce a machine's layout.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace weft {

/// Node membership of every rank of a communicator.
struct Topology {
  int nranks = 0;
  /// Dense node id of each rank; node ids are numbered by their lowest rank.
  std::vector<int> node_of_rank;
  /// Ranks of each node, ascending.
  std::vector<std::vector<int>> ranks_of_node;

  int num_nodes() const { return static_cast<int>(ranks_of_node.size()); }
  /// Index of `rank` within its node.
  int LocalRank(int rank) const;

  /// Text form: "weft-topology 1", "ranks P", then one "node i: r r r" line per node.
  std::string ToText() const;
  /// Parses ToText's form; on failure returns false with the reason in *why.
  static bool FromText(const std::string& text, Topology* out, std::string* why);
  /// Builds node lists from node_of_rank (renumbering nodes by their lowest rank).
  static Topology FromNodeOfRank(const std::vector<int>& node_of_rank);
  /// Splits every node into `parts` virtual nodes of contiguous local ranks.
  Topology SplitVirtual(int parts) const;
  bool operator==(const Topology& o) const { return node_of_rank == o.node_of_rank; }
};

/// Collective over comm: discovers the topology and a communicator of this rank's (virtual)
/// node. On MPI failure returns the MPI error code in *mpi_err.
int DiscoverTopology(MPI_Comm comm, int virtual_nodes, Topology* topo, MPI_Comm* node_comm);

}  // namespace weft
