// Fabrics stretched over distance: a link's length sets its delay from the
// fibre's group index; PFC drops lossless packets from the length at which
// the headroom the 802.1Qbb formula asks for exceeds what is configured; an
// InfiniBand link carries at most its VL buffer per credit round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "config/scenario.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "net/switch.h"
#include "run/experiment.h"
#include "support/workload_errors.h"
#include "topo/topology.h"
#include "workload/perftest.h"

namespace rdmasim {
namespace {

constexpr double kPsPerMetre = 1.4682 / 299'792'458.0 * 1e12;  // SMF-28 group index at 1550 nm

TEST(Distance, LengthSetsTheDelayFromTheFibre) {
  const Scenario s = load_scenario_text(
      "name: t\nduration: 1ms\ntopology: {type: dumbbell, left: 1, right: 1, link: {length: 300m}, "
      "bottleneck: "
      "{length: 40km}}\nfabric: {profile: rocev2-dcqcn-400g}\nworkload: [{type: flow, src: 0, dst: 1, size: "
      "1KB}]\n",
      "t.yaml");
  EXPECT_EQ(s.topology.link.delay.ps(), std::llround(300 * kPsPerMetre));
  EXPECT_EQ(s.topology.fabric_link.delay.ps(), std::llround(40'000 * kPsPerMetre));
  EXPECT_NEAR(s.topology.fabric_link.delay.us(), 40 * 4.897, 0.02);  // "about 4.9 us per km": 4.897 us/km
  auto key_of = [](const std::string& link) {
    return testing::scenario_error_key(
        "name: t\nduration: 1ms\ntopology: {type: chain, switches: 1, link: " + link +
        "}\nfabric: {profile: ib-ndr}\nworkload: [{type: flow, src: 0, dst: 1, "
        "size: 1KB}]\n");
  };
  EXPECT_EQ(key_of("{length: 10km, delay: 1us}"), "topology.link.length");
  EXPECT_EQ(key_of("{length: -1km}"), "topology.link.length");
  EXPECT_EQ(key_of("{length: 30000km}"), "topology.link.length");
  EXPECT_EQ(key_of("{length: 10 miles}"), "topology.link.length");
  EXPECT_EQ(key_of("{length: 10}"), "topology.link.length");
  EXPECT_EQ(key_of("{length: 80km}"), "accepted");
}

// A link's cable or optic class: its reach bounds the length (the standard's
// or the MSA's figure), a coherent module adds its DSP latency, an extender
// bounds the rate.
TEST(Distance, CableClassesBoundReachAddLatencyAndBoundRate) {
  auto yaml = [](const std::string& bottleneck) {
    return "name: t\nduration: 1ms\ntopology: {type: dumbbell, left: 1, right: 1, bottleneck: " + bottleneck +
           "}\nfabric: {profile: ib-ndr}\nworkload: [{type: flow, src: 0, dst: 1, size: 1KB}]\n";
  };
  auto error_of = [&](const std::string& bottleneck) { return testing::scenario_error(yaml(bottleneck)); };
  EXPECT_EQ(error_of("{length: 500m, cable: dr4}"), "accepted");
  const std::string dr4 = error_of("{length: 501m, cable: dr4}");
  EXPECT_EQ(dr4.rfind("topology.bottleneck.length: ", 0), 0u) << dr4;
  EXPECT_NE(dr4.find("a dr4 link reaches 500 m (IEEE 802.3bs 400GBASE-DR4"), std::string::npos) << dr4;
  EXPECT_NE(error_of("{length: 3km, cable: fr4}").find("reaches 2 km"), std::string::npos);
  EXPECT_NE(error_of("{length: 4m, cable: dac}").find("reaches 3 m"), std::string::npos);
  EXPECT_EQ(error_of("{length: 10km, cable: lr8}"), "accepted");
  const std::string unknown = error_of("{length: 10km, cable: lr10}");
  EXPECT_EQ(unknown.rfind("topology.bottleneck.cable: ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("expected one of: dac, acc, aoc"), std::string::npos) << unknown;
  // 400ZR: the fibre's delay plus the coherent module's 2 us (an assumption).
  const Scenario zr = load_scenario_text(yaml("{length: 80km, cable: zr}"), "t.yaml");
  EXPECT_EQ(zr.topology.fabric_link.delay.ps(), std::llround(80'000 * kPsPerMetre) + 2'000'000);
  // A MetroX-3 pair carries 2 x 100G: a 400G link through it is refused.
  EXPECT_EQ(error_of("{rate: 200Gbps, length: 40km, cable: metrox-3}"), "accepted");
  EXPECT_EQ(
      error_of("{rate: 400Gbps, length: 40km, cable: metrox-3}").rfind("topology.bottleneck.cable: ", 0), 0u);
  EXPECT_EQ(error_of("{length: 40km, cable: metrox-3}").rfind("topology.bottleneck.cable: ", 0), 0u);
  EXPECT_EQ(
      error_of("{rate: 200Gbps, length: 41km, cable: metrox-3}").rfind("topology.bottleneck.length: ", 0),
      0u);
}

// links[i].length: one link's own fibre, the link faults name (node:port);
// every other link keeps the topology's. With link: all, every link.
TEST(Distance, OneLinkGetsItsOwnLength) {
  const std::string base =
      "name: t\nduration: 1ms\ntopology: {type: leaf-spine, leaves: 2, hosts_per_leaf: 2, spines: 2, link: "
      "{length: 10m}, fabric_link: {length: 100m}}\nfabric: {profile: rocev2-dcqcn-400g}\nworkload: [{type: "
      "flow, src: 0, dst: 3, size: 1KB}]\n";
  Experiment e(load_scenario_text(base + "links:\n  - {link: spine1:0, length: 2km}\n", "t.yaml"));
  const Fabric& f = e.fabric();
  const Topology& t = f.topology();
  const auto [spine1, degree] = find_node(t, "spine1");
  ASSERT_GE(spine1, 0);
  const Port& stretched = f.node_by_topo_id(spine1).port(0);
  const Time two_km = Time::from_ps(std::llround(2000 * kPsPerMetre));
  EXPECT_EQ(stretched.delay(), two_km);
  EXPECT_EQ(stretched.peer()->port(stretched.peer_index()).delay(), two_km);  // both ways
  int long_ports = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n)
    for (size_t i = 0; i < f.node_by_topo_id(static_cast<int>(n)).num_ports(); ++i) {
      const Time d = f.node_by_topo_id(static_cast<int>(n)).port(i).delay();
      long_ports += d == two_km ? 1 : 0;
      EXPECT_TRUE(d == two_km || d == Time::from_ps(std::llround(10 * kPsPerMetre)) ||
                  d == Time::from_ps(std::llround(100 * kPsPerMetre)));
    }
  EXPECT_EQ(long_ports, 2);  // one link, its two ends
  Experiment all(load_scenario_text(base + "links:\n  - {link: all, length: 1km}\n", "t.yaml"));
  for (size_t n = 0; n < all.fabric().topology().nodes.size(); ++n)
    for (size_t i = 0; i < all.fabric().node_by_topo_id(static_cast<int>(n)).num_ports(); ++i)
      EXPECT_EQ(all.fabric().node_by_topo_id(static_cast<int>(n)).port(i).delay(),
                Time::from_ps(std::llround(1000 * kPsPerMetre)));
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:0, length: 2 km}\n"),
            "links[0].length");
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:0, length: 2km, direction: out}\n"),
            "links[0].direction");
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:9, length: 2km}\n"),
            "links[0].link");
  // A length entry gives only the link and its length: a loss beside it
  // would be reset by it, so it goes in an entry of its own.
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:0, length: 2km, ber: 1e-12}\n"),
            "links[0].ber");
}

