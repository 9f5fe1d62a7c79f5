// Random loss on the wire (`links:` in a scenario, Fabric::set_link_loss):
// each frame a lossy port sends is lost with probability p, whatever it
// carries, and the receiving port discards and counts it; the count is
// binomial, the draws are the seed's, a loss of 0 changes nothing, and
// links whose flow control cannot lose a frame refuse it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/scenario.h"
#include "fabric/profiles.h"
#include "report/results.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

// client -- sw0 -- server, one 4 MB write on lossy Ethernet (go-back-N).
std::string chain(const std::string& links, uint64_t seed = 1) {
  return "seed: " + std::to_string(seed) +
         "\nduration: 2s\ntopology: {type: chain, switches: 1}\nfabric: {profile: ethernet-lossy}\n"
         "workload: [{type: flow, src: 0, dst: 1, size: 4MB}]\n" +
         links;
}

struct WireCount {
  uint64_t frames = 0;  // sent on the ports whose frames may be lost
  uint64_t lost = 0;    // discarded at the other end
};

// Frames sent by `sender`'s port `port` and those its peer discarded.
WireCount count(const Experiment& e, const std::string& sender, size_t port) {
  const Network& net = e.fabric().net();
  for (size_t n = 0; n < net.num_nodes(); ++n)
    if (net.node(n).name() == sender) {
      const Port& p = net.node(n).port(port);
      return {p.counters().tx_packets, p.peer()->port(p.peer_index()).counters().corrupt_drop_packets};
    }
  ADD_FAILURE() << "no node " << sender;
  return {};
}

// k losses in n Bernoulli(p) trials: within 4 standard deviations of n p.
void expect_binomial(const WireCount& c, double p) {
  const double n = static_cast<double>(c.frames);
  const double sigma = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(c.lost), n * p, 4 * sigma) << c.lost << " of " << c.frames << " frames";
}

TEST(LinkLoss, EveryLinkLosesItsShareOfFramesEachWay) {
  for (const double p : {0.01, 0.03}) {
    SCOPED_TRACE(p);
    Experiment e(load_scenario_text(chain("links: [{loss: " + std::to_string(p) + "}]\n"), "t.yaml"));
    e.run();
    ASSERT_EQ(e.completed(), 1u);
    EXPECT_EQ(e.invariant_error(), "");
    WireCount all;
    for (const auto& [node, port] : {std::pair{"client", 0}, {"sw0", 0}, {"sw0", 1}, {"server", 0}}) {
      const WireCount c = count(e, node, port);
      EXPECT_GT(c.frames, 0u) << node << ":" << port;
      all.frames += c.frames;
      all.lost += c.lost;
    }
    EXPECT_GT(all.frames, 8000u);
    expect_binomial(all, p);
    // Data one way, ACKs the other: the wire loses both, and nothing else drops.
    const auto& led = e.fabric().net().ledger();
    EXPECT_GT(led.dropped[static_cast<int>(PktType::kData)], 0u);
    EXPECT_GT(led.dropped[static_cast<int>(PktType::kAck)], 0u);
    const auto j = results_json(e);
    EXPECT_EQ(j["network"]["corruption_drops"].get<uint64_t>(), all.lost);
    EXPECT_EQ(j["network"]["switch_buffer_drops"].get<uint64_t>(), 0u);
    EXPECT_GT(j["network"]["retransmitted_packets"].get<uint64_t>(), 0u);
    EXPECT_EQ(j["scenario"]["links"][0]["link"], "all");
  }
}

// out: only what the named end sends (the data towards the server); in: only
// what it receives (the server's ACKs). The receiving port counts the loss.
TEST(LinkLoss, DirectionIsSeenFromTheNamedEnd) {
  const auto data = static_cast<int>(PktType::kData), ack = static_cast<int>(PktType::kAck);
  {
    Experiment e(
        load_scenario_text(chain("links: [{link: 'sw0:1', loss: 0.03, direction: out}]\n"), "t.yaml"));
    e.run();
    ASSERT_EQ(e.completed(), 1u);
    expect_binomial(count(e, "sw0", 1), 0.03);
    EXPECT_EQ(count(e, "server", 0).lost, 0u);
    EXPECT_EQ(count(e, "client", 0).lost + count(e, "sw0", 0).lost, 0u);
    EXPECT_GT(e.fabric().net().ledger().dropped[data], 0u);
    EXPECT_EQ(e.fabric().net().ledger().dropped[ack], 0u);
  }
  {
    Experiment e(
        load_scenario_text(chain("links: [{link: 'sw0:1', loss: 0.03, direction: in}]\n"), "t.yaml"));
    e.run();
    ASSERT_EQ(e.completed(), 1u);
    EXPECT_EQ(count(e, "sw0", 1).lost, 0u);
    EXPECT_GT(count(e, "server", 0).lost, 0u);
    EXPECT_EQ(e.fabric().net().ledger().dropped[data], 0u);
    EXPECT_GT(e.fabric().net().ledger().dropped[ack], 0u);
  }
}

