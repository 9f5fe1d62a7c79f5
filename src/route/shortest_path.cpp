#include "route/shortest_path.h"

#include <queue>

namespace rdmasim {

std::vector<std::vector<std::pair<int, int>>> port_adjacency(const Topology& t) {
  std::vector<std::vector<std::pair<int, int>>> adj(t.nodes.size());
  for (const auto& l : t.links) {
    const int pa = static_cast<int>(adj[l.a].size());
    const int pb = static_cast<int>(adj[l.b].size());
    adj[l.a].emplace_back(l.b, pb);
    adj[l.b].emplace_back(l.a, pa);
  }
  return adj;
}

namespace {

// BFS distances (in links) to `dst_node`, never passing through other hosts.
void distances_to(const Topology& t, const std::vector<std::vector<std::pair<int, int>>>& adj,
                  const std::vector<std::vector<char>>* down, int dst_node, std::vector<int>& dist,
                  std::vector<int>& queue) {
  std::fill(dist.begin(), dist.end(), -1);
  queue.clear();
  dist[dst_node] = 0;
  queue.push_back(dst_node);
  for (size_t head = 0; head < queue.size(); ++head) {
    const int n = queue[head];
    if (n != dst_node && t.nodes[n].kind == TopoNodeKind::kHost) continue;
    for (size_t i = 0; i < adj[n].size(); ++i) {
      if (down && (*down)[n][i]) continue;
      const int m = adj[n][i].first;
      if (dist[m] < 0) {
        dist[m] = dist[n] + 1;
        queue.push_back(m);
      }
    }
  }
}

}  // namespace

std::vector<RouteTable> shortest_path_routes(const Topology& t, const std::vector<std::vector<char>>* down) {
  const auto adj = port_adjacency(t);
  std::vector<RouteTable> tables(t.nodes.size());
  // A single-port NIC has nothing to choose: no table (hosts x hosts entries otherwise).
  auto routed = [&](size_t n) { return t.nodes[n].kind == TopoNodeKind::kSwitch || adj[n].size() > 1; };
  for (size_t n = 0; n < t.nodes.size(); ++n)
    if (routed(n)) tables[n].reset(t.num_hosts());
  std::vector<int> dist(t.nodes.size());
  std::vector<int> queue;
  queue.reserve(t.nodes.size());
  std::vector<uint16_t> group;
  for (int d = 0; d < t.num_hosts(); ++d) {
    distances_to(t, adj, down, t.hosts[d], dist, queue);
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      if (static_cast<int>(n) == t.hosts[d] || dist[n] <= 0 || !routed(n)) continue;
      group.clear();
      for (size_t i = 0; i < adj[n].size(); ++i) {
        if (down && (*down)[n][i]) continue;
        const int m = adj[n][i].first;
        // A host neighbour is a next hop only if it is the destination.
        if (dist[m] == dist[n] - 1 && (t.nodes[m].kind == TopoNodeKind::kSwitch || m == t.hosts[d]))
          group.push_back(static_cast<uint16_t>(i));
      }
      tables[n].set(d, group);
    }
  }
  for (auto& tb : tables) tb.freeze();
  return tables;
}

int path_links(const Topology& t, int src_host, int dst_host) {
  const auto adj = port_adjacency(t);
  std::vector<int> dist(t.nodes.size());
  std::vector<int> queue;
  distances_to(t, adj, nullptr, t.hosts[dst_host], dist, queue);
  return dist[t.hosts[src_host]];
}

}  // namespace rdmasim
