// Two sites that meet through routers (topology.routers): a routed L3 hop
// on Ethernet, an IB router between two subnets on InfiniBand. The router
// is a switch with its own pipeline and buffer, and on a PFC fabric the
// site's lossless domain ends at it unless router.lossless carries the
// class across (docs/DISTANCE.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "fabric/fabric.h"
#include "net/switch.h"
#include "route/subnet_manager.h"
#include "run/experiment.h"
#include "sharp/sharp.h"
#include "support/workload_errors.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

std::string two_site(const std::string& extra, const std::string& fabric, const std::string& workload) {
  return "name: t\nduration: 50ms\ntopology: {type: two-site, leaves: 2, hosts_per_leaf: 2, spines: 2, " +
         extra + "}\nfabric: " + fabric + "\nworkload:\n" + workload;
}

TEST(RoutedSites, RoutersStandBetweenEachSitesSpines) {
  const Topology t = build_topology(load_scenario_text(
      two_site("wan_links: 3, routers: 2, wan_link: {length: 10km}", "{profile: rocev2-dcqcn-400g}",
               "  - {type: flow, src: 0, dst: 5, size: 4KiB}\n"),
      "t.yaml"));
  std::vector<int> routers;
  for (size_t n = 0; n < t.nodes.size(); ++n)
    if (t.nodes[n].router) {
      routers.push_back(static_cast<int>(n));
      EXPECT_EQ(t.nodes[n].tier, 3);
      EXPECT_EQ(t.nodes[n].kind, TopoNodeKind::kSwitch);
    }
  ASSERT_EQ(routers.size(), 4u);
  EXPECT_EQ(t.nodes[routers[0]].name, "a_router0");
  EXPECT_EQ(t.nodes[routers[3]].name, "b_router1");
  int spine_router = 0, long_links = 0;
  std::vector<int> long_per_router(t.nodes.size(), 0);
  for (const TopoLink& l : t.links) {
    const bool ra = t.nodes[l.a].router, rb = t.nodes[l.b].router;
    if (ra && rb) {
      ++long_links;
      ++long_per_router[l.a];
      ++long_per_router[l.b];
      EXPECT_EQ(t.nodes[l.a].name.substr(1), t.nodes[l.b].name.substr(1));  // router i meets router i
    } else if (ra || rb) {
      const int spine = ra ? l.b : l.a, router = ra ? l.a : l.b;
      EXPECT_EQ(t.nodes[spine].tier, 2);
      EXPECT_EQ(t.nodes[spine].name[0], t.nodes[router].name[0]);  // within its own site
      ++spine_router;
    }
  }
  EXPECT_EQ(spine_router, 2 * 2 * 2);  // each site: 2 spines x 2 routers
  EXPECT_EQ(long_links, 3);
  EXPECT_EQ(long_per_router[routers[0]], 2);  // links 0 and 2
  EXPECT_EQ(long_per_router[routers[1]], 1);
}

// A router's pipeline is paid at each router a packet crosses: a WRITE's
// data and its acknowledgement each cross two, so moving the latency by d
// moves the completion by exactly 4 d; the path is 7 links.
TEST(RoutedSites, EveryCrossingPaysTheRoutersLatency) {
  const auto fct = [](const std::string& latency, int& links) {
    Experiment e(load_scenario_text(
        two_site("wan_links: 2, routers: 1, wan_link: {length: 1km}, router: {latency: " + latency + "}",
                 "{profile: rocev2-dcqcn-400g}", "  - {type: flow, src: 0, dst: 5, size: 4KiB}\n"),
        "t.yaml"));
    e.run();
    EXPECT_TRUE(e.flows()[0].finished());
    links = e.flows()[0].links;
    return e.flows()[0].fct();
  };
  int links = 0;
  const Time two = fct("2us", links);
  EXPECT_EQ(links, 7);  // host-leaf-spine-router, the span, router-spine-leaf-host
  const Time five = fct("5us", links);
  EXPECT_EQ((five - two).ps(), 4 * Time::from_us(3).ps());
  // auto: 2 us on Ethernet, the switches' latency on InfiniBand.
  const Scenario roce =
      load_scenario_text(two_site("wan_links: 2, routers: 1", "{profile: rocev2-dcqcn-400g}",
                                  "  - {type: flow, src: 0, dst: 5, size: 1KB}\n"),
                         "t.yaml");
  EXPECT_EQ(roce.fabric.router.latency, Time::from_us(2));
  const Scenario ib = load_scenario_text(two_site("wan_links: 2, routers: 1", "{profile: ib-ndr}",
                                                  "  - {type: flow, src: 0, dst: 5, size: 1KB}\n"),
                                         "t.yaml");
  EXPECT_EQ(ib.fabric.router.latency, ib.fabric.sw.latency);
}

