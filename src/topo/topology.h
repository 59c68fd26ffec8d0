// Which ranks share a node (discover_topology.h finds it for a communicator). Pure data, no
// MPI: the schedule compiler and the simulator take it as the node map of a call. A Topology
// has a text form that round-trips, so a file can reproduce a machine's layout.
#pragma once

#include <string>
#include <vector>

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
  /// Splits every node into `parts` virtual nodes of contiguous local ranks, or with
  /// round_robin, local rank i to virtual node i mod parts.
  Topology SplitVirtual(int parts, bool round_robin = false) const;
  /// `nodes` nodes of `per_node` ranks: block placement (node n holds ranks n*per_node...) or
  /// round-robin (rank r on node r mod nodes, as `mpiexec --map-by node` places them).
  static Topology Regular(int nodes, int per_node, bool round_robin);
  /// Parses "NxR" (block), "NxR:rr" (round-robin) or "L1+L2+..." (block, uneven: node sizes);
  /// false with the reason in *why.
  static bool FromShape(const std::string& text, Topology* out, std::string* why);
  /// Every node's ranks are consecutive and nodes follow one another in rank order (rank
  /// order then agrees with node-major order, which order-preserving schedules rely on).
  bool BlockPlaced() const;
  /// The largest number of ranks on one node.
  int MaxNodeSize() const;
  /// "2x4", "2x4:rr", "3+1" (nodes in order), or "custom" for any other placement.
  std::string ShapeText() const;
  bool operator==(const Topology& o) const { return node_of_rank == o.node_of_rank; }
};

}  // namespace weft
