#include <gtest/gtest.h>

#include "route/shortest_path.h"
#include "topo/hpcc_format.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

const LinkSpec k100{Rate::from_gbps(100), Time::from_ns(1000)};
const LinkSpec k400{Rate::from_gbps(400), Time::from_ns(1000)};

TEST(Builders, FatTreeK16Has1024HostsAndFullEcmp) {
  const Topology t = make_fat_tree(16, k100, k100);
  EXPECT_EQ(t.num_hosts(), 1024);
  EXPECT_EQ(t.num_switches(), 16 * 8 + 16 * 8 + 64);  // edge + agg + core
  EXPECT_EQ(t.links.size(), 1024u + 16 * 8 * 8 + 16 * 8 * 8);
  EXPECT_EQ(check_connected(t), "");
  const auto routes = shortest_path_routes(t);
  // Host 0 to a host in another pod: 6 links; its edge switch has k/2 = 8
  // equal-cost uplinks, an aggregation switch 8 core uplinks.
  EXPECT_EQ(path_links(t, 0, 1023), 6);
  EXPECT_EQ(path_links(t, 0, 1), 2);  // same edge switch
  EXPECT_EQ(path_links(t, 0, 8), 4);  // same pod, other edge
  const int edge0 = t.num_hosts();    // first switch node
  EXPECT_EQ(routes[edge0].ports(1023).size(), 8u);
  EXPECT_EQ(routes[edge0].ports(1).size(), 1u);
  const int agg0 = t.num_hosts() + 16 * 8;
  EXPECT_EQ(routes[agg0].ports(1023).size(), 8u);
  // Tables stay small: a few MiB for the whole fabric.
  size_t bytes = 0;
  for (const auto& r : routes) bytes += r.memory_bytes();
  EXPECT_LT(bytes, 16u << 20);
}

TEST(Builders, LeafSpineSpinesFollowOversubscription) {
  // 16 hosts x 100G down per leaf = 1.6T; 2:1 over 400G uplinks -> 2 spines.
  const Topology t = make_leaf_spine(4, 16, 0, 2.0, k100, k400);
  EXPECT_EQ(t.num_switches(), 4 + 2);
  EXPECT_EQ(t.links.size(), 64u + 4 * 2);
  const Topology nb = make_leaf_spine(4, 16, 0, 1.0, k100, k400);
  EXPECT_EQ(nb.num_switches(), 4 + 4);
  EXPECT_THROW(make_leaf_spine(4, 16, 0, 0.5, k100, k400), std::invalid_argument);
}

TEST(Builders, ServersAreRailOptimized) {
  const Topology t = make_servers(4, 8, 2, k400, k400);
  EXPECT_EQ(t.num_hosts(), 32);
  // GPU g of every server hangs off rail leaf g.
  for (const auto& l : t.links) {
    if (t.nodes[l.a].kind != TopoNodeKind::kHost) continue;
    const int gpu = l.a % 8;
    EXPECT_EQ(t.nodes[l.b].name, "rail" + std::to_string(gpu));
    EXPECT_EQ(t.nodes[l.a].server, l.a / 8);
  }
  // Same rail: 2 links; other rail: through a spine, 4 links.
  EXPECT_EQ(path_links(t, 0, 8), 2);
  EXPECT_EQ(path_links(t, 0, 9), 4);
}

// Beyond one scalable unit each rail has a leaf per unit. The counts are
// NVIDIA's for a DGX SuperPOD of 8 SUs (reference architecture, B200 edition,
// "SU count / switch count / cable count" table): 256 servers, 2048 GPUs on
// 64 leaf and 32 spine switches, 2048 node-leaf and 2048 leaf-spine cables,
// every switch using its 64 ports.
TEST(Builders, ServersInScalableUnitsMatchDgxSuperPod) {
  const Topology t = make_servers(256, 8, 32, k400, k400, 32);
  EXPECT_EQ(t.num_hosts(), 2048);
  int leaves = 0, spines = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind != TopoNodeKind::kSwitch) continue;
    (t.nodes[n].tier == 1 ? leaves : spines) += 1;
    int ports = 0;
    for (const auto& l : t.links) ports += (l.a == static_cast<int>(n)) + (l.b == static_cast<int>(n));
    EXPECT_EQ(ports, 64) << t.nodes[n].name;
  }
  EXPECT_EQ(leaves, 64);
  EXPECT_EQ(spines, 32);
  int host_links = 0;
  for (const auto& l : t.links) host_links += t.nodes[l.a].kind == TopoNodeKind::kHost;
  EXPECT_EQ(host_links, 2048);
  EXPECT_EQ(t.links.size(), 4096u);
  // GPU g of server s on leaf (g, s / 32).
  for (const auto& l : t.links) {
    if (t.nodes[l.a].kind != TopoNodeKind::kHost) continue;
    EXPECT_EQ(t.nodes[l.b].name, "rail" + std::to_string(l.a % 8) + ".su" + std::to_string(l.a / 8 / 32));
  }
  // Same rail and unit: 2 links; same rail, another unit, or another rail: 4.
  EXPECT_EQ(path_links(t, 0, 8), 2);
  EXPECT_EQ(path_links(t, 0, 32 * 8), 4);
  EXPECT_EQ(path_links(t, 0, 9), 4);
  EXPECT_EQ(check_connected(t), "");
  // One unit is the one-leaf-per-rail cluster, switch names included.
  const Topology one = make_servers(32, 8, 32, k400, k400, 32);
  const Topology plain = make_servers(32, 8, 32, k400, k400);
  ASSERT_EQ(one.nodes.size(), plain.nodes.size());
  for (size_t n = 0; n < one.nodes.size(); ++n) EXPECT_EQ(one.nodes[n].name, plain.nodes[n].name);
  EXPECT_EQ(one.links.size(), plain.links.size());
}

