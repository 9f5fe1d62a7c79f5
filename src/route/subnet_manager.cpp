#include "route/subnet_manager.h"

#include <algorithm>
#include <limits>

#include "route/shortest_path.h"

namespace rdmasim {

const char* routing_engine_name(RoutingEngine e) {
  switch (e) {
    case RoutingEngine::kMinHop:
      return "minhop";
    case RoutingEngine::kUpDown:
      return "updn";
    case RoutingEngine::kFtree:
      return "ftree";
  }
  return "?";
}

namespace {

constexpr int kInf = std::numeric_limits<int>::max() / 4;

struct Graph {
  const Topology& t;
  std::vector<std::vector<std::pair<int, int>>> adj;
  const std::vector<std::vector<char>>* down;
  [[nodiscard]] bool alive(size_t n, size_t i) const { return down == nullptr || !(*down)[n][i]; }
  [[nodiscard]] bool is_host(int n) const { return t.nodes[n].kind == TopoNodeKind::kHost; }
};

// Switch ranks as OpenSM's up/down engine sets them: the roots are the
// switches farthest from any endpoint (the spines/cores of a Clos), and a
// switch's rank is its distance from the nearest root. Moving to a lower
// (rank, node id) is "up". Each subnet has its own manager, hence its own
// roots (its sites may differ in depth, as after a failure).
std::vector<int> switch_ranks(const Graph& g) {
  const size_t n_nodes = g.t.nodes.size();
  std::vector<int> from_host(n_nodes, -1), queue;
  for (int h : g.t.hosts) {
    from_host[h] = 0;
    queue.push_back(h);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const int n = queue[head];
    for (size_t i = 0; i < g.adj[n].size(); ++i) {
      const int m = g.adj[n][i].first;
      if (!g.alive(n, i) || g.is_host(m) || from_host[m] >= 0) continue;
      from_host[m] = from_host[n] + 1;
      queue.push_back(m);
    }
  }
  std::vector<int> top;  // per subnet
  for (size_t n = 0; n < n_nodes; ++n) {
    const auto sub = static_cast<size_t>(g.t.nodes[n].subnet);
    if (sub >= top.size()) top.resize(sub + 1, -1);
    top[sub] = std::max(top[sub], from_host[n]);
  }
  std::vector<int> rank(n_nodes, kInf);
  queue.clear();
  for (size_t n = 0; n < n_nodes; ++n)
    if (!g.is_host(static_cast<int>(n)) && from_host[n] >= 0 &&
        from_host[n] == top[static_cast<size_t>(g.t.nodes[n].subnet)]) {
      rank[n] = 0;
      queue.push_back(static_cast<int>(n));
    }
  for (size_t head = 0; head < queue.size(); ++head) {
    const int n = queue[head];
    for (size_t i = 0; i < g.adj[n].size(); ++i) {
      const int m = g.adj[n][i].first;
      if (!g.alive(n, i) || g.is_host(m) || rank[m] != kInf) continue;
      rank[m] = rank[n] + 1;
      queue.push_back(m);
    }
  }
  return rank;
}

// One subnet manager's tables for the endpoints of its own subnet, in every
// subnet at once: `down` marks the links between subnets as well as failed
// ones, so no search crosses a router's long link.
void route_local(const Topology& t, const SubnetManagerConfig& cfg, const Graph& g,
                 std::vector<RouteTable>& tables) {
  const size_t n_nodes = t.nodes.size();
  const std::vector<int> rank = switch_ranks(g);
  auto key = [&](int n) { return static_cast<int64_t>(rank[n]) * static_cast<int64_t>(n_nodes) + n; };
  // Switches from the roots down, for the two dynamic programs below.
  std::vector<int> order;
  for (size_t n = 0; n < n_nodes; ++n)
    if (!g.is_host(static_cast<int>(n)) && rank[n] != kInf) order.push_back(static_cast<int>(n));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  int max_rank = 0;
  for (int n : order) max_rank = std::max(max_rank, rank[n]);

  // ftree: the number of up-ports at each level (0 = leaves), whose product
  // below a level is that level's digit stride in the destination index.
  std::vector<int64_t> stride(static_cast<size_t>(max_rank) + 1, 1);
  if (cfg.engine == RoutingEngine::kFtree) {
    std::vector<int64_t> ups(static_cast<size_t>(max_rank) + 1, 1);
    for (int n : order) {
      int64_t u = 0;
      for (size_t i = 0; i < g.adj[n].size(); ++i) {
        const int m = g.adj[n][i].first;
        if (g.alive(n, i) && !g.is_host(m) && key(m) < key(n)) ++u;
      }
      const auto level = static_cast<size_t>(max_rank - rank[n]);
      ups[level] = std::max(ups[level], u);
    }
    for (size_t l = 1; l < stride.size(); ++l) stride[l] = stride[l - 1] * std::max<int64_t>(1, ups[l - 1]);
  }

  // ftree's running index of a destination: leaf by leaf, as OpenSM's ftree
  // walks the leaves and the endpoints under each. A destination's global id
  // would not do: a rail-optimized cluster numbers GPU r of every server r
  // mod the rails, so d mod k sent every flow into rail r through spine r.
  std::vector<int64_t> ftree_index(static_cast<size_t>(t.num_hosts()));
  if (cfg.engine == RoutingEngine::kFtree) {
    std::vector<std::pair<int64_t, int>> by_leaf;
    for (int d = 0; d < t.num_hosts(); ++d) {
      const int h = t.hosts[d];
      int64_t leaf = std::numeric_limits<int64_t>::max();
      for (const auto& e : g.adj[h])
        if (!g.is_host(e.first) && rank[e.first] != kInf) leaf = std::min(leaf, key(e.first));
      by_leaf.emplace_back(leaf, d);
    }
    std::sort(by_leaf.begin(), by_leaf.end());
    for (size_t i = 0; i < by_leaf.size(); ++i)
      ftree_index[static_cast<size_t>(by_leaf[i].second)] = static_cast<int64_t>(i);
  }

  std::vector<std::vector<uint32_t>> load(n_nodes);  // destinations routed per port (balancing)
  for (size_t n = 0; n < n_nodes; ++n) load[n].assign(g.adj[n].size(), 0);
  std::vector<int> hop(n_nodes), dist_down(n_nodes), dist_any(n_nodes), queue;
  std::vector<uint16_t> cands, group;

  for (int d = 0; d < t.num_hosts(); ++d) {
    const int h = t.hosts[d];
    // Plain hop distances to h, never transiting another endpoint.
    std::fill(hop.begin(), hop.end(), kInf);
    queue.assign(1, h);
    hop[h] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      const int n = queue[head];
      if (n != h && g.is_host(n)) continue;
      for (size_t i = 0; i < g.adj[n].size(); ++i) {
        const int m = g.adj[n][i].first;
        if (g.alive(n, i) && hop[m] == kInf) {
          hop[m] = hop[n] + 1;
          queue.push_back(m);
        }
      }
    }
    // Up/down: shortest all-down distance, then shortest up*-down* distance.
    std::fill(dist_down.begin(), dist_down.end(), kInf);
    std::fill(dist_any.begin(), dist_any.end(), kInf);
    if (cfg.engine != RoutingEngine::kMinHop) {
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int n = *it;
        int best = kInf;
        for (size_t i = 0; i < g.adj[n].size(); ++i) {
          const int m = g.adj[n][i].first;
          if (!g.alive(n, i)) continue;
          if (m == h)
            best = 1;
          else if (!g.is_host(m) && rank[m] != kInf && key(m) > key(n) && dist_down[m] < kInf)
            best = std::min(best, dist_down[m] + 1);
        }
        dist_down[n] = best;
      }
      for (int n : order) {
        int best = dist_down[n];
        for (size_t i = 0; i < g.adj[n].size(); ++i) {
          const int m = g.adj[n][i].first;
          if (g.alive(n, i) && !g.is_host(m) && key(m) < key(n) && dist_any[m] < kInf)
            best = std::min(best, dist_any[m] + 1);
        }
        dist_any[n] = best;
      }
    }
    for (size_t nn = 0; nn < n_nodes; ++nn) {
      const int n = static_cast<int>(nn);
      if (n == h || hop[n] == kInf) continue;
      cands.clear();
      bool going_up = false;
      if (g.is_host(n) || cfg.engine == RoutingEngine::kMinHop) {
        for (size_t i = 0; i < g.adj[n].size(); ++i) {
          const int m = g.adj[n][i].first;
          if (g.alive(n, i) && hop[m] == hop[n] - 1 && (m == h || !g.is_host(m)))
            cands.push_back(static_cast<uint16_t>(i));
        }
        if (g.is_host(n)) {
          if (g.adj[n].size() > 1) tables[n].set(d, cands);  // a multi-port NIC hashes over its ports
          continue;
        }
      } else if (rank[n] != kInf && dist_down[n] < kInf) {
        for (size_t i = 0; i < g.adj[n].size(); ++i) {
          const int m = g.adj[n][i].first;
          if (!g.alive(n, i)) continue;
          if ((m == h && dist_down[n] == 1) ||
              (!g.is_host(m) && rank[m] != kInf && key(m) > key(n) && dist_down[m] + 1 == dist_down[n]))
            cands.push_back(static_cast<uint16_t>(i));
        }
      } else if (rank[n] != kInf && dist_any[n] < kInf) {
        going_up = true;
        for (size_t i = 0; i < g.adj[n].size(); ++i) {
          const int m = g.adj[n][i].first;
          if (g.alive(n, i) && !g.is_host(m) && key(m) < key(n) && dist_any[m] + 1 == dist_any[n])
            cands.push_back(static_cast<uint16_t>(i));
        }
      }
      if (cands.empty()) continue;  // unreachable from here: no LFT entry
      size_t pick = 0;
      if (cfg.engine == RoutingEngine::kFtree && going_up) {
        const auto level = static_cast<size_t>(max_rank - rank[n]);
        pick = static_cast<size_t>((ftree_index[static_cast<size_t>(d)] / stride[level]) %
                                   static_cast<int64_t>(cands.size()));
      } else {
        for (size_t c = 1; c < cands.size(); ++c)
          if (load[n][cands[c]] < load[n][cands[pick]]) pick = c;
      }
      ++load[n][cands[pick]];
      group.assign(1, cands[pick]);
      if (cfg.adaptive || cfg.shield)
        for (size_t c = 0; c < cands.size(); ++c)
          if (c != pick) group.push_back(cands[c]);
      tables[n].set(d, group);
    }
  }
}

