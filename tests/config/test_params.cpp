// One schema per part: the keys a congestion-control algorithm declares are
// what its YAML block accepts, what results.json echoes, and what reading the
// echo back reproduces exactly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "config/error.h"
#include "config/params.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"

namespace rdmasim {
namespace {

std::string scenario(const std::string& profile, const std::string& fabric_extra) {
  return "name: t\nduration: 1ms\ntopology: {type: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}\n"
         "fabric: {profile: " +
         profile + fabric_extra + "}\nworkload: [{type: incast, senders: 2, receiver: 0, size: 10KB}]\n";
}

TEST(Params, EchoListsExactlyTheDeclaredKeysAndReadsBackToTheSameValues) {
  const std::pair<const char*, const char*> cases[] = {
      {"dcqcn", "rocev2-dcqcn"},  {"dcqcn", "rocev2-dcqcn-mlx"}, {"dctcp", "rocev2-dctcp"},
      {"hpcc", "rocev2-hpcc"},    {"timely", "rocev2-dcqcn"},    {"ibcc", "ib-ndr"},
      {"cubic", "ethernet-lossy"}};
  for (const auto& [cc, profile] : cases) {
    SCOPED_TRACE(std::string(cc) + " on " + profile);
    FabricConfig f = find_profile(profile).config;
    f.cc = cc;
    const nlohmann::ordered_json echo = fabric_params_json(f)[cc];
    ASSERT_TRUE(echo.is_object());
    std::vector<std::string> keys;
    for (const auto& [k, v] : echo.items()) keys.push_back(k);
    std::vector<std::string> declared = congestion_control_param_keys(cc);
    // Echoed only when set (fabric.hpcc.int: class), as the test below says.
    if (std::string(cc) == "hpcc" && !f.hpcc.class_int) std::erase(declared, std::string("int"));
    EXPECT_EQ(keys, declared);
    // The echo is valid YAML (flow style): feed it back as the block.
    const Scenario s = load_scenario_text(
        scenario(profile, std::string(", cc: ") + cc + ", " + cc + ": " + echo.dump()), "t.yaml");
    EXPECT_EQ(fabric_params_json(s.fabric)[cc], echo);
  }
}

TEST(Params, AnAlgorithmWithoutParametersRefusesItsBlock) {
  EXPECT_TRUE(congestion_control_param_keys("newreno").empty());
  FabricConfig f;
  f.cc = "newreno";
  EXPECT_FALSE(fabric_params_json(f).contains("newreno"));
  try {
    (void)load_scenario_text(scenario("ethernet-lossy", ", cc: newreno, newreno: {window: 4}"), "t.yaml");
    FAIL() << "a block without parameters was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "fabric.newreno") << e.what();
  }
}

// The whole fabric schema round-trips: what results.json echoes for a
// profile, written back as the scenario's fabric block, is read to the same
// configuration, and the keys listed are exactly the keys echoed.
TEST(Params, EveryProfileEchoReadsBackToItself) {
  for (const std::string& name : profile_names()) {
    SCOPED_TRACE(name);
    const FabricConfig f = find_profile(name).config;
    const nlohmann::ordered_json echo = fabric_params_json(f);
    nlohmann::ordered_json given = echo;
    // results.json records the lossy queues' alpha of an unlimited buffer,
    // which a scenario may not give there (it would have no effect).
    if (f.sw.mmu.unlimited) given.erase("buffer_alpha");
    std::string block = given.dump();
    block = block.substr(1, block.size() - 2);  // the members, inside the scenario's own braces
    const Scenario s = load_scenario_text(scenario(name, ", " + block), "t.yaml");
    EXPECT_EQ(fabric_params_json(s.fabric), echo);
    std::vector<std::string> echoed;
    for (const auto& [k, v] : flatten_params(echo, "fabric")) echoed.push_back(k);
    for (const auto& [k, v] : flatten_params(switch_params_json(f.sw), "topology.switch"))
      echoed.push_back(k);
    // Keys added after results were first recorded are echoed only when set,
    // so the results of fabrics without them stay byte-identical.
    std::vector<std::string> listed = fabric_param_keys(f);
    if (!f.sw.adaptive_routing) std::erase(listed, std::string("fabric.adaptive_routing"));
    if (!f.nic.jitter.enabled) std::erase(listed, std::string("fabric.nic_jitter.enabled"));
    if (f.sharp.traffic_class < 0) std::erase(listed, std::string("fabric.sharp.traffic_class"));
    if (f.model == "packet") std::erase(listed, std::string("fabric.model"));
    if (!f.hpcc.class_int) std::erase(listed, std::string("fabric.hpcc.int"));
    EXPECT_EQ(echoed, listed);
  }
}

// Every default a profile lists cites where it comes from; no citation
// names a key the profile's parts do not have (it would be stale).
TEST(Params, EveryProfileDefaultCitesASourceAndNoCitationIsStale) {
  std::set<std::string> all_keys;
  for (const std::string& name : profile_names()) {
    SCOPED_TRACE(name);
    const Profile p = find_profile(name);
    std::set<std::string> keys;
    // The profile as shipped, and with each other congestion control or
    // IRN swapped in: the parts' own defaults must cite their sources too.
    std::vector<Profile> variants{p};
    for (const std::string& cc : congestion_control_names())
      if (cc != "ibcc" || p.config.ib.enabled) {
        variants.push_back(p);
        variants.back().config.cc = cc;
      }
    variants.push_back(p);
    variants.back().config.rc.recovery = LossRecovery::kIrn;
    for (const Profile& v : variants)
      for (const ProfileDefault& d : profile_defaults(v)) {
        EXPECT_FALSE(d.source.empty())
            << d.key << " = " << d.value << " has no source (cc " << v.config.cc << ")";
        EXPECT_FALSE(d.value.empty()) << d.key;
        if (&v == &variants.front()) keys.insert(d.key);
        all_keys.insert(d.key);
      }
    for (const ProfileSource& s : p.sources) EXPECT_TRUE(keys.count(s.key)) << "stale citation " << s.key;
  }
  for (const ProfileSource& s : part_default_sources())
    EXPECT_TRUE(all_keys.count(s.key)) << "no profile has " << s.key;
}

// A stated range bounds an assumption (a sourced value needs none), says
// why, and holds the default strictly inside it, in the key's own units.
TEST(Params, EveryStatedRangeBracketsAnAssumedDefault) {
  const auto magnitude = [](const std::string& v) -> double {
    try {
      return static_cast<double>(parse_time(v).ps());
    } catch (const std::invalid_argument&) {
    }
    try {
      return static_cast<double>(parse_bytes(v).count());
    } catch (const std::invalid_argument&) {
    }
    try {
      return static_cast<double>(parse_rate(v).bps());
    } catch (const std::invalid_argument&) {
    }
    return std::stod(v);
  };
  size_t ranged = 0;
  for (const std::string& name : profile_names()) {
    SCOPED_TRACE(name);
    for (const ProfileDefault& d : profile_defaults(find_profile(name))) {
      if (d.low.empty() && d.high.empty()) continue;
      ++ranged;
      EXPECT_EQ(d.source.rfind("assumption", 0), 0u) << d.key << ": a range belongs to an assumption";
      EXPECT_FALSE(d.range_why.empty()) << d.key;
      // fabric.ib.vl_buffer's bounds are its keywords, resolved per link:
      // credit-loop below the default auto, which is its high end.
      if (d.key == "fabric.ib.vl_buffer") {
        EXPECT_EQ(d.low, "credit-loop");
        EXPECT_EQ(d.high, d.value);
        continue;
      }
      EXPECT_LT(magnitude(d.low), magnitude(d.value)) << d.key;
      EXPECT_LT(magnitude(d.value), magnitude(d.high)) << d.key;
    }
  }
  EXPECT_GT(ranged, 0u);
}

// A key of a part the fabric does not run is refused, naming why.
TEST(Params, KeysOfPartsTheFabricDoesNotRunAreRefused) {
  auto error_of = [](const std::string& profile, const std::string& extra) {
    try {
      (void)load_scenario_text(scenario(profile, extra), "t.yaml");
    } catch (const InputError& e) {
      return e.key() + ": " + e.message();
    }
    return std::string("accepted");
  };
  for (const char* key : {"pfc: {enabled: true}", "ecn: {kmin: 10KB}", "scheduler: {strict: [7]}",
                          "ecmp_seed: same", "buffer_alpha: 2"})
    EXPECT_NE(error_of("ib-ndr", std::string(", ") + key).find("applies to Ethernet profiles"),
              std::string::npos)
        << key;
  EXPECT_NE(error_of("rocev2-dcqcn", ", ib: {routing: updn}").find("applies to InfiniBand"),
            std::string::npos);
  EXPECT_NE(
      error_of("ethernet-lossy", ", pfc: {xoff: 100KB}").find("fabric.pfc.xoff: has no effect: PFC is off"),
      std::string::npos);
  EXPECT_NE(
      error_of("rocev2-hpcc", ", ecn: {enabled: false, kmin: 10KB}").find("fabric.ecn.kmin: has no effect"),
      std::string::npos);
  EXPECT_NE(error_of("rocev2-dcqcn", ", irn_rto_low: 50us").find("fabric.irn_rto_low: has no effect"),
            std::string::npos);
  EXPECT_EQ(error_of("rocev2-dcqcn", ", recovery: irn, irn_rto_low: 50us"), "accepted");
  EXPECT_EQ(error_of("ethernet-lossy", ", pfc: {enabled: true, xoff: 100KB}"), "accepted");
  // A block asks for marking, used where a congestion control reacts to the marks.
  EXPECT_EQ(error_of("ethernet-lossy", ", cc: dctcp, ecn: {kmin: 10KB, kmax: 20KB}"), "accepted");
  EXPECT_NE(error_of("ethernet-lossy", ", ecn: {kmin: 10KB, kmax: 20KB}")
                .find("fabric.ecn.kmin: has no effect: nothing reacts to ECN marks on 'ethernet-lossy'"),
            std::string::npos);
  // A congestion control whose signal the fabric never produces.
  EXPECT_NE(error_of("ib-ndr", ", cc: hpcc").find("fabric.cc: 'hpcc' reads INT telemetry"),
            std::string::npos);
  EXPECT_NE(
      error_of("ib-ndr", ", cc: dcqcn").find("fabric.cc: 'dcqcn' reacts to ECN marks, which InfiniBand"),
      std::string::npos);
  EXPECT_NE(error_of("rocev2-hpcc", ", cc: dctcp").find("ECN marking is off under 'rocev2-hpcc'"),
            std::string::npos);
  EXPECT_EQ(error_of("rocev2-hpcc", ", cc: dctcp, ecn: {kmin: 100KB, kmax: 100KB}"), "accepted");
  EXPECT_EQ(error_of("ib-ndr", ", cc: ibcc"), "accepted");
  EXPECT_EQ(error_of("ib-ndr", ", cc: timely"), "accepted");
  // IRN ACKs every packet and has its own two timeouts.
  EXPECT_NE(error_of("rocev2-dcqcn", ", recovery: irn, rto: 1ms").find("fabric.rto: has no effect under"),
            std::string::npos);
  EXPECT_NE(error_of("rocev2-dcqcn", ", recovery: irn, ack_interval: 4").find("fabric.ack_interval: has no"),
            std::string::npos);
  EXPECT_EQ(error_of("rocev2-dcqcn", ", rto: 1ms, ack_interval: 4"), "accepted");
  // The reaction time only sizes automatic headroom.
  EXPECT_NE(error_of("rocev2-dcqcn", ", pfc: {headroom: 100KB, response_time: 2us}")
                .find("fabric.pfc.response_time: has no effect"),
            std::string::npos);
  EXPECT_EQ(error_of("rocev2-dcqcn", ", pfc: {response_time: 2us}"), "accepted");
}

// A switch buffer size on a fabric whose switches have no shared-buffer limit
// would be read and never used; "unlimited" is what such a fabric runs.
TEST(Params, ABufferSizeWhereSwitchesHaveNoLimitIsRefused) {
  auto load = [](const std::string& profile, const std::string& buffer) {
    return load_scenario_text("name: t\ntopology: {type: star, hosts: 3, switch: {buffer: " + buffer +
                                  "}}\nfabric: {profile: " + profile +
                                  "}\nworkload: [{type: incast, senders: 2, size: 10KB}]\n",
                              "t.yaml");
  };
  for (const char* profile : {"ideal", "ib-ndr"}) {
    SCOPED_TRACE(profile);
    try {
      (void)load(profile, "4MiB");
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "topology.switch.buffer");
      EXPECT_NE(e.message().find("has no effect"), std::string::npos) << e.message();
    }
    EXPECT_TRUE(load(profile, "unlimited").fabric.sw.mmu.unlimited);
  }
  EXPECT_EQ(load("ethernet-lossy", "4MiB").fabric.sw.mmu.buffer_bytes, 4u << 20);
  EXPECT_TRUE(load("ethernet-lossy", "unlimited").fabric.sw.mmu.unlimited);
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
