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

Topology Topology::SplitVirtual(int parts, bool round_robin) const {
  std::vector<int> ids(nranks);
  for (int n = 0; n < num_nodes(); ++n) {
    const auto& rs = ranks_of_node[n];
    int size = static_cast<int>(rs.size());
    int p = std::clamp(parts, 1, size);
    for (int i = 0; i < size; ++i) ids[rs[i]] = n * p + (round_robin ? i % p : i * p / size);
  }
  return FromNodeOfRank(ids);
}

Topology Topology::Regular(int nodes, int per_node, bool round_robin) {
  std::vector<int> ids(static_cast<size_t>(nodes) * per_node);
  for (int r = 0; r < static_cast<int>(ids.size()); ++r) {
    ids[r] = round_robin ? r % nodes : r / per_node;
  }
  return FromNodeOfRank(ids);
}

bool Topology::FromShape(const std::string& text, Topology* out, std::string* why) {
  // Sizes are bounded so that a typo cannot ask for billions of ranks.
  constexpr long kMaxRanks = 1 << 20;
  auto number = [](const std::string& t, long* v) {
    if (t.empty() || t.size() > 7 || t.find_first_not_of("0123456789") != std::string::npos) {
      return false;
    }
    *v = std::stol(t);
    return *v >= 1;
  };
  std::string body = text;
  bool rr = false;
  if (body.size() > 3 && body.compare(body.size() - 3, 3, ":rr") == 0) {
    rr = true;
    body.resize(body.size() - 3);
  }
  const size_t x = body.find('x');
  long nodes = 0, per = 0;
  if (x != std::string::npos) {
    if (!number(body.substr(0, x), &nodes) || !number(body.substr(x + 1), &per) ||
        nodes * per > kMaxRanks) {
      *why = "'" + text + "': want NODESxRANKS with both at least 1 (at most 2^20 ranks)";
      return false;
    }
    *out = Regular(static_cast<int>(nodes), static_cast<int>(per), rr);
    return true;
  }
  if (rr) {
    *why = "'" + text + "': :rr goes with NODESxRANKS";
    return false;
  }
  std::vector<int> ids;
  std::istringstream is(body);
  std::string part;
  int node = 0;
  while (std::getline(is, part, '+')) {
    long size = 0;
    if (!number(part, &size) || static_cast<long>(ids.size()) + size > kMaxRanks) {
      *why = "'" + text + "': want NODESxRANKS[:rr] or node sizes like 3+1";
      return false;
    }
    ids.insert(ids.end(), size, node++);
  }
  if (ids.empty()) {
    *why = "'" + text + "': no nodes";
    return false;
  }
  *out = FromNodeOfRank(ids);
  return true;
}

bool Topology::BlockPlaced() const {
  for (int r = 1; r < nranks; ++r) {
    if (node_of_rank[r] != node_of_rank[r - 1] && node_of_rank[r] != node_of_rank[r - 1] + 1) {
      return false;
    }
  }
  return true;
}

int Topology::MaxNodeSize() const {
  size_t m = 0;
  for (const auto& rs : ranks_of_node) m = std::max(m, rs.size());
  return static_cast<int>(m);
}

std::string Topology::ShapeText() const {
  const int n = num_nodes(), per = MaxNodeSize();
  bool equal = true, block = true, round_robin = true;
  for (const auto& rs : ranks_of_node) equal &= static_cast<int>(rs.size()) == per;
  for (int r = 0; r < nranks; ++r) {  // node ids follow the lowest rank, as Regular makes them
    block &= node_of_rank[r] == r / per;
    round_robin &= node_of_rank[r] == r % n;
  }
  const std::string nxr = std::to_string(n) + "x" + std::to_string(per);
  if (equal && block) return nxr;
  if (equal && round_robin) return nxr + ":rr";
  if (!BlockPlaced()) return "custom";
  std::string s;
  for (const auto& rs : ranks_of_node) {
    if (!s.empty()) s += '+';
    s += std::to_string(rs.size());
  }
  return s;
}

}  // namespace weft