struct Crossing {
  uint64_t router_drops = 0;
  uint64_t lossless_drops = 0;
  uint64_t router_pause_sent = 0;  // PAUSE frames the routers sent
  uint64_t edge_pause_sent = 0;    // PAUSE frames spines sent towards the routers
  bool finished = true;
};

// Site a's four hosts write into one host of site b over a 100 Gb/s span
// whose router has a small buffer, with no end-to-end congestion control.
Crossing incast_across(const std::string& router) {
  Experiment e(load_scenario_text(
      two_site(
          "wan_links: 1, routers: 1, wan_link: {rate: 100Gbps, length: 1km}, router: " + router,
          "{profile: rocev2-dcqcn-400g, cc: none, ecn: {enabled: false}}",
          "  - {type: flow, src: 0, dst: 4, size: 1MiB}\n  - {type: flow, src: 1, dst: 4, size: 1MiB}\n"
          "  - {type: flow, src: 2, dst: 4, size: 1MiB}\n  - {type: flow, src: 3, dst: 4, size: 1MiB}\n"),
      "t.yaml"));
  e.run();
  Crossing c;
  const Topology& t = e.fabric().topology();
  for (const Switch* sw : e.fabric().switches()) {
    const bool is_router = t.nodes[sw->id()].router;
    c.lossless_drops += sw->counters().lossless_drops;
    if (is_router) c.router_drops += sw->counters().buffer_drops;
    for (size_t i = 0; i < sw->num_ports(); ++i) {
      uint64_t sent = 0;
      for (uint64_t f : sw->port(i).counters().pfc_tx_frames) sent += f;
      const Node* peer = sw->port(i).peer();
      if (is_router) c.router_pause_sent += sent;
      if (!is_router && peer != nullptr && t.nodes[peer->id()].router) c.edge_pause_sent += sent;
    }
  }
  for (const auto& f : e.flows()) c.finished = c.finished && f.finished();
  return c;
}

TEST(RoutedSites, TheLosslessDomainEndsAtTheRoutersUnlessCarriedAcross) {
  // Default: the routers drop what their buffer cannot hold, as lossy
  // switches; no one pauses across the routed hop, nothing lossless is lost,
  // and go-back-N recovers every flow.
  const Crossing lossy = incast_across("{buffer: 1MB}");
  EXPECT_GT(lossy.router_drops, 0u);
  EXPECT_EQ(lossy.lossless_drops, 0u);
  EXPECT_EQ(lossy.router_pause_sent, 0u);
  EXPECT_EQ(lossy.edge_pause_sent, 0u);
  EXPECT_TRUE(lossy.finished);
  // lossless: true: PFC runs on the routers' ports, with headroom for the
  // span; the router pauses site a instead of dropping.
  const Crossing carried = incast_across("{buffer: 16MB, lossless: true}");
  EXPECT_EQ(carried.router_drops, 0u);
  EXPECT_EQ(carried.lossless_drops, 0u);
  EXPECT_GT(carried.router_pause_sent, 0u);
  EXPECT_TRUE(carried.finished);
}

