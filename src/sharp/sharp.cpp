#include "sharp/sharp.h"

#include <algorithm>
#include <set>

namespace rdmasim {

SharpManager::SharpManager(const Topology& topo, SharpConfig cfg)
    : cfg_(cfg), used_(topo.nodes.size(), 0), adj_(topo.nodes.size()), tier_(topo.nodes.size()) {
  for (size_t n = 0; n < topo.nodes.size(); ++n) tier_[n] = topo.nodes[n].tier;
  std::vector<int> endpoint_of(topo.nodes.size(), -1);
  for (int i = 0; i < topo.num_hosts(); ++i) endpoint_of[topo.hosts[i]] = i;
  host_leaf_.assign(topo.num_hosts(), -1);
  for (const TopoLink& l : topo.links) {
    const bool a_sw = topo.nodes[l.a].kind == TopoNodeKind::kSwitch;
    const bool b_sw = topo.nodes[l.b].kind == TopoNodeKind::kSwitch;
    if (a_sw && b_sw) {
      // A router is no aggregation node and its long link no tree edge: the
      // Aggregation Manager builds trees within one subnet, so a group across
      // routers gets none and its collective runs the host algorithm.
      if (topo.nodes[l.a].router || topo.nodes[l.b].router) continue;
      adj_[l.a].push_back(l.b);
      adj_[l.b].push_back(l.a);
    } else if (a_sw != b_sw) {
      const int host = endpoint_of[a_sw ? l.b : l.a];
      host_leaf_[host] = a_sw ? l.a : l.b;
    }
  }
  // Parallel links (a spine's uplinks to one core) name a neighbour once.
  for (auto& a : adj_) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
}

bool SharpManager::three_levels(const std::vector<int>& leaves, int root, std::vector<int>& mid) const {
  mid.clear();
  for (int l : leaves) {
    int m = -1;
    for (int n : adj_[l]) {  // ascending: the lowest-numbered switch that fits
      if (tier_[n] > tier_[l] && tier_[n] < tier_[root] && used_[n] < cfg_.max_groups_per_switch &&
          std::binary_search(adj_[n].begin(), adj_[n].end(), root)) {
        m = n;
        break;
      }
    }
    if (m < 0) return false;
    mid.push_back(m);
  }
  return true;
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
  g.switches.assign(leaves.begin(), leaves.end());
  g.parent.assign(g.switches.size(), -1);
  if (leaves.size() == 1) {
    g.root = *leaves.begin();
  } else {
    // Two levels: a switch adjacent to every leaf, with room.
    for (int c : adj_[*leaves.begin()]) {
      if (!has_room(c)) continue;
      bool all = true;
      for (int l : leaves) all = all && std::binary_search(adj_[l].begin(), adj_[l].end(), c);
      if (all) {
        g.root = c;
        break;
      }
    }
    if (g.root >= 0) {
      std::fill(g.parent.begin(), g.parent.end(), g.root);
    } else {
      // Three levels: roots two tiers up from the first leaf, lowest first.
      std::set<int> roots;
      for (int n : adj_[*leaves.begin()])
        if (tier_[n] > tier_[*leaves.begin()])
          for (int r : adj_[n])
            if (tier_[r] > tier_[n] && has_room(r)) roots.insert(r);
      std::vector<int> mid;
      for (int r : roots)
        if (three_levels(g.switches, r, mid)) {
          g.root = r;
          break;
        }
      if (g.root < 0) return std::nullopt;
      g.parent = mid;
      std::set<int> mids(mid.begin(), mid.end());
      for (int m : mids) {
        g.switches.push_back(m);
        g.parent.push_back(g.root);
      }
    }
    g.switches.push_back(g.root);
    g.parent.push_back(-1);
  }
  for (int s : g.switches) ++used_[s];
  g.id = next_id_++;
  return g;
}

void SharpManager::release(const SharpGroup& g) {
  for (int s : g.switches) --used_[s];
}

}  // namespace rdmasim
