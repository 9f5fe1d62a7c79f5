// Faults beyond a plain link down: a whole switch, a gray (silent) failure
// found by BFD, a degraded link, a flapping link; the incident report's
// figures against the timings the fabric models; and the bad input a
// faults list can hold, refused at its key.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"
#include "support/workload_errors.h"

namespace rdmasim {
namespace {

// Four hosts under leaf0 each WRITE to one under leaf1, over two spines
// whose links are four times a host link: one spine alone carries them all.
std::string leaf_spine(const std::string& faults, const std::string& extra = "",
                       const std::string& size = "64MiB") {
  return R"(name: faults
seed: 7
duration: 20ms
topology:
  type: leaf-spine
  leaves: 2
  hosts_per_leaf: 4
  spines: 2
  link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 400Gbps, delay: 1us}
fabric:
  profile: rocev2-dcqcn
  rto: 200us
  reroute: {link_detect: 10us, local_repair: 20us, bgp_convergence: 100us, bfd_interval: 30us, bfd_multiplier: 3}
)" + extra +
         R"(workload:
  - {type: flow, src: 0, dst: 4, size: )" +
         size + R"(}
  - {type: flow, src: 1, dst: 5, size: )" +
         size + R"(}
  - {type: flow, src: 2, dst: 6, size: )" +
         size + R"(}
  - {type: flow, src: 3, dst: 7, size: )" +
         size + R"(}
faults:
)" + faults;
}

Time first(const Experiment& e, const std::string& what) {
  for (const RecoveryEvent& ev : e.fabric().recovery_log())
    if (ev.what == what) return ev.at;
  return Time::never();
}

bool all_finished(const Experiment& e) {
  for (const auto& f : e.flows())
    if (!f.finished()) return false;
  return true;
}

TEST(Faults, ASpineSwitchDownIsRepairedAroundAndEveryFlowFinishes) {
  Experiment e(load_scenario_text(leaf_spine("  - {at: 500us, node: spine0, action: down}\n"), "<t>"));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  EXPECT_TRUE(all_finished(e));
  EXPECT_EQ(first(e, "down"), Time::from_us(500));
  EXPECT_EQ(first(e, "detected"), Time::from_us(510));
  EXPECT_EQ(first(e, "local_repair"), Time::from_us(530));
  EXPECT_EQ(first(e, "reconverged"), Time::from_us(610));
  const auto impacts = e.fault_impacts();
  ASSERT_EQ(impacts.size(), 1u);
  const FaultImpact& f = impacts[0];
  // Four 100G hosts, less headers: the pre-fault rate is what they deliver.
  ASSERT_TRUE(f.pre_fault_gbps.has_value());
  EXPECT_GT(*f.pre_fault_gbps, 300.0);
  EXPECT_LE(*f.pre_fault_gbps, 400.0);
  EXPECT_EQ(f.detected_after, Time::from_us(10));
  EXPECT_EQ(f.repaired_after, Time::from_us(30));
  EXPECT_EQ(f.rerouted_after, Time::from_us(110));
  // Some flows hashed onto spine0 stall: the rate dips, then comes back once
  // their leaf repairs its ECMP group and go-back-N resends (NAK or one
  // 200 us timeout), well before the run ends.
  EXPECT_TRUE(f.dipped);
  ASSERT_TRUE(f.recovered_after.has_value());
  EXPECT_GE(*f.recovered_after, Time::from_us(30));
  EXPECT_LE(*f.recovered_after, Time::from_us(110 + 200 * 2 + 50));
  EXPECT_GT(f.fault_drops, 0u);
  EXPECT_GT(f.retransmitted_bytes, 0u);
  EXPECT_EQ(f.lossless_drops, 0u);
  std::printf("spine0 down: %.1f -> %.1f Gb/s, back to 90%% after %.1f us, %llu lost, %llu B resent\n",
              *f.pre_fault_gbps, f.min_gbps, f.recovered_after->us(),
              static_cast<unsigned long long>(f.fault_drops),
              static_cast<unsigned long long>(f.retransmitted_bytes));
}