TEST(LinkLoss, LaterEntriesOverrideEarlierOnes) {
  Experiment e(load_scenario_text(chain("links: [{loss: 0.03}, {link: 'server:0', loss: 0}]\n"), "t.yaml"));
  e.run();
  ASSERT_EQ(e.completed(), 1u);
  EXPECT_EQ(count(e, "sw0", 1).lost + count(e, "server", 0).lost, 0u);
  EXPECT_GT(count(e, "client", 0).lost, 0u);
  EXPECT_GT(count(e, "sw0", 0).lost, 0u);
}

// No draw at all on a loss-free link: the run is the one without `links`,
// event for event (results.json differs only by echoing the setting).
TEST(LinkLoss, ZeroLossChangesNothing) {
  Experiment plain(load_scenario_text(chain(""), "t.yaml"));
  Experiment zero(load_scenario_text(chain("links: [{loss: 0}, {link: 'sw0:1', loss: 0%}]\n"), "t.yaml"));
  plain.run();
  zero.run();
  EXPECT_EQ(flows_csv(plain), flows_csv(zero));
  EXPECT_EQ(ports_csv(plain), ports_csv(zero));
  auto j = results_json(zero);
  ASSERT_TRUE(j["scenario"].contains("links"));
  j["scenario"].erase("links");
  EXPECT_EQ(j.dump(), results_json(plain).dump());
}

TEST(LinkLoss, SameSeedSameBytesAnotherSeedOtherLosses) {
  const std::string links = "links: [{loss: 0.02}]\n";
  Experiment a(load_scenario_text(chain(links, 7), "t.yaml"));
  Experiment b(load_scenario_text(chain(links, 7), "t.yaml"));
  Experiment c(load_scenario_text(chain(links, 8), "t.yaml"));
  a.run();
  b.run();
  c.run();
  EXPECT_EQ(results_json(a).dump(), results_json(b).dump());
  EXPECT_EQ(ports_csv(a), ports_csv(b));
  EXPECT_NE(ports_csv(a), ports_csv(c));
}

// The loss of a named link is set the same way whichever end names it.
TEST(LinkLoss, EitherEndNamesTheLink) {
  Experiment a(load_scenario_text(chain("links: [{link: 'sw0:1', loss: 0.03}]\n"), "t.yaml"));
  Experiment b(load_scenario_text(chain("links: [{link: 'server:0', loss: 0.03}]\n"), "t.yaml"));
  a.run();
  b.run();
  EXPECT_EQ(ports_csv(a), ports_csv(b));
  EXPECT_GT(count(a, "sw0", 1).lost, 0u);
}

// The API under the key: refused where a lost frame is not modelled.
TEST(LinkLoss, FabricRefusesLossOnLosslessLinksAndUnknownPorts) {
  for (const char* profile : {"rocev2-dcqcn", "ib-ndr"}) {
    SCOPED_TRACE(profile);
    Simulation sim(1);
    Fabric f(sim, make_chain(1, LinkSpec{}), find_profile(profile).config);
    EXPECT_THROW(f.set_link_loss(0, 0, 0.01), std::invalid_argument);
    EXPECT_NO_THROW(f.set_link_loss(0, 0, 0.0));
  }
  Simulation sim(1);
  Fabric f(sim, make_chain(1, LinkSpec{}), find_profile("ethernet-lossy").config);
  EXPECT_THROW(f.set_link_loss(0, 5, 0.01), std::invalid_argument);
  EXPECT_THROW(f.set_link_loss(0, 0, 1.5), std::invalid_argument);
  EXPECT_NO_THROW(f.set_link_loss(0, 0, 0.01));
}

// An HPCC topology file's error rate (column 5) is the same loss, refused on
// PFC links as on InfiniBand.
TEST(LinkLoss, TopologyFileErrorRateIsRefusedOnPfc) {
  const auto dir = std::filesystem::temp_directory_path() / "rdmasim-test-link-loss-pfc";
  std::filesystem::create_directories(dir);
  const auto topo = dir / "topo.txt";
  std::ofstream(topo) << "3 1 2\n2\n0 2 100Gbps 1000ns 0.01\n1 2 100Gbps 1000ns 0\n";
  try {
    (void)load_scenario_text(
        "topology: {type: file, file: " + topo.string() +
            "}\nfabric: {profile: rocev2-dcqcn}\nworkload: [{type: flow, src: 0, dst: 1, size: 4MB}]\n",
        "t.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& err) {
    EXPECT_EQ(err.key(), "topology.file");
    EXPECT_NE(err.message().find("not modelled on PFC links"), std::string::npos) << err.message();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rdmasim
