#include "topo/topology.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace weft {

int Topology::LocalRank(int rank) const {
  const auto& r = ranks_of_node[node_of_rank[rank]];
  return static_cast<int>(std::lower_bound(r.begin(), r.end(), rank) - r.begin());
}

std::string Topology::ToText() const {
  std::ostringstream os;
  os << "weft-topology 1\nranks " << nranks << "\n";
  for (int n = 0; n < num_nodes(); ++n) {
    os << "node " << n << ":";
    for (int r : ranks_of_node[n]) os << " " << r;
    os << "\n";
  }
  return os.str();
}

Topology Topology::FromNodeOfRank(const std::vector<int>& node_of_rank) {
  Topology t;
  t.nranks = static_cast<int>(node_of_rank.size());
  std::map<int, int> dense;  // original id -> id in order of lowest rank
  for (int r = 0; r < t.nranks; ++r) {
    auto [it, fresh] = dense.emplace(node_of_rank[r], static_cast<int>(dense.size()));
    if (fresh) t.ranks_of_node.emplace_back();
    t.node_of_rank.push_back(it->second);
    t.ranks_of_node[it->second].push_back(r);
  }
  return t;
}

bool Topology::FromText(const std::string& text, Topology* out, std::string* why) {
  std::istringstream is(text);
  std::string word;
  int version = 0, nranks = -1;
  if (!(is >> word >> version) || word != "weft-topology" || version != 1) {
    *why = "missing header 'weft-topology 1'";
    return false;
  }
  if (!(is >> word >> nranks) || word != "ranks" || nranks < 0) {
    *why = "missing 'ranks P'";
    return false;
  }
  std::vector<int> node_of(nranks, -1);
  std::string line;
  std::getline(is, line);
  int expect = 0;
  while (std::getline(is, line)) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::string id;
    if (!(ls >> word >> id) || word != "node" || id != std::to_string(expect) + ":") {
      *why = "bad node line '" + line + "'";
      return false;
    }
    int r;
    while (ls >> r) {
      if (r < 0 || r >= nranks || node_of[r] != -1) {
        *why = "rank " + std::to_string(r) + " out of range or listed twice";
        return false;
      }
      node_of[r] = expect;
    }
    ++expect;
  }
  for (int r = 0; r < nranks; ++r) {
    if (node_of[r] < 0) {
      *why = "rank " + std::to_string(r) + " is on no node";
      return false;
    }
  }
  *out = FromNodeOfRank(node_of);
  return true;
}

Topology Topology::SplitVirtual(int parts) const {
  std::vector<int> ids(nranks);
  for (int n = 0; n < num_nodes(); ++n) {
    const auto& rs = ranks_of_node[n];
    int size = static_cast<int>(rs.size());
    int p = std::clamp(parts, 1, size);
    for (int i = 0; i < size; ++i) ids[rs[i]] = n * p + i * p / size;
  }
  return FromNodeOfRank(ids);
}

int DiscoverTopology(MPI_Comm comm, int virtual_nodes, Topology* topo, MPI_Comm* node_comm) {
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
  *topo = physical.SplitVirtual(virtual_nodes);
  if (topo->num_nodes() == physical.num_nodes()) {
    *node_comm = shared;
    return MPI_SUCCESS;
  }
  err = PMPI_Comm_split(shared, topo->node_of_rank[rank], rank, node_comm);
  PMPI_Comm_free(&shared);
  return err;
}

}  // namespace weft