// A link no flow uses goes down while three flows of 8, 16 and 32 MiB run:
// the delivered rate falls as each finishes (273 -> 55 Gb/s), which is the
// workload running out, not the fault. The dip is read only from bins with
// as many connections busy as at the fault, so there is none; and a fault
// after the last flow finished has no dip measured at all (it once read 80%
// and "never back", and the last partial bin after the final delivery 100%).
TEST(Faults, ThroughputFallingAsFlowsFinishIsNoDip) {
  std::string text = leaf_spine(
      "  - {at: 200us, link: \"leaf1:3\", action: down}\n  - {at: 5ms, link: \"leaf1:3\", action: up}\n");
  const std::string flows =
      text.substr(text.find("workload:"), text.find("faults:") - text.find("workload:"));
  text.replace(text.find(flows), flows.size(),
               "workload:\n  - {type: flow, src: 0, dst: 4, size: 8MiB}\n"
               "  - {type: flow, src: 1, dst: 5, size: 16MiB}\n"
               "  - {type: flow, src: 2, dst: 6, size: 32MiB}\n");
  Experiment e(load_scenario_text(text, "<t>"));
  e.run();
  ASSERT_TRUE(all_finished(e));
  const std::vector<FaultImpact> f = e.fault_impacts();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].busy_at_fault, 3u);
  ASSERT_TRUE(f[0].pre_fault_gbps.has_value());
  EXPECT_FALSE(f[0].dipped);
  EXPECT_EQ(f[0].min_gbps, *f[0].pre_fault_gbps);
  EXPECT_EQ(f[0].recovered_after, Time::zero());
  // The run's own series does fall, by more than half, as flows finish.
  const auto& s = e.incident()->samples();
  double lowest = *f[0].pre_fault_gbps;
  for (size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i - 1].t >= Time::from_us(200))
      lowest = std::min(lowest, static_cast<double>(s[i].delivered_bytes - s[i - 1].delivered_bytes) * 8 /
                                    (s[i].t - s[i - 1].t).sec() / 1e9);
  EXPECT_LT(lowest, 0.5 * *f[0].pre_fault_gbps);
  EXPECT_EQ(f[1].busy_at_fault, 0u);
  EXPECT_FALSE(f[1].dipped);
  EXPECT_FALSE(f[1].recovered_after.has_value());
}

// A long horizon still measures an early fault: the bins were once at least
// the duration / 20,000 (1 ms here, after the fault), so the rate before it,
// the dip and the recovery went unmeasured. Now at least two bins come before
// the fault (here 250 us), and a long run's bins double after 20,000 of them.
// What a bin averages is coarser, so only the rate before the fault and the
// dip below 90% are compared, not the recovery's timing. The leaf repairs
// its ECMP group after 600 us here, so the stall fills two of the long run's
// bins (with the usual 20 us it averages out of a 250 us bin: a dip of 9%).
TEST(Faults, ALongHorizonStillMeasuresAnEarlyFault) {
  const std::string fault = "  - {at: 500us, node: spine0, action: down}\n";
  std::string text = leaf_spine(fault);
  text.replace(text.find("local_repair: 20us"), 18, "local_repair: 600us");
  text.replace(text.find("bgp_convergence: 100us"), 22, "bgp_convergence: 700us");
  std::string long_text = text;
  long_text.replace(long_text.find("duration: 20ms"), 14, "duration: 20s");
  Experiment a(load_scenario_text(text, "<t>"));
  Experiment b(load_scenario_text(long_text, "<t>"));
  a.run();
  b.run();
  ASSERT_EQ(a.incident()->first_bin(), Time::from_us(20));
  ASSERT_EQ(b.incident()->first_bin(), Time::from_us(250));
  const FaultImpact fa = a.fault_impacts().at(0);
  const FaultImpact fb = b.fault_impacts().at(0);
  ASSERT_TRUE(fa.pre_fault_gbps.has_value() && fb.pre_fault_gbps.has_value());
  // The same steady rate before the fault, whatever the bin.
  EXPECT_NEAR(*fb.pre_fault_gbps, *fa.pre_fault_gbps, 0.02 * *fa.pre_fault_gbps);
  EXPECT_TRUE(fa.dipped && fb.dipped);
  EXPECT_LT(fb.min_gbps, IncidentMonitor::kRecovered * *fb.pre_fault_gbps);
  EXPECT_EQ(fa.fault_drops, fb.fault_drops);
  EXPECT_EQ(fa.retransmitted_bytes, fb.retransmitted_bytes);
}