// Past 8 units a spine of 64 ports cannot reach every rail leaf, and the
// counts are NVIDIA's again (same table): 16 SUs (512 servers) take 128 leaf,
// 128 spine and 64 core switches with 4096 cables on each tier; 32 SUs 256,
// 256 and 128 with 8192 each. Every switch uses exactly its 64 ports.
TEST(Builders, ServersPastEightUnitsTakeACoreTierAsDgxSuperPod) {
  struct Row {
    int servers, leaves, spines, cores, cables;
  };
  for (const Row r : {Row{512, 128, 128, 64, 4096}, Row{1024, 256, 256, 128, 8192}}) {
    const Topology t = make_servers(r.servers, 8, 32, k400, k400, 32, 64);
    std::vector<int> per_tier(4, 0);
    std::vector<int> ports(t.nodes.size(), 0);
    std::vector<int> cables(4, 0);  // by the upper end's tier
    for (const auto& l : t.links) {
      ++ports[l.a];
      ++ports[l.b];
      ++cables[std::max(t.nodes[l.a].tier, t.nodes[l.b].tier)];
    }
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      ++per_tier[t.nodes[n].tier];
      if (t.nodes[n].kind == TopoNodeKind::kSwitch) {
        EXPECT_EQ(ports[n], 64) << t.nodes[n].name;
      }
    }
    EXPECT_EQ(per_tier[0], r.servers * 8);
    EXPECT_EQ(per_tier[1], r.leaves);
    EXPECT_EQ(per_tier[2], r.spines);
    EXPECT_EQ(per_tier[3], r.cores);
    EXPECT_EQ(cables[1], r.cables);  // node-leaf
    EXPECT_EQ(cables[2], r.cables);  // leaf-spine
    EXPECT_EQ(cables[3], r.cables);  // spine-core
    EXPECT_EQ(check_connected(t), "");
    // A pod holds a rail's leaves (two rails at 16 units, one at 32), so same
    // rail is at most 4 links, through a spine; rail 0 to rail 2 takes 6,
    // through a core.
    EXPECT_EQ(path_links(t, 0, 8), 2);
    EXPECT_EQ(path_links(t, 0, (r.servers - 1) * 8), 4);
    EXPECT_EQ(path_links(t, 0, (r.servers - 1) * 8 + 1), r.servers == 512 ? 4 : 6);
    EXPECT_EQ(path_links(t, 0, 2), 6);
    // ECMP: a leaf has 32 equal uplinks towards another pod, a spine one
    // plane of cores with 32 uplinks to them.
    const auto routes = shortest_path_routes(t);
    const int leaf0 = t.num_hosts();
    EXPECT_EQ(routes[leaf0].ports(2).size(), 32u);
    EXPECT_EQ(routes[leaf0 + r.leaves].ports(2).size(), 32u);
  }
  // Within the radix nothing changes: 8 units stay two tiers.
  const Topology two = make_servers(256, 8, 32, k400, k400, 32, 64);
  const Topology unbounded = make_servers(256, 8, 32, k400, k400, 32);
  EXPECT_EQ(two.nodes.size(), unbounded.nodes.size());
  EXPECT_EQ(two.links.size(), unbounded.links.size());
  // A leaf that cannot hold its servers and uplinks is refused.
  EXPECT_THROW(make_servers(64, 8, 32, k400, k400, 48, 64), std::invalid_argument);
}

TEST(Builders, DisconnectedTopologyIsReported) {
  Topology t;
  t.add_node(TopoNodeKind::kHost, "a", 0);
  t.add_node(TopoNodeKind::kHost, "b", 0);
  const int s = t.add_node(TopoNodeKind::kSwitch, "s", 1);
  t.add_link(0, s, k100.rate, k100.delay);
  EXPECT_NE(check_connected(t).find("'b'"), std::string::npos);
}

TEST(Builders, HpccReferenceTopologyLoadsAndRoutes) {
  const Topology t =
      topology_from_edge_list(load_edge_list_topology("data/reference/hpcc_fattree320_topology.txt"));
  EXPECT_EQ(t.num_hosts(), 320);
  EXPECT_EQ(t.num_switches(), 56);
  EXPECT_EQ(check_connected(t), "");
  // Hosts under one ToR are 2 links apart; across pods 6 (host-ToR-Agg-Core-Agg-ToR-host).
  EXPECT_EQ(path_links(t, 0, 1), 2);
  EXPECT_EQ(path_links(t, 0, 319), 6);
}

}  // namespace
}  // namespace rdmasim