// Routes to the endpoints of other subnets. A switch sends them towards the
// router its subnet uses for that destination: the destination's index
// modulo the routers whose long link is up (an assumption: the subnet
// manager's path records spread remote destinations over the routers). A
// router is each subnet's root, so these paths only go up, and the other
// subnet's own tables take the packet down from its router: the routes stay
// up*/down* and free of credit loops.
void route_remote(const Topology& t, const SubnetManagerConfig& cfg, const Graph& local, const Graph& whole,
                  std::vector<RouteTable>& tables) {
  const size_t n_nodes = t.nodes.size();
  int subnets = 0;
  for (const TopoNode& n : t.nodes) subnets = std::max(subnets, n.subnet + 1);
  std::vector<int> hop(n_nodes), queue;
  std::vector<uint16_t> cands, group;
  for (int s = 0; s < subnets; ++s) {
    std::vector<int> routers;  // with a live long link, in node order
    for (size_t n = 0; n < n_nodes; ++n) {
      if (!t.nodes[n].router || t.nodes[n].subnet != s) continue;
      for (size_t i = 0; i < whole.adj[n].size(); ++i)
        if (whole.alive(n, i) && t.nodes[whole.adj[n][i].first].subnet != s) {
          routers.push_back(static_cast<int>(n));
          break;
        }
    }
    if (routers.empty()) continue;  // cut off: other subnets' endpoints get no entry
    for (int d = 0; d < t.num_hosts(); ++d) {
      if (t.nodes[t.hosts[d]].subnet == s) continue;
      const auto which = static_cast<size_t>(d) % routers.size();
      const int r = routers[which];
      std::fill(hop.begin(), hop.end(), kInf);
      queue.assign(1, r);
      hop[r] = 0;
      for (size_t head = 0; head < queue.size(); ++head) {
        const int n = queue[head];
        if (local.is_host(n)) continue;
        for (size_t i = 0; i < local.adj[n].size(); ++i) {
          const int m = local.adj[n][i].first;
          if (local.alive(n, i) && hop[m] == kInf) {
            hop[m] = hop[n] + 1;
            queue.push_back(m);
          }
        }
      }
      for (size_t nn = 0; nn < n_nodes; ++nn) {
        const int n = static_cast<int>(nn);
        if (t.nodes[n].subnet != s || hop[n] == kInf) continue;
        if (local.is_host(n) && local.adj[n].size() < 2) continue;  // no table
        cands.clear();
        if (n == r) {
          for (size_t i = 0; i < whole.adj[n].size(); ++i)
            if (whole.alive(n, i) && t.nodes[whole.adj[n][i].first].subnet != s)
              cands.push_back(static_cast<uint16_t>(i));
        } else {
          for (size_t i = 0; i < local.adj[n].size(); ++i) {
            const int m = local.adj[n][i].first;
            if (local.alive(n, i) && !local.is_host(m) && hop[m] == hop[n] - 1)
              cands.push_back(static_cast<uint16_t>(i));
          }
        }
        if (cands.empty()) continue;
        if (local.is_host(n)) {
          tables[n].set(d, cands);  // a multi-port NIC hashes over its ports
          continue;
        }
        // Spread the destinations that share a router over its equal-cost ports.
        const size_t pick = (static_cast<size_t>(d) / routers.size()) % cands.size();
        group.assign(1, cands[pick]);
        if (cfg.adaptive || cfg.shield)
          for (size_t c = 0; c < cands.size(); ++c)
            if (c != pick) group.push_back(cands[c]);
        tables[n].set(d, group);
      }
    }
  }
}

}  // namespace