// The class is kept on the built topology (for what a link costs), named
// per block, and a length entry must stay within it or name another.
TEST(Distance, TheClassStaysWithTheLinkAndBoundsALengthEntry) {
  const std::string base =
      "name: t\nduration: 1ms\ntopology: {type: leaf-spine, leaves: 2, hosts_per_leaf: 2, spines: 2, link: "
      "{length: 2m, cable: dac}, fabric_link: {length: 300m, cable: dr4}}\nfabric: {profile: "
      "rocev2-dcqcn-400g}\nworkload: [{type: flow, src: 0, dst: 3, size: 1KB}]\n";
  const Topology t = build_topology(load_scenario_text(base, "t.yaml"));
  int dac = 0, dr4 = 0;
  for (const TopoLink& l : t.links) {
    const bool host = t.nodes[l.a].kind == TopoNodeKind::kHost || t.nodes[l.b].kind == TopoNodeKind::kHost;
    EXPECT_EQ(l.cable, host ? "dac" : "dr4");
    (host ? dac : dr4) += 1;
  }
  EXPECT_EQ(dac, 4);
  EXPECT_EQ(dr4, 4);
  // fabric_link does not take link's class: a 100 m fabric link under DAC
  // host links has none (it would be out of a DAC's reach).
  const Topology unnamed = build_topology(load_scenario_text(
      "name: t\nduration: 1ms\ntopology: {type: leaf-spine, leaves: 2, hosts_per_leaf: 1, spines: 1, link: "
      "{length: 2m, cable: dac}, fabric_link: {length: 100m}}\nfabric: {profile: rocev2-dcqcn-400g}\n"
      "workload: [{type: flow, src: 0, dst: 1, size: 1KB}]\n",
      "t.yaml"));
  for (const TopoLink& l : unnamed.links)
    EXPECT_EQ(l.cable, unnamed.nodes[l.a].kind == TopoNodeKind::kHost ? "dac" : "");

  // 2 km on a DR4 link (500 m) is refused at the entry's length, naming the reach.
  const std::string beyond = testing::scenario_error(base + "links:\n  - {link: spine1:0, length: 2km}\n");
  EXPECT_EQ(beyond.rfind("links[0].length: ", 0), 0u) << beyond;
  EXPECT_NE(beyond.find("a dr4 link reaches 500 m"), std::string::npos) << beyond;
  // Naming the class that carries it: accepted, and that link alone changes class.
  const Scenario fr4 =
      load_scenario_text(base + "links:\n  - {link: spine1:0, length: 2km, cable: fr4}\n", "t.yaml");
  const Topology stretched = build_topology(fr4);
  int fr4_links = 0;
  for (const TopoLink& l : stretched.links)
    if (l.cable == "fr4") {
      ++fr4_links;
      EXPECT_EQ(l.delay.ps(), std::llround(2000 * kPsPerMetre));
    }
  EXPECT_EQ(fr4_links, 1);
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:0, length: 3km, cable: fr4}\n"),
            "links[0].length");
  // A class names what carries a new length: alone it would change nothing.
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:0, cable: fr4}\n"),
            "links[0].loss");
  EXPECT_EQ(testing::scenario_error_key(base + "links:\n  - {link: spine1:0, loss: 0.1, cable: fr4}\n"),
            "links[0].cable");
  // A coherent link stretched by an entry keeps its module's DSP latency.
  const Topology zr = build_topology(
      load_scenario_text(base + "links:\n  - {link: spine1:0, length: 90km, cable: zr}\n", "t.yaml"));
  for (const TopoLink& l : zr.links)
    if (l.cable == "zr") {
      EXPECT_EQ(l.delay.ps(), std::llround(90'000 * kPsPerMetre) + 2'000'000);
    }
}

// One long-haul flow at line rate into a receiver whose NIC stops draining:
// the far switch pauses the long link and its headroom takes everything
// still in flight. Returns the lossless drops.
uint64_t lossless_drops_at(int km) {
  const std::string yaml =
      "name: t\nduration: 3ms\ntopology: {type: dumbbell, left: 1, right: 1, link: {rate: 100Gbps, length: "
      "10m}, "
      "bottleneck: {rate: 100Gbps, length: " +
      std::to_string(km) +
      "km}}\nfabric: {profile: rocev2-dcqcn-400g, cc: none, ecn: {enabled: false}, pfc: {xoff: 1MB}}\n"
      "workload: [{type: flow, src: 0, dst: 1, size: 30MB}]\n"
      "faults: [{at: 500us, link: \"h1:0\", action: stuck}]\n"
      "misconfig: [{switch: swR, set: {pfc: {headroom: 2MB}}}]\n";
  Experiment e(load_scenario_text(yaml, "t.yaml"));
  e.run();
  uint64_t drops = 0;
  for (const Switch* sw : e.fabric().switches()) drops += sw->counters().lossless_drops;
  return drops;
}

TEST(Distance, PfcHeadroomDropsBeginWhereTheFormulaSays) {
  // IEEE 802.1Qbb Annex N's terms, as switch vendors' calculators add them:
  // what arrives after the XOFF decision is the rate times the cable round
  // trip, the upstream's response time (802.3 Annex 31B) and our pipeline,
  // plus a maximum frame in flight each way and the PAUSE frame.
  const FabricConfig f = find_profile("rocev2-dcqcn-400g").config;
  const double rate = 100e9 / 8;
  const double frames = 2.0 * f.framing.data_wire(f.rc.mtu, true) + f.framing.pfc_wire();
  const double fixed_s = (f.sw.pfc_response_time + f.sw.latency).sec();
  const double headroom = 2e6;
  const double km = ((headroom - frames) / rate - fixed_s) / 2 / (1000 * kPsPerMetre * 1e-12);
  ASSERT_GT(km, 10);
  const int below = static_cast<int>(std::floor(km));
  EXPECT_EQ(lossless_drops_at(below), 0u) << "predicted onset " << km << " km";
  EXPECT_GT(lossless_drops_at(below + 1), 0u) << "predicted onset " << km << " km";
}

// InfiniBand: a VL buffer of B bytes carries at most B per credit round
// trip (2 x the link's delay): far below the BDP the rate falls to B / RTT.
TEST(Distance, InfinibandThroughputIsBufferOverRtt) {
  auto gbps_at = [](const std::string& length) {
    Experiment e(load_scenario_text(
        "name: t\nduration: 1s\ntopology: {type: chain, switches: 1, link: {rate: 400Gbps, length: " +
            length +
            "}}\nfabric: {profile: ib-ndr, ib: {vl_buffer: 1MiB}}\nworkload:\n  - {type: perftest, test: "
            "write_bw, "
            "size: 1MiB, iters: 200}\n",
        "t.yaml"));
    e.run();
    EXPECT_EQ(e.invariant_error(), "");
    return dynamic_cast<const PerftestWorkload&>(*e.workloads().at(0)).result().gbps;
  };
  EXPECT_GT(gbps_at("1km"), 0.97 * 400 * 4096 / (4096 + 26 + 16.0 / 256));  // BDP 0.5 MB < 1 MiB: line rate
  for (const int km : {10, 40}) {
    const double rtt_s = 2 * km * 1000 * kPsPerMetre * 1e-12;
    const double bound = 1048576.0 * 8 / rtt_s / 1e9;
    const double got = gbps_at(std::to_string(km) + "km");
    EXPECT_LT(got, bound);
    EXPECT_GT(got, 0.95 * bound) << km << " km";
  }
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Two sites joined by long links between their spines: a flow between the
// sites crosses exactly one long link, one within a site none, and the
// flow's completion carries the span's delay.
TEST(Distance, TwoSitesJoinedByLongLinks) {
  const std::string yaml =
      "name: t\nduration: 10ms\ntopology: {type: two-site, leaves: 2, hosts_per_leaf: 2, spines: 2, "
      "wan_links: 2, "
      "wan_link: {length: 40km}}\nfabric: {profile: rocev2-dcqcn-400g}\nworkload:\n"
      "  - {type: flow, src: 0, dst: 5, size: 4KiB}\n  - {type: flow, src: 0, dst: 3, size: 4KiB}\n";
  Experiment e(load_scenario_text(yaml, "t.yaml"));
  const Topology& t = e.fabric().topology();
  EXPECT_EQ(t.num_hosts(), 8);
  int long_links = 0;
  for (const auto& l : t.links)
    if (l.delay.ps() == std::llround(40'000 * kPsPerMetre)) ++long_links;
  EXPECT_EQ(long_links, 2);
  e.run();
  ASSERT_EQ(e.flows().size(), 2u);
  ASSERT_TRUE(e.flows()[0].finished() && e.flows()[1].finished());
  EXPECT_EQ(e.flows()[0].links, 5);  // host-leaf-spine, the span, spine-leaf-host
  EXPECT_EQ(e.flows()[1].links, 4);  // within site a, through a spine
  const double span_us = 40 * 1000 * kPsPerMetre * 1e-6;
  // A WRITE completes when its acknowledgement is back: the span twice.
  EXPECT_GT(e.flows()[0].fct().us(), 2 * span_us);
  EXPECT_LT(e.flows()[0].fct().us(), 2 * span_us + 10);
  EXPECT_LT(e.flows()[1].fct().us(), 5);
  auto key_of = [](const std::string& topo) {
    return testing::scenario_error_key("name: t\nduration: 1ms\ntopology: " + topo +
                                       "\nfabric: {profile: ib-ndr}\nworkload: [{type: flow, src: 0, dst: 1, "
                                       "size: 1KB}]\n");
  };
  EXPECT_EQ(key_of("{type: two-site, leaves: 1, hosts_per_leaf: 2, spines: 2, wan_links: 3}"),
            "topology.wan_links");
  EXPECT_EQ(key_of("{type: two-site, leaves: 1, hosts_per_leaf: 2}"), "topology.spines");
  EXPECT_EQ(key_of("{type: leaf-spine, leaves: 2, hosts_per_leaf: 2, spines: 2, wan_link: {length: 1km}}"),
            "topology.wan_link");
  EXPECT_EQ(key_of("{type: two-site, leaves: 1, hosts_per_leaf: 2, spines: 1, wan_link: {length: 80km}}"),
            "accepted");
}

}  // namespace
}  // namespace rdmasim