// Auto bins double after every 20,000: a fault at 1 us in a 100 ms horizon
// gives 500 ns bins (two before the fault), and the ~22 ms run takes 20,000
// of them, then 1 us ones, not 44,000.
TEST(Faults, AutoIncidentBinsDoubleAfterTwentyThousand) {
  std::string text = leaf_spine("  - {at: 1us, node: spine0, action: down}\n", "", "256MiB");
  text.replace(text.find("duration: 20ms"), 14, "duration: 100ms");
  Experiment e(load_scenario_text(text, "<t>"));
  e.run();
  const IncidentMonitor& m = *e.incident();
  ASSERT_EQ(m.first_bin(), Time::from_ns(500));
  ASSERT_EQ(m.doubles_every(), OutputSpec::kIncidentBinsPerWidth);
  const std::vector<IncidentSample>& s = m.samples();
  const size_t n = OutputSpec::kIncidentBinsPerWidth;
  ASSERT_GT(s.size(), n + 2);
  EXPECT_LT(s.size(), 2 * n);
  EXPECT_EQ(s[1].t - s[0].t, Time::from_ns(500));
  EXPECT_EQ(s[n].t - s[n - 1].t, Time::from_ns(500));
  EXPECT_EQ(s[n + 1].t - s[n].t, Time::from_us(1));
  // Every byte of the four flows reached its host.
  EXPECT_GE(s.back().delivered_bytes, uint64_t{4} * 256 * 1024 * 1024);
  // Nothing had reached a host by 1 us (the first frames are still on the
  // wire): no rate to fall from, so no dip and no recovery are reported.
  const FaultImpact f = e.fault_impacts().at(0);
  ASSERT_TRUE(f.pre_fault_gbps.has_value());
  EXPECT_EQ(*f.pre_fault_gbps, 0.0);
  EXPECT_FALSE(f.dipped);
  EXPECT_FALSE(f.recovered_after.has_value());
}

TEST(Faults, AGrayFailureIsFoundByBfdNotByLossOfSignal) {
  Experiment e(
      load_scenario_text(leaf_spine("  - {at: 500us, node: spine0, action: down, silent: true}\n"), "<t>"));
  e.run();
  EXPECT_TRUE(all_finished(e));
  // BFD: 3 missed hellos of 30 us, not the 10 us loss-of-signal detection.
  EXPECT_EQ(first(e, "detected"), Time::from_us(590));
  EXPECT_EQ(first(e, "local_repair"), Time::from_us(610));
}

TEST(Faults, ADegradedLinkCarriesTheFlowAtItsNewRate) {
  // One flow alone on leaf0's host link; at 1 ms that link falls to 25G.
  const std::string yaml = R"(name: degrade
seed: 1
duration: 50ms
topology: {type: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn, cc: none, ecn: {enabled: false}}
workload:
  - {type: flow, src: 0, dst: 1, size: 40MB}
faults:
  - {at: 1ms, link: "h0:0", action: degrade, rate: 25Gbps}
)";
  Experiment e(load_scenario_text(yaml, "<t>"));
  e.run();
  ASSERT_TRUE(all_finished(e));
  const FlowRecord& f = e.flows()[0];
  // Payload share of the wire at the profile's MTU, the same before and after.
  const double payload = static_cast<double>(e.fabric().config().rc.mtu) /
                         e.fabric().config().framing.data_wire(e.fabric().config().rc.mtu, false);
  const double before = 100e9 / 8 * payload * 1e-3;  // bytes in the first 1 ms
  const double expect_s = 1e-3 + (40e6 - before) / (25e9 / 8 * payload);
  EXPECT_NEAR(f.fct().sec(), expect_s, expect_s * 0.01);
  EXPECT_EQ(first(e, "degraded"), Time::from_ms(1));
}

TEST(Faults, AFlappingLinkGoesDownAndUpAsScheduledAndEndsUp) {
  Experiment e(load_scenario_text(
      leaf_spine("  - {at: 200us, node: spine0, action: flap, down_for: 20us, every: 100us, times: 3}\n"),
      "<t>"));
  e.run();
  EXPECT_TRUE(all_finished(e));
  int downs = 0, ups = 0;
  for (const RecoveryEvent& ev : e.fabric().recovery_log()) {
    downs += ev.what == "down" ? 1 : 0;
    ups += ev.what == "up" ? 1 : 0;
  }
  // spine0 has two links (one per leaf), each flapping three times.
  EXPECT_EQ(downs, 6);
  EXPECT_EQ(ups, 6);
  for (const Switch* sw : e.fabric().switches()) {
    if (sw->name() == "spine0") {
      for (size_t i = 0; i < sw->num_ports(); ++i) EXPECT_TRUE(sw->port(i).up());
    }
  }
}