LidUse largest_subnet(const Topology& t) {
  std::vector<int> lids;
  for (const TopoNode& n : t.nodes) {
    if (static_cast<size_t>(n.subnet) >= lids.size()) lids.resize(static_cast<size_t>(n.subnet) + 1, 0);
    ++lids[static_cast<size_t>(n.subnet)];
  }
  LidUse most;
  for (size_t s = 0; s < lids.size(); ++s)
    if (lids[s] > most.lids) most = {static_cast<int>(s), lids[s]};
  return most;
}

std::vector<RouteTable> compute_lfts(const Topology& t, const SubnetManagerConfig& cfg,
                                     const std::vector<std::vector<char>>* down) {
  const Graph whole{t, port_adjacency(t), down};
  const size_t n_nodes = t.nodes.size();
  std::vector<RouteTable> tables(n_nodes);
  // A single-port NIC has nothing to choose: no table (hosts x hosts entries otherwise).
  for (size_t n = 0; n < n_nodes; ++n)
    if (!whole.is_host(static_cast<int>(n)) || whole.adj[n].size() > 1) tables[n].reset(t.num_hosts());
  const bool split =
      std::any_of(t.nodes.begin(), t.nodes.end(), [](const TopoNode& n) { return n.subnet != 0; });
  if (!split) {
    route_local(t, cfg, whole, tables);
  } else {
    // Each subnet manager sees its own subnet only: the links between subnets are down to it.
    std::vector<std::vector<char>> inside(n_nodes);
    for (size_t n = 0; n < n_nodes; ++n) {
      inside[n].assign(whole.adj[n].size(), 0);
      for (size_t i = 0; i < whole.adj[n].size(); ++i)
        inside[n][i] = !whole.alive(n, i) || t.nodes[whole.adj[n][i].first].subnet != t.nodes[n].subnet;
    }
    const Graph local{t, whole.adj, &inside};
    route_local(t, cfg, local, tables);
    route_remote(t, cfg, local, whole, tables);
  }
  for (auto& tb : tables) tb.freeze();
  return tables;
}

}  // namespace rdmasim
