#include "sharp/sharp.h"

#include <algorithm>
#include <set>

namespace rdmasim {

SharpManager::SharpManager(const Topology& topo, SharpConfig cfg)
    : cfg_(cfg), used_(topo.nodes.size(), 0), adj_(topo.nodes.size()) {
  std::vector<int> endpoint_of(topo.nodes.size(), -1);
  for (int i = 0; i < topo.num_hosts(); ++i) endpoint_of[topo.hosts[i]] = i;
  host_leaf_.assign(topo.num_hosts(), -1);
  for (const TopoLink& l : topo.links) {
    const bool a_sw = topo.nodes[l.a].kind == TopoNodeKind::kSwitch;
    const bool b_sw = topo.nodes[l.b].kind == TopoNodeKind::kSwitch;
    if (a_sw && b_sw) {
      adj_[l.a].push_back(l.b);
      adj_[l.b].push_back(l.a);
    } else if (a_sw != b_sw) {
      const int host = endpoint_of[a_sw ? l.b : l.a];
      host_leaf_[host] = a_sw ? l.a : l.b;
    }
  }
}

std::optional<SharpGroup> SharpManager::allocate(const std::vector<int>& hosts) {
  if (!cfg_.enabled || hosts.empty()) return std::nullopt;
  SharpGroup g;
  g.hosts = hosts;
  std::set<int> leaves;
  for (int h : hosts) {
    if (h < 0 || h >= static_cast<int>(host_leaf_.size()) || host_leaf_[h] < 0) return std::nullopt;
    g.leaf_of.push_back(host_leaf_[h]);
    leaves.insert(host_leaf_[h]);
  }
  auto has_room = [&](int sw) { return used_[sw] < cfg_.max_groups_per_switch; };
  for (int l : leaves)
    if (!has_room(l)) return std::nullopt;
  if (leaves.size() == 1) {
    g.root = *leaves.begin();
  } else {
    // A switch adjacent to every leaf, with room: the lowest-numbered one.
    std::vector<int> candidates = adj_[*leaves.begin()];
    std::sort(candidates.begin(), candidates.end());
    for (int c : candidates) {
      if (!has_room(c)) continue;
      bool all = true;
      for (int l : leaves) all = all && std::find(adj_[l].begin(), adj_[l].end(), c) != adj_[l].end();
      if (all) {
        g.root = c;
        break;
      }
    }
    if (g.root < 0) return std::nullopt;
  }
  g.switches.assign(leaves.begin(), leaves.end());
  if (leaves.size() > 1) g.switches.push_back(g.root);
  for (int s : g.switches) ++used_[s];
  g.id = next_id_++;
  return g;
}

void SharpManager::release(const SharpGroup& g) {
  for (int s : g.switches) --used_[s];
}

}  // namespace rdmasim