TEST(Faults, BadFaultsAreRefusedAtTheirKey) {
  auto has = [](const std::string& got, const std::string& want) {
    return got.find(want) != std::string::npos;
  };
  EXPECT_PRED2(has, testing::scenario_refusal(leaf_spine("  - {at: 1us, node: spine9, action: down}\n")),
               "no node named 'spine9'");
  EXPECT_PRED2(has,
               testing::scenario_refusal(leaf_spine("  - {at: 1us, link: \"leaf0:99\", action: down}\n")),
               "link: expected a port");
  EXPECT_PRED2(
      has,
      testing::scenario_refusal(leaf_spine("  - {at: 1us, link: \"leaf0:0\", node: leaf0, action: down}\n")),
      "not both");
  EXPECT_PRED2(has, testing::scenario_refusal(leaf_spine("  - {at: 30ms, node: spine0, action: down}\n")),
               "at: the fault starts");
  EXPECT_PRED2(
      has,
      testing::scenario_refusal(leaf_spine("  - {at: 1us, node: spine0, action: down, rate: 100Gbps}\n")),
      "rate: applies to action: degrade");
  EXPECT_PRED2(has,
               testing::scenario_refusal(
                   leaf_spine("  - {at: 1us, link: \"leaf0:0\", action: degrade, rate: 100Gbps}\n")),
               "rate: a degraded link runs below its speed");
  EXPECT_PRED2(has, testing::scenario_refusal(leaf_spine("  - {at: 1us, node: spine0, action: degrade}\n")),
               "rate: action degrade needs");
  EXPECT_PRED2(
      has, testing::scenario_refusal(leaf_spine("  - {at: 1us, node: spine0, action: up, silent: true}\n")),
      "silent: applies to action: down or flap");
  EXPECT_PRED2(has,
               testing::scenario_refusal(leaf_spine(
                   "  - {at: 19ms, node: spine0, action: flap, down_for: 1ms, every: 2ms, times: 2}\n")),
               "times: the last outage starts");
  EXPECT_PRED2(has,
               testing::scenario_refusal(leaf_spine(
                   "  - {at: 1ms, node: spine0, action: flap, down_for: 2ms, every: 2ms, times: 2}\n")),
               "every > down_for");
  EXPECT_PRED2(has,
               testing::scenario_refusal(leaf_spine("  - {at: 1ms, node: spine0, action: down, times: 2}\n")),
               "times: applies to action: flap");
  EXPECT_PRED2(has, testing::scenario_refusal(leaf_spine("  - {at: 1ms, action: down}\n")),
               "expected 'link: node:port' or 'node: name'");
  // A run without faults has no incident report to bin.
  const std::string no_faults = R"(name: x
duration: 1ms
topology: {type: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn}
workload:
  - {type: flow, src: 0, dst: 1, size: 1MB}
output: {incident_interval: 10us}
)";
  EXPECT_PRED2(has, testing::scenario_refusal(no_faults), "incident_interval: applies to runs with faults");
  // InfiniBand reroutes by its subnet manager: no reroute block, no BFD.
  const std::string ib = R"(name: x
duration: 1ms
topology: {type: star, hosts: 2, link: {rate: 400Gbps, delay: 1us}}
fabric: {profile: ib-ndr, reroute: {local_repair: 1ms}}
workload:
  - {type: flow, src: 0, dst: 1, size: 1MB}
)";
  EXPECT_PRED2(has, testing::scenario_refusal(ib), "reroute: applies to Ethernet profiles");
  std::string ib_silent = ib;
  ib_silent.replace(ib_silent.find(", reroute: {local_repair: 1ms}"), 30, "");
  ib_silent += "faults:\n  - {at: 10us, link: \"h0:0\", action: down, silent: true}\n";
  EXPECT_PRED2(has, testing::scenario_refusal(ib_silent), "silent: gray failures are modelled on Ethernet");
}

// Every packet lost with a failed link is counted once: results.json's
// link_fault_drops equals the drops by packet type (no other loss here), on
// InfiniBand too, where the credit layer keeps its own view of the same
// losses (network.infiniband.fault_drops).
TEST(Faults, EachPacketLostWithALinkIsCountedOnce) {
  for (const std::string profile : {"rocev2-dcqcn", "ib-hdr"}) {
    SCOPED_TRACE(profile);
    std::string yaml = leaf_spine("  - {at: 100us, link: 'spine0:0', action: down}\n", "", "4MiB");
    yaml.replace(yaml.find("profile: rocev2-dcqcn"), 21, "profile: " + profile);
    const size_t rr = yaml.find("  reroute:");
    if (profile != "rocev2-dcqcn") yaml.erase(rr, yaml.find('\n', rr) - rr + 1);
    Experiment e(load_scenario_text(yaml, "t.yaml"));
    e.run();
    const auto j = results_json(e);
    uint64_t by_type = 0;
    for (const auto& [type, c] : j["network"]["packets"].items()) by_type += c["dropped"].get<uint64_t>();
    const uint64_t fault = j["network"]["link_fault_drops"].get<uint64_t>();
    EXPECT_GT(fault, 0u);
    EXPECT_EQ(
        j["network"]["switch_buffer_drops"].get<uint64_t>() + j["network"]["no_route_drops"].get<uint64_t>(),
        0u);
    EXPECT_EQ(fault, by_type);
    if (profile == "ib-hdr") {
      EXPECT_EQ(j["network"]["infiniband"]["fault_drops"].get<uint64_t>(), fault);
    }
  }
}

}  // namespace
}  // namespace rdmasim
