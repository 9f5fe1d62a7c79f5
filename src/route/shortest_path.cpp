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
  const auto is_down = [&](int n, size_t i) { return down != nullptr && (*down)[n][i] != 0; };
  std::vector<int> dist(t.nodes.size());
  std::vector<int> queue;
  queue.reserve(t.nodes.size());
  std::vector<uint16_t> group;

  // A host on one working link to switch e is reached only through e, so its
  // distance from any other node is one more than e's: away from e, every
  // host under e has the same next hops. One search per such switch, not per
  // host, keeps the build at switches x (switches + links) instead of
  // hosts x (switches + links) (k=64 fat-tree: 2,048 searches, not 65,536).
  std::vector<std::vector<int>> under(t.nodes.size());  // switch -> destinations on one link to it
  std::vector<int> alone;                               // every other destination
  for (int d = 0; d < t.num_hosts(); ++d) {
    const int h = t.hosts[d];
    const bool single = adj[h].size() == 1 && !is_down(h, 0);
    const int e = single ? adj[h][0].first : -1;
    if (single && t.nodes[e].kind == TopoNodeKind::kSwitch &&
        !is_down(e, static_cast<size_t>(adj[h][0].second)))
      under[e].push_back(d);
    else
      alone.push_back(d);
  }
  for (size_t e = 0; e < t.nodes.size(); ++e) {
    if (under[e].empty()) continue;
    distances_to(t, adj, down, static_cast<int>(e), dist, queue);
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      if (n == e || dist[n] < 0 || !routed(n)) continue;
      group.clear();
      for (size_t i = 0; i < adj[n].size(); ++i) {
        const int m = adj[n][i].first;
        if (!is_down(static_cast<int>(n), i) && t.nodes[m].kind == TopoNodeKind::kSwitch &&
            dist[m] == dist[n] - 1)
          group.push_back(static_cast<uint16_t>(i));
      }
      const uint32_t g = tables[n].set(under[e].front(), group);
      for (const int d : under[e]) tables[n].assign(d, g);
    }
    // At e itself: the port down to each host.
    for (const int d : under[e]) {
      const int h = t.hosts[d];
      tables[e].set(d, {static_cast<uint16_t>(adj[h][0].second)});
    }
  }
  // Multi-port NICs and hosts behind a failed link: a search of their own.
  for (const int d : alone) {
    distances_to(t, adj, down, t.hosts[d], dist, queue);
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      if (static_cast<int>(n) == t.hosts[d] || dist[n] <= 0 || !routed(n)) continue;
      group.clear();
      for (size_t i = 0; i < adj[n].size(); ++i) {
        if (is_down(static_cast<int>(n), i)) continue;
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
