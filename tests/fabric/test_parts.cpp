// The registry of parts: fabric.cc accepts exactly the names it holds, each
// builds the algorithm of that name with the receiver feedback it reads, and a
// parameter block for an algorithm the fabric does not run is refused.
#include <gtest/gtest.h>

#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/parts.h"
#include "net/network.h"
#include "net/switch.h"

namespace rdmasim {
namespace {

constexpr const char* kScenario = R"(name: t
duration: 1ms
topology: {type: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
fabric:
  profile: rocev2-dcqcn
  hpcc: {eta: 0.9}
workload:
  - {type: incast, senders: 2, receiver: 0, size: 10KB}
)";

TEST(Parts, EveryRegisteredCongestionControlBuildsWithItsFeedback) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  const PartContext ctx{[] { return Time::from_us(10); }, [] { return 100u; },
                        [] { return Time::from_us(10); }, [](int, int) { return 0u; }};
  const std::vector<std::string> names = congestion_control_names();
  ASSERT_EQ(names.front(), "none");
  for (const std::string& n : names) {
    SCOPED_TRACE(n);
    FabricConfig cfg;
    cfg.cc = n;
    const auto cc = make_congestion_control(cfg, ctx);
    if (n == "none") {
      EXPECT_EQ(cc, nullptr);
      EXPECT_STREQ(make_receiver_feedback(nullptr, net)->name(), "none");
      continue;
    }
    ASSERT_NE(cc, nullptr);
    EXPECT_EQ(cc->name(), n);
    EXPECT_STREQ(make_receiver_feedback(cc.get(), net)->name(), cc->feedback());
  }
  FabricConfig bad;
  bad.cc = "reno";
  EXPECT_THROW((void)make_congestion_control(bad, ctx), std::invalid_argument);
}

TEST(Parts, FeedbackMatchesWhatEachAlgorithmReads) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  const PartContext ctx{[] { return Time::from_us(10); }, [] { return 100u; },
                        [] { return Time::from_us(10); }, [](int, int) { return 0u; }};
  const std::pair<const char*, const char*> want[] = {{"dcqcn", "cnp"},
                                                      {"dctcp", "ecn-echo"},
                                                      {"timely", "rtt-echo"},
                                                      {"hpcc", "int-echo"},
                                                      {"ibcc", "ecn-echo"}};
  for (const auto& [cc_name, fb] : want) {
    FabricConfig cfg;
    cfg.cc = cc_name;
    EXPECT_STREQ(make_congestion_control(cfg, ctx)->feedback(), fb) << cc_name;
  }
}

TEST(Parts, ABlockForAnAlgorithmNotInUseIsRefusedWithItsLine) {
  try {
    (void)load_scenario_text(kScenario, "t.yaml");
    FAIL() << "an hpcc block under DCQCN was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 6);
    EXPECT_NE(e.message().find("has no effect"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("'dcqcn'"), std::string::npos) << e.what();
  }
  // The same block is taken once the fabric runs that algorithm.
  const Scenario s = load_scenario_text(kScenario, "t.yaml", {"fabric.cc=hpcc"});
  EXPECT_DOUBLE_EQ(s.fabric.hpcc.eta, 0.9);
}

TEST(Parts, UnknownCongestionControlNamesTheRegisteredOnes) {
  try {
    (void)load_scenario_text(kScenario, "t.yaml", {"fabric.cc=reno"});
    FAIL();
  } catch (const InputError& e) {
    for (const std::string& n : congestion_control_names())
      EXPECT_NE(e.message().find(n), std::string::npos) << e.what();
  }
}

// An INT record names its port by the switch's node id in 16 bits
// (IntHop::port_id): a switch beyond it is refused when the fabric is built,
// not reported under another switch's name.
TEST(Parts, IntTelemetryRefusesASwitchWhoseIdDoesNotFitItsPortId) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  const FabricConfig cfg;
  const Switch fits(net, 65'535, "s65535", cfg.sw.mmu, 4, 1);
  EXPECT_NO_THROW((void)make_congestion_point("int", cfg, fits));
  const Switch beyond(net, 65'536, "s65536", cfg.sw.mmu, 4, 1);
  try {
    (void)make_congestion_point("int", cfg, beyond);
    FAIL() << "a switch with node id 65,536 was given INT";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'s65536' is node 65536"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rdmasim
