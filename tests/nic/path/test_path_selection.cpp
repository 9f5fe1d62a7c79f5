// The path selector part (nic/path): per-connection keeps today's fixed
// entropy, the registry reads fabric.path_selection and the chosen
// selector's block from its own declaration, and refuses what would be
// silently ignored.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/fabric.h"
#include "fabric/parts.h"
#include "fabric/schema.h"
#include "nic/path/path_selector.h"
#include "support/fabric_errors.h"

namespace rdmasim {
namespace {

TEST(PerConnectionPaths, EveryPacketCarriesTheQpsOwnEntropyWhateverHappens) {
  PathSelector s;  // the default
  s.connect(0, 0xabc);
  s.connect(1, 0xdef);
  for (int i = 0; i < 5; ++i) s.on_ack(0, PathAck{static_cast<uint64_t>(i + 1), 10, true, i != 4});
  s.on_rto(0);
  EXPECT_EQ(s.entropy(0, 0xabc, 0), 0xabcu);
  EXPECT_EQ(s.entropy(1, 0xdef, 0), 0xdefu);
  EXPECT_EQ(s.get_if<PlbPaths>(), nullptr);
  EXPECT_NE(s.get_if<PerConnectionPaths>(), nullptr);
}

TEST(PathSelection, TheRegistryNamesPerConnectionFirstAndPlbWithItsDeclaredKeys) {
  EXPECT_EQ(path_selector_names(), (std::vector<std::string>{"per-connection", "plb", "spray", "reps"}));
  EXPECT_EQ(path_selector_param_keys("spray"), (std::vector<std::string>{"evs"}));
  EXPECT_EQ(path_selector_param_keys("reps"), (std::vector<std::string>{"buffer", "explore"}));
  EXPECT_TRUE(path_selector_param_keys("per-connection").empty());
  EXPECT_EQ(path_selector_param_keys("plb"),
            (std::vector<std::string>{"congested_fraction", "rounds", "forced_rounds", "rto_repath"}));
}

std::string scenario(const std::string& profile, const std::string& fabric_extra) {
  return testing::leaf_spine_scenario(profile, fabric_extra);
}
InputError error_of(const std::string& profile, const std::string& fabric_extra) {
  return testing::fabric_error_of(profile, fabric_extra);
}

TEST(PathSelection, DefaultsToPerConnectionAndResultsRecordIt) {
  const Scenario s = load_scenario_text(scenario("rocev2-dctcp", ""), "t.yaml");
  EXPECT_EQ(s.fabric.paths.name, "per-connection");
  const nlohmann::ordered_json fabric = fabric_params_json(s.fabric);
  EXPECT_EQ(fabric["path_selection"], "per-connection");
  EXPECT_FALSE(fabric.contains("plb"));
}

TEST(PathSelection, PlbParametersAreReadEchoedAndReadBackTheSame) {
  const Scenario s = load_scenario_text(
      scenario("rocev2-dctcp",
               "  path_selection: plb\n  plb: {congested_fraction: 0.25, rounds: 2, forced_rounds: 12}\n"),
      "t.yaml");
  EXPECT_EQ(s.fabric.paths.name, "plb");
  EXPECT_DOUBLE_EQ(s.fabric.paths.plb.congested_fraction, 0.25);
  EXPECT_EQ(s.fabric.paths.plb.rounds, 2u);
  EXPECT_EQ(s.fabric.paths.plb.forced_rounds, 12u);
  EXPECT_TRUE(s.fabric.paths.plb.rto_repath);
  const nlohmann::ordered_json fabric = fabric_params_json(s.fabric);
  EXPECT_EQ(fabric["path_selection"], "plb");
  const nlohmann::ordered_json& echo = fabric["plb"];
  EXPECT_EQ(echo.dump(), R"({"congested_fraction":0.25,"rounds":2,"forced_rounds":12,"rto_repath":true})");
  const Scenario again = load_scenario_text(
      scenario("rocev2-dctcp", "  path_selection: plb\n  plb: " + echo.dump() + "\n"), "t.yaml");
  EXPECT_EQ(fabric_params_json(again.fabric), fabric);
  // forced_rounds: off is the default's own spelling.
  const Scenario off = load_scenario_text(
      scenario("rocev2-dctcp", "  path_selection: plb\n  plb: {forced_rounds: off}\n"), "t.yaml");
  EXPECT_EQ(off.fabric.paths.plb.forced_rounds, 0u);
}

TEST(PathSelection, APlbBlockWithoutPlbIsRefusedWhereItStands) {
  const InputError e = error_of("rocev2-dctcp", "  plb: {rounds: 2}\n");
  EXPECT_EQ(e.key(), "fabric.plb");
  EXPECT_EQ(e.line(), 10);
  EXPECT_EQ(e.message(),
            "has no effect: fabric.path_selection is 'per-connection' (set fabric.path_selection: plb to use "
            "it)");
}

TEST(PathSelection, UnknownNamesKeysAndRangesAreRefused) {
  EXPECT_EQ(error_of("rocev2-dctcp", "  path_selection: sprayed\n").key(), "fabric.path_selection");
  EXPECT_EQ(error_of("rocev2-dctcp", "  path_selection: spray\n  spray: {evs: 0}\n").key(),
            "fabric.spray.evs");
  // Spraying reorders: TCP would take it as loss, and LFT forwarding never reads the entropy.
  EXPECT_EQ(error_of("iwarp-dctcp", "  path_selection: spray\n").key(), "fabric.path_selection");
  EXPECT_EQ(error_of("ib-ndr", "  path_selection: spray\n").key(), "fabric.path_selection");
  // REPS learns from each packet's ACK, which only UET's PDS reports.
  EXPECT_EQ(error_of("rocev2-dctcp", "  path_selection: reps\n").key(), "fabric.path_selection");
  EXPECT_EQ(error_of("uet-nscc", "  path_selection: reps\n  reps: {buffer: 0}\n").key(),
            "fabric.reps.buffer");
  EXPECT_EQ(error_of("iwarp-dctcp", "  adaptive_routing: true\n").key(), "fabric.adaptive_routing");
  EXPECT_EQ(error_of("ib-ndr", "  adaptive_routing: true\n").key(), "fabric.adaptive_routing");
  EXPECT_EQ(error_of("rocev2-dctcp", "  path_selection: plb\n  plb: {round: 2}\n").key(), "fabric.plb.round");
  EXPECT_EQ(error_of("rocev2-dctcp", "  path_selection: plb\n  plb: {congested_fraction: 1.5}\n").key(),
            "fabric.plb.congested_fraction");
  EXPECT_EQ(error_of("rocev2-dctcp", "  path_selection: plb\n  plb: {rounds: 0}\n").key(),
            "fabric.plb.rounds");
}

TEST(PathSelection, PlbNeedsEcnEchoAndEcmp) {
  // DCQCN returns CNPs, not ECN-Echo on ACKs: PLB would never see a mark.
  const InputError dcqcn = error_of("rocev2-dcqcn", "  path_selection: plb\n");
  EXPECT_EQ(dcqcn.key(), "fabric.path_selection");
  EXPECT_NE(dcqcn.message().find("reads ecn-echo receiver feedback; congestion control 'dcqcn' returns cnp"),
            std::string::npos)
      << dcqcn.message();
  // InfiniBand forwards by LFT: the entropy is not hashed.
  const InputError ib = error_of("ib-ndr", "  path_selection: plb\n");
  EXPECT_NE(ib.message().find("forwards by lft"), std::string::npos) << ib.message();
  // The same checks when a fabric is built directly.
  Simulation sim(1);
  const Scenario s = load_scenario_text(scenario("rocev2-dcqcn", ""), "t.yaml");
  FabricConfig cfg = s.fabric;
  cfg.paths.name = "plb";
  EXPECT_THROW(Fabric(sim, build_topology(s), cfg), std::invalid_argument);
}

TEST(PathSelection, TheTransportTakesASelectorOnlyBeforeItsFirstQp) {
  Simulation sim(1);
  const Scenario s = load_scenario_text(scenario("rocev2-dctcp", "  path_selection: plb\n"), "t.yaml");
  Fabric f(sim, build_topology(s), s.fabric);
  ASSERT_NE(f.transport().path_selector().get_if<PlbPaths>(), nullptr);
  (void)f.verbs().create_qp(0, 2, nullptr);
  EXPECT_THROW(f.transport().set_path_selector(PathSelector{}), std::logic_error);
}

}  // namespace
}  // namespace rdmasim