// HPCC's base RTT T (and the BDP that sizes IRN's window, the trim depth
// and DCTCP's first window) is the farthest host's: across the span, each
// way crossing the long link and two routers, not a hop count times the
// host link's delay.
TEST(RoutedSites, TheBaseRttSpansTheSites) {
  const auto base_rtt = [](const std::string& extra) {
    Experiment e(load_scenario_text(two_site("wan_links: 1, routers: 1, " + extra, "{profile: rocev2-hpcc}",
                                             "  - {type: flow, src: 0, dst: 5, size: 4KiB}\n"),
                                    "t.yaml"));
    Time wan = Time::zero();
    for (const TopoLink& l : e.fabric().topology().links)
      if (e.fabric().topology().nodes[l.a].router && e.fabric().topology().nodes[l.b].router) wan = l.delay;
    return std::pair{e.fabric().config().hpcc.base_rtt, wan};
  };
  const auto [near, wan_near] = base_rtt("wan_link: {length: 1km}, router: {latency: 2us}");
  const auto [far, wan_far] = base_rtt("wan_link: {length: 10km}, router: {latency: 2us}");
  const auto [slow, wan_slow] = base_rtt("wan_link: {length: 1km}, router: {latency: 5us}");
  EXPECT_EQ(wan_near, wan_slow);
  EXPECT_GT(near, wan_near * 2);
  EXPECT_EQ((far - near).ps(), 2 * (wan_far - wan_near).ps());  // the span, both ways
  EXPECT_EQ((slow - near).ps(), 4 * Time::from_us(3).ps());     // two routers each way
}

// The LFT path a packet for endpoint `d` follows from node `from`: the
// names of the switches and routers it crosses, in order, then the endpoint's.
std::vector<std::string> lft_path(const Fabric& f, int from, int d) {
  const Topology& t = f.topology();
  std::vector<std::string> names;
  const Node* n = f.node_by_topo_id(from).port(0).peer();
  while (n != nullptr && n->kind() == NodeKind::kSwitch && names.size() < 16) {
    names.push_back(t.nodes[n->id()].name);
    const int port = static_cast<const Switch*>(n)->routes().first(d);
    if (port < 0) return names;
    n = n->port(static_cast<size_t>(port)).peer();
  }
  if (n != nullptr) names.push_back(t.nodes[n->id()].name);
  return names;
}

std::string ib_two_site(const std::string& faults) {
  return two_site("wan_links: 2, routers: 2, wan_link: {length: 1km}", "{profile: ib-ndr}",
                  // Long enough to outlast a re-sweep (detection 100 us + computation 500 us); its
                  // data and ACKs both go by routers 1 (5 and 1 mod 2).
                  "  - {type: flow, src: 1, dst: 5, size: 32MiB}\n") +
         faults;
}

// On InfiniBand the routers split the sites into two subnets, each routed by
// its own subnet manager: a site's switches reach the other site's
// endpoints through the router its manager gives each (endpoint index mod
// routers), whose long link leads to the other subnet's router; paths
// within a site never touch a router.
TEST(RoutedSites, InfinibandRoutersJoinTwoSubnets) {
  Experiment e(load_scenario_text(ib_two_site(""), "t.yaml"));
  const Fabric& f = e.fabric();
  const Topology& t = f.topology();
  for (const TopoNode& n : t.nodes) {
    const bool b =
        n.name.starts_with("b_") || (n.kind == TopoNodeKind::kHost && std::stoi(n.name.substr(1)) >= 4);
    EXPECT_EQ(n.subnet, b ? 1 : 0) << n.name;
  }
  for (int src = 0; src < 8; ++src)
    for (int d = 0; d < 8; ++d) {
      if (d == src) continue;
      const auto path = lft_path(f, t.hosts[src], d);
      SCOPED_TRACE("h" + std::to_string(src) + " -> h" + std::to_string(d));
      ASSERT_EQ(path.back(), "h" + std::to_string(d));
      const bool across = (src < 4) != (d < 4);
      if (!across) {
        for (const auto& name : path) EXPECT_EQ(name.find("router"), std::string::npos);
        continue;
      }
      ASSERT_EQ(path.size(), 7u);  // leaf, spine, router, router, spine, leaf, endpoint
      const std::string r = "router" + std::to_string(d % 2);
      EXPECT_EQ(path[2], (src < 4 ? "a_" : "b_") + r);
      EXPECT_EQ(path[3], (src < 4 ? "b_" : "a_") + r);
    }
  // A QP between the subnets carries a GRH on every packet; none within one.
  EXPECT_EQ(kGrhBytes, 40u);
  EXPECT_EQ(grh_bytes(t, 0, 5), kGrhBytes);
  EXPECT_EQ(grh_bytes(t, 5, 0), kGrhBytes);
  EXPECT_EQ(grh_bytes(t, 0, 3), 0u);
  // SHARP's Aggregation Manager builds trees within a subnet: a group in
  // one site gets one, a group across the routers none (the host algorithm runs).
  SharpManager sharp(t, f.config().sharp);
  ASSERT_TRUE(f.config().sharp.enabled);
  EXPECT_TRUE(sharp.allocate({0, 1, 2, 3}).has_value());
  EXPECT_TRUE(sharp.allocate({4, 5, 6, 7}).has_value());
  EXPECT_FALSE(sharp.allocate({0, 1, 4, 5}).has_value());
}

