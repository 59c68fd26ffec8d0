#include "topo/discover_topology.h"

#include <vector>

namespace weft {

int DiscoverTopology(MPI_Comm comm, int virtual_nodes, bool round_robin, Topology* topo,
                     MPI_Comm* node_comm) {
  int rank = 0, size = 0, err;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  MPI_Comm shared = MPI_COMM_NULL;
  if ((err = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared))) {
    return err;
  }
  // A node is named by its lowest rank in comm.
  int leader = rank;
  err = PMPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared);
  std::vector<int> leaders(size);
  if (!err) err = PMPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
  if (err) {
    PMPI_Comm_free(&shared);
    return err;
  }
  const Topology physical = Topology::FromNodeOfRank(leaders);
  *topo = physical.SplitVirtual(virtual_nodes, round_robin);
  if (topo->num_nodes() == physical.num_nodes()) {
    *node_comm = shared;
    return MPI_SUCCESS;
  }
  err = PMPI_Comm_split(shared, topo->node_of_rank[rank], rank, node_comm);
  PMPI_Comm_free(&shared);
  return err;
}

}  // namespace weft
