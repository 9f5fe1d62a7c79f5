// One schema per part: the keys a congestion-control algorithm declares are
// what its YAML block accepts, what results.json echoes, and what reading the
// echo back reproduces exactly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"

namespace rdmasim {
namespace {

std::string scenario(const std::string& profile, const std::string& fabric_extra) {
  return "name: t\nduration: 1ms\ntopology: {type: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\n"
         "fabric: {profile: " +
         profile + fabric_extra + "}\nworkload: [{type: incast, senders: 2, receiver: 0, size: 10KB}]\n";
}

TEST(Params, EchoListsExactlyTheDeclaredKeysAndReadsBackToTheSameValues) {
  const std::pair<const char*, const char*> cases[] = {
      {"dcqcn", "rocev2-dcqcn"}, {"dcqcn", "rocev2-dcqcn-mlx"}, {"dctcp", "rocev2-dctcp"},
      {"hpcc", "rocev2-hpcc"},   {"timely", "rocev2-dcqcn"},    {"ibcc", "ib-ndr"}};
  for (const auto& [cc, profile] : cases) {
    SCOPED_TRACE(std::string(cc) + " on " + profile);
    FabricConfig f = find_profile(profile).config;
    f.cc = cc;
    const nlohmann::ordered_json echo = congestion_control_params_json(f);
    ASSERT_TRUE(echo.is_object());
    std::vector<std::string> keys;
    for (const auto& [k, v] : echo.items()) keys.push_back(k);
    EXPECT_EQ(keys, congestion_control_param_keys(cc));
    // The echo is valid YAML (flow style): feed it back as the block.
    const Scenario s = load_scenario_text(
        scenario(profile, std::string(", cc: ") + cc + ", " + cc + ": " + echo.dump()), "t.yaml");
    EXPECT_EQ(congestion_control_params_json(s.fabric), echo);
  }
}

TEST(Params, AnAlgorithmWithoutParametersRefusesEveryKeyOfItsBlock) {
  EXPECT_TRUE(congestion_control_param_keys("newreno").empty());
  FabricConfig f;
  f.cc = "newreno";
  EXPECT_TRUE(congestion_control_params_json(f).is_null());
  try {
    (void)load_scenario_text(scenario("ethernet-lossy", ", cc: newreno, newreno: {window: 4}"), "t.yaml");
    FAIL() << "a key of a block without parameters was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "fabric.newreno.window") << e.what();
  }
}

TEST(Params, RangesAndCrossChecksComeFromTheDeclaration) {
  auto error_of = [](const std::string& extra) {
    try {
      (void)load_scenario_text(scenario("rocev2-dcqcn", extra), "t.yaml");
    } catch (const InputError& e) {
      return e.key() + ": " + e.message();
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of(", dcqcn: {g: 2}").find("fabric.dcqcn.g"), std::string::npos);
  EXPECT_NE(error_of(", dcqcn: {alpha_timer: 0us}").find("expected a positive time"), std::string::npos);
  EXPECT_NE(error_of(", dcqcn: {byte_counter: lots}").find("or off"), std::string::npos);
  EXPECT_NE(error_of(", cc: timely, timely: {t_low: 60us, t_high: 50us}").find("t_high above t_low"),
            std::string::npos);
  EXPECT_EQ(error_of(", dcqcn: {byte_counter: off, g: 0.5}"), "accepted");
}

}  // namespace
}  // namespace rdmasim