// What a failure costs each subnet: its own manager re-sweeps and the other
// keeps its tables, unless the failed link is a router's long link, which
// both managers see (and then route every remote endpoint by the routers
// left).
TEST(RoutedSites, AFailureResweepsOnlyTheSubnetsItTouches) {
  const auto run = [](const std::string& link) {
    auto e = std::make_unique<Experiment>(load_scenario_text(
        ib_two_site("faults:\n  - {at: 2us, link: '" + link + "', action: down}\n"), "t.yaml"));
    e->run();
    EXPECT_TRUE(e->flows()[0].finished());
    return e;
  };
  const auto inside_b = run("b_leaf0:2");  // b_leaf0 to b_spine0
  const SmStats& sb = inside_b->fabric().sm_stats();
  EXPECT_EQ(sb.sweeps_by_subnet, (std::vector<int>{0, 1}));
  EXPECT_EQ(sb.sweeps, 1);
  EXPECT_EQ(sb.lft_installs, 1);
  // Site a keeps its first tables: every path from site a is as before, up to its router.
  const auto untouched = std::make_unique<Experiment>(load_scenario_text(ib_two_site(""), "t.yaml"));
  for (int src = 0; src < 4; ++src)
    for (int d = 0; d < 8; ++d) {
      if (d == src) continue;
      auto before = lft_path(untouched->fabric(), untouched->fabric().topology().hosts[src], d);
      auto after = lft_path(inside_b->fabric(), inside_b->fabric().topology().hosts[src], d);
      before.resize(std::min<size_t>(before.size(), 3));
      after.resize(std::min<size_t>(after.size(), 3));
      EXPECT_EQ(before, after);
    }

  const auto long_link = run("a_router0:2");  // router 0's only long link
  const SmStats& sl = long_link->fabric().sm_stats();
  EXPECT_EQ(sl.sweeps_by_subnet, (std::vector<int>{1, 1}));
  for (int src : {0, 4})
    for (int d = 0; d < 8; ++d) {
      if ((src < 4) == (d < 4)) continue;
      const auto path = lft_path(long_link->fabric(), long_link->fabric().topology().hosts[src], d);
      ASSERT_EQ(path.size(), 7u);
      EXPECT_EQ(path[2], std::string(src < 4 ? "a_" : "b_") + "router1");  // the one router left
    }
}

