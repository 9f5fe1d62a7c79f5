// Property: for random valid scenarios, results.json records exactly the
// network that was built and every setting that took effect. The scenario
// echo, fed back as a scenario, must build the same network (every link's
// ends, rate, delay) with the same fabric and switch settings, and the
// topology counts must be the built network's.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "engine/rng.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"
#include "report/results.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng.below(v.size())];
}

std::string random_link(Rng& rng) {
  static const std::vector<std::string> rates = {"10Gbps", "25Gbps", "100Gbps", "200Gbps", "400Gbps"};
  static const std::vector<std::string> delays = {"100ns", "500ns", "1us", "2us", "5us"};
  return "{rate: " + pick(rng, rates) + ", delay: " + pick(rng, delays) + "}";
}

// A random scenario the loader accepts: a topology type with random sizes and
// links, a random profile with some of its keys changed, a small workload.
std::string random_scenario(Rng& rng) {
  std::string topo;
  switch (rng.below(6)) {
    case 0:
      topo = "type: star, hosts: " + std::to_string(2 + rng.below(30));
      break;
    case 1:
      topo = "type: dumbbell, left: " + std::to_string(1 + rng.below(8)) +
             ", right: " + std::to_string(1 + rng.below(8)) + ", bottleneck: " + random_link(rng);
      break;
    case 2:
      topo = "type: leaf-spine, leaves: " + std::to_string(1 + rng.below(6)) +
             ", hosts_per_leaf: " + std::to_string(1 + rng.below(8));
      topo += rng.below(2) == 0 ? ", spines: " + std::to_string(1 + rng.below(4))
                                : ", oversubscription: " + std::to_string(1 + rng.below(4));
      topo += ", fabric_link: " + random_link(rng);
      break;
    case 3:
      topo = "type: fat-tree, k: " + std::to_string(2 * (1 + rng.below(3))) +
             ", fabric_link: " + random_link(rng);
      break;
    case 4:
      topo = "type: servers, servers: " + std::to_string(1 + rng.below(4)) +
             ", gpus_per_server: " + std::to_string(1 + rng.below(4)) +
             ", spines: " + std::to_string(rng.below(3));
      break;
    default:
      topo = "type: chain, switches: " + std::to_string(1 + rng.below(4));
      break;
  }
  if (rng.below(2) == 0) topo += ", link: " + random_link(rng);
  const std::string profile = pick(rng, profile_names());
  const bool unlimited = find_profile(profile).config.sw.mmu.unlimited;
  std::string sw;
  if (rng.below(2) == 0)
    sw += std::string(sw.empty() ? "" : ", ") + "latency: " + std::to_string(rng.below(900)) + "ns";
  if (!unlimited && rng.below(2) == 0)
    sw += std::string(sw.empty() ? "" : ", ") + "buffer: " + std::to_string(1 + rng.below(64)) + "MiB";
  if (!sw.empty()) topo += ", switch: {" + sw + "}";
  std::string fabric = "profile: " + profile;
  if (rng.below(2) == 0) {
    if (find_profile(profile).config.transport == "iwarp")
      fabric += ", tcp: {ip_mtu: " + pick(rng, std::vector<std::string>{"1500", "4200", "9000"}) + "}";
    else if (find_profile(profile).config.transport == "uet")
      fabric += ", uet: {mtu: " + pick(rng, std::vector<std::string>{"1KB", "2KB", "4KiB"}) + "}";
    else
      fabric += ", mtu: " + pick(rng, std::vector<std::string>{"1KB", "2KB", "4KiB"});
  }
  if (rng.below(3) == 0) fabric += ", nic_tx_latency: " + std::to_string(rng.below(1000)) + "ns";
  return "name: p\nseed: " + std::to_string(rng.below(1000)) + "\nduration: 1ms\ntopology: {" + topo +
         "}\nfabric: {" + fabric + "}\nworkload: [{type: permutation, size: 4KB}]\n";
}

