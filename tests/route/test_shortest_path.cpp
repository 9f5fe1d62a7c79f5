// The ECMP tables against their definition: for every node and destination,
// the next hops are exactly the ports whose neighbour is one link closer to
// the destination (a breadth-first search from that destination, transiting
// no other host). The builder shares one search among the hosts of a switch;
// this reference searches once per host, as the definition reads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "route/shortest_path.h"

namespace rdmasim {
namespace {

using Adjacency = std::vector<std::vector<std::pair<int, int>>>;
using Down = std::vector<std::vector<char>>;

std::vector<uint16_t> reference_group(const Topology& t, const Adjacency& adj, const Down& down, int dst_host,
                                      int node) {
  const int dst = t.hosts[dst_host];
  std::vector<int> dist(t.nodes.size(), -1);
  std::vector<int> fifo{dst};
  dist[dst] = 0;
  for (size_t at = 0; at < fifo.size(); ++at) {
    const int n = fifo[at];
    if (n != dst && t.nodes[n].kind == TopoNodeKind::kHost) continue;
    for (size_t i = 0; i < adj[n].size(); ++i)
      if (down[n][i] == 0 && dist[adj[n][i].first] < 0) {
        dist[adj[n][i].first] = dist[n] + 1;
        fifo.push_back(adj[n][i].first);
      }
  }
  std::vector<uint16_t> group;
  if (node == dst || dist[node] <= 0) return group;
  for (size_t i = 0; i < adj[node].size(); ++i) {
    const int m = adj[node][i].first;
    if (down[node][i] == 0 && dist[m] == dist[node] - 1 &&
        (t.nodes[m].kind == TopoNodeKind::kSwitch || m == dst))
      group.push_back(static_cast<uint16_t>(i));
  }
  return group;
}

void expect_tables_match_definition(const Topology& t, const Down& down) {
  const Adjacency adj = port_adjacency(t);
  const std::vector<RouteTable> tables = shortest_path_routes(t, &down);
  size_t checked = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind == TopoNodeKind::kHost && adj[n].size() < 2) continue;  // no table
    for (int d = 0; d < t.num_hosts(); ++d) {
      const auto got = tables[n].ports(d);
      const std::vector<uint16_t> want = reference_group(t, adj, down, d, static_cast<int>(n));
      ASSERT_EQ(std::vector<uint16_t>(got.begin(), got.end()), want)
          << "node " << t.nodes[n].name << ", destination " << d;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

Down no_failures(const Topology& t) {
  const Adjacency adj = port_adjacency(t);
  Down down(t.nodes.size());
  for (size_t n = 0; n < t.nodes.size(); ++n) down[n].assign(adj[n].size(), 0);
  return down;
}

const LinkSpec kLink{Rate::from_gbps(100), Time::from_ns(1000)};

TEST(ShortestPath, FatTreeTablesAreTheDefinition) {
  const Topology t = make_fat_tree(8, kLink, kLink);
  expect_tables_match_definition(t, no_failures(t));
}

// Failed ports anywhere: fabric links (one end or both), a host's own link
// from either side; the hosts behind them get searches of their own.
TEST(ShortestPath, TablesWithFailedPortsAreTheDefinition) {
  const Topology t = make_fat_tree(8, kLink, kLink);
  Down down = no_failures(t);
  const Adjacency adj = port_adjacency(t);
  int fabric_failures = 0;
  for (size_t n = 0; n < t.nodes.size() && fabric_failures < 6; ++n) {
    if (t.nodes[n].kind != TopoNodeKind::kSwitch) continue;
    for (size_t i = 0; i < adj[n].size(); ++i)
      if (t.nodes[adj[n][i].first].kind == TopoNodeKind::kSwitch && (n * 7 + i) % 11 == 0) {
        down[n][i] = 1;
        if (fabric_failures % 2 == 0) down[adj[n][i].first][adj[n][i].second] = 1;
        ++fabric_failures;
        break;
      }
  }
  const int h0 = t.hosts[3];
  down[h0][0] = 1;  // the host's side of its link
  const int h1 = t.hosts[40];
  down[adj[h1][0].first][adj[h1][0].second] = 1;  // the switch's side
  expect_tables_match_definition(t, down);
}

// Rail-optimized servers and a leaf-spine, and hosts on two leaves (dual-port
// NICs, which have tables of their own and searches of their own) beside
// hosts on one: the shared searches must not leak into the others.
TEST(ShortestPath, RailAndDualHomedTablesAreTheDefinition) {
  const Topology rail = make_servers(4, 8, 2, kLink, kLink);
  expect_tables_match_definition(rail, no_failures(rail));
  const Topology ls = make_leaf_spine(4, 6, 3, 1.0, kLink, kLink);
  expect_tables_match_definition(ls, no_failures(ls));

  Topology t;
  std::vector<int> spine, leaf;
  for (int i = 0; i < 2; ++i)
    spine.push_back(t.add_node(TopoNodeKind::kSwitch, "spine" + std::to_string(i), 1));
  for (int i = 0; i < 3; ++i) {
    leaf.push_back(t.add_node(TopoNodeKind::kSwitch, "leaf" + std::to_string(i), 0));
    for (const int s : spine) t.add_link(leaf.back(), s, kLink.rate, kLink.delay);
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      t.add_link(t.add_node(TopoNodeKind::kHost, "h" + std::to_string(i) + std::to_string(j), 0), leaf[i],
                 kLink.rate, kLink.delay);
  for (int i = 0; i < 2; ++i) {
    const int h = t.add_node(TopoNodeKind::kHost, "dual" + std::to_string(i), 0);
    t.add_link(h, leaf[i], kLink.rate, kLink.delay);
    t.add_link(h, leaf[i + 1], kLink.rate, kLink.delay);
  }
  expect_tables_match_definition(t, no_failures(t));
}

}  // namespace
}  // namespace rdmasim