// Each subnet manager ranks its own switches: when site b's router is cut
// off from its spines, site b's spines become its roots and its own paths
// stand, though site a's tree is a level deeper.
TEST(RoutedSites, ASubnetCutOffFromItsRouterStillRoutesItsOwnEndpoints) {
  Experiment e(load_scenario_text(
      two_site("wan_links: 2, routers: 1, wan_link: {length: 1km}", "{profile: ib-ndr}",
               "  - {type: flow, src: 4, dst: 6, size: 32MiB}\n") +
          "faults:\n  - {at: 1us, link: 'b_router0:0', action: down}\n  - {at: 1us, link: 'b_router0:1', "
          "action: down}\n",
      "t.yaml"));
  e.run();
  EXPECT_TRUE(e.flows()[0].finished());
  const Fabric& f = e.fabric();
  ASSERT_EQ(f.sm_stats().lft_installs, 2);  // one per failure
  const Topology& t = f.topology();
  for (int src = 4; src < 8; ++src) {
    for (int d = 4; d < 8; ++d) {
      if (d != src) {
        EXPECT_EQ(lft_path(f, t.hosts[src], d).back(), "h" + std::to_string(d)) << src << " " << d;
      }
    }
  }
  // Site a cannot reach site b any more, and has no route for it.
  EXPECT_NE(lft_path(f, t.hosts[0], 5).back(), "h5");
}

TEST(RoutedSites, SettingsWithoutUseAreRefused) {
  const std::string flow = "  - {type: flow, src: 0, dst: 5, size: 1KB}\n";
  const auto key_of = [&](const std::string& extra, const std::string& fabric) {
    return testing::scenario_error_key(two_site(extra, fabric, flow));
  };
  EXPECT_EQ(key_of("wan_links: 2, router: {latency: 1us}", "{profile: rocev2-dcqcn-400g}"),
            "topology.router");
  EXPECT_EQ(key_of("wan_links: 1, routers: 2", "{profile: rocev2-dcqcn-400g}"), "topology.wan_links");
  EXPECT_EQ(key_of("wan_links: 2, routers: 1, router: {buffer: 1GB}", "{profile: ib-ndr}"),
            "topology.router.buffer");
  EXPECT_EQ(key_of("wan_links: 2, routers: 1, router: {lossless: true}", "{profile: ethernet-lossy}"),
            "topology.router.lossless");
  EXPECT_EQ(key_of("wan_links: 2, routers: 1, router: {lossless: true}", "{profile: ib-ndr}"),
            "topology.router.lossless");
  EXPECT_EQ(key_of("wan_links: 2, routers: 1, router: {latency: 1us}", "{profile: ib-ndr}"), "accepted");
  // A router is not one of the fabric's switches: misconfig cannot name it.
  EXPECT_EQ(
      testing::scenario_error_key(two_site("wan_links: 2, routers: 1", "{profile: rocev2-dcqcn-400g}", flow) +
                                  "misconfig: [{switch: a_router0, set: {pfc: {headroom: 2KB}}}]\n"),
      "misconfig[0].switch");
}

// A subnet holds at most 49,151 unicast LIDs (IBTA Vol.1 §4.1.3), one per
// endpoint and one per switch: a larger InfiniBand fabric needs routers;
// each of its subnets is counted on its own.
TEST(RoutedSites, AnInfinibandSubnetHoldsAtMost49151Lids) {
  const auto verdict = [](const std::string& topology) {
    return testing::scenario_error_key(
        "name: t\nduration: 1ms\ntopology: " + topology +
        "\nfabric: {profile: ib-ndr}\nworkload:\n  - {type: flow, src: 0, dst: "
        "1, size: 1KB}\n");
  };
  EXPECT_EQ(kMaxUnicastLids, 49151);
  // 64-ary fat-tree: 65,536 endpoints and 5,120 switches in one subnet.
  EXPECT_EQ(verdict("{type: fat-tree, k: 64}"), "topology");
  // Per site 24,576 endpoints, 96 leaves, 32 spines and 1 router: 24,705 LIDs
  // per subnet; without routers the two sites are one subnet of 49,408.
  const std::string sites = "{type: two-site, leaves: 96, hosts_per_leaf: 256, spines: 32, wan_links: 1";
  EXPECT_EQ(verdict(sites + ", routers: 1}"), "accepted");
  EXPECT_EQ(verdict(sites + "}"), "topology");
}

}  // namespace
}  // namespace rdmasim
