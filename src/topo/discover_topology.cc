#include "topo/discover_topology.h"

#include <sched.h>

#include <vector>

namespace weft {

bool RanksOutnumberCpus(MPI_Comm c) {
  // The union of the ranks' affinity masks (a launcher that binds each rank to its own core
  // gives each a one-CPU mask, which is not oversubscription).
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof(mine), &mine) != 0) CPU_ZERO(&mine);
  if (PMPI_Allreduce(&mine, &all, sizeof(cpu_set_t), MPI_BYTE, MPI_BOR, c) != MPI_SUCCESS) {
    return false;  // unknown: treated as not oversubscribed, as an empty mask is
  }
  int ranks = 1;
  PMPI_Comm_size(c, &ranks);
  const int cpus = CPU_COUNT(&all);
  return cpus > 0 && ranks > cpus;
}

int DiscoverTopology(MPI_Comm comm, int virtual_nodes, bool round_robin, Topology* topo,
                     MPI_Comm* node_comm, Oversubscription* load) {
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
  load->machine = RanksOutnumberCpus(shared);
  const Topology physical = Topology::FromNodeOfRank(leaders);
  *topo = physical.SplitVirtual(virtual_nodes, round_robin);
  if (topo->num_nodes() == physical.num_nodes()) {
    *node_comm = shared;
    load->node = load->machine;
    return MPI_SUCCESS;
  }
  err = PMPI_Comm_split(shared, topo->node_of_rank[rank], rank, node_comm);
  PMPI_Comm_free(&shared);
  if (!err) load->node = RanksOutnumberCpus(*node_comm);
  return err;
}

}  // namespace weft