// The echo as a scenario: what it records beside the keys (the file it came
// from, the framing the profile implies, the citations) is not input.
std::string echo_as_scenario(nlohmann::ordered_json echo) {
  echo.erase("file");
  echo["fabric"].erase("framing");
  echo["fabric"].erase("profile_defaults");
  return echo.dump();  // JSON is YAML
}

TEST(ResultsRecordNetwork, RandomScenariosEchoTheNetworkTheyBuilt) {
  Rng rng(2026, "results-record-network");
  for (int i = 0; i < 150; ++i) {
    const std::string text = random_scenario(rng);
    SCOPED_TRACE(text);
    Scenario s;
    try {
      s = load_scenario_text(text, "t.yaml");
    } catch (const InputError& e) {
      // Only a permutation on a one-host network, or rails no spine joins, may be refused.
      const std::string why = e.what();
      EXPECT_TRUE(why.find("at least 2 hosts") != std::string::npos ||
                  why.find("is not connected") != std::string::npos)
          << why;
      continue;
    }
    std::unique_ptr<Experiment> built_run;
    try {
      built_run = std::make_unique<Experiment>(s);
    } catch (const InputError& e) {
      // A lossless profile whose PFC headroom a small random buffer cannot hold.
      EXPECT_NE(std::string(e.what()).find("PFC headroom"), std::string::npos) << e.what();
      continue;
    }
    const Experiment& e = *built_run;
    const nlohmann::ordered_json j = results_json(e);
    const Topology& built = e.fabric().topology();
    EXPECT_EQ(j["topology"]["hosts"].get<int>(), built.num_hosts());
    EXPECT_EQ(j["topology"]["switches"].get<int>(), built.num_switches());
    EXPECT_EQ(j["topology"]["links"].get<size_t>(), built.links.size());

    // Fed back, the echo reads to the same settings and builds the same network.
    const Scenario again = load_scenario_text(echo_as_scenario(j["scenario"]), "t.yaml");
    nlohmann::ordered_json a = scenario_json(again), b = j["scenario"];
    a.erase("file");
    b.erase("file");
    EXPECT_EQ(a.dump(), b.dump());
    EXPECT_EQ(fabric_params_json(again.fabric).dump(), fabric_params_json(s.fabric).dump());
    EXPECT_EQ(switch_params_json(again.fabric.sw).dump(), switch_params_json(e.fabric().config().sw).dump());
    // What the fabric resolved from "auto" is recorded too: the echo with
    // results.json's resolved values in place is what ran.
    const nlohmann::ordered_json ran = fabric_params_json(e.fabric().config());
    nlohmann::ordered_json recorded = fabric_params_json(s.fabric);
    if (j.contains("resolved"))
      for (const auto& [key, value] : j["resolved"].items()) {
        ASSERT_EQ(key.rfind("fabric.", 0), 0u) << key;
        std::string path = "/" + key.substr(7);
        for (char& c : path)
          if (c == '.') c = '/';
        recorded[nlohmann::ordered_json::json_pointer(path)] = value;
      }
    EXPECT_EQ(recorded.dump(), ran.dump()) << "a resolved value results.json does not record";
    const Topology rebuilt = build_topology(again);
    ASSERT_EQ(rebuilt.nodes.size(), built.nodes.size());
    ASSERT_EQ(rebuilt.links.size(), built.links.size());
    for (size_t l = 0; l < built.links.size(); ++l) {
      EXPECT_EQ(rebuilt.links[l].a, built.links[l].a);
      EXPECT_EQ(rebuilt.links[l].b, built.links[l].b);
      EXPECT_EQ(rebuilt.links[l].rate.bps(), built.links[l].rate.bps()) << "link " << l;
      EXPECT_EQ(rebuilt.links[l].delay.ps(), built.links[l].delay.ps()) << "link " << l;
    }
    // Every port runs at its link's rate: the built network is the topology.
    const Network& net = e.fabric().net();
    size_t ports = 0;
    for (size_t n = 0; n < net.num_nodes(); ++n) ports += net.node(n).num_ports();
    EXPECT_EQ(ports, 2 * built.links.size());
  }
}

}  // namespace
}  // namespace rdmasim
