// PFC storm and deadlock (issue 14 item 4): a stuck receiver's pause spreads
// through the fabric to flows that never go near it, and the PFC watchdog
// contains it; a ring whose routes form a cyclic buffer dependency deadlocks
// under PFC, is reported by its cycle and ends the run, while the same
// workload on InfiniBand credits with up*/down* routing completes.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"
#include "support/temp_file.h"

namespace rdmasim {
namespace {

// Two leaves of four hosts under one spine, lossless on priority 3. h0's NIC
// stops draining at 10 us and drains again at 1 ms. h4 and h5 send to h0
// (the culprits); h6 -> h1 and h7 -> h2 cross the same spine into leaf0, and
// h5 -> h7 never leaves leaf1: all three are innocent.
std::string storm_yaml(const std::string& watchdog) {
  return R"(name: storm
seed: 5
duration: 30ms
topology:
  type: leaf-spine
  leaves: 2
  hosts_per_leaf: 4
  spines: 1
  link: {rate: 100Gbps, delay: 1us}
  switch: {buffer: 1MiB}
fabric:
  profile: ethernet-lossy
  pfc: {enabled: true)" +
         watchdog + R"(}
workload:
  - {type: flow, src: 4, dst: 0, size: 1MiB}
  - {type: flow, src: 5, dst: 0, size: 1MiB}
  - {type: flow, src: 6, dst: 1, size: 2MiB}
  - {type: flow, src: 7, dst: 2, size: 2MiB}
  - {type: flow, src: 5, dst: 7, size: 2MiB}
faults:
  - {at: 10us, link: "h0:0", action: stuck}
  - {at: 1ms, link: "h0:0", action: unstuck}
)";
}

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json members have no noexcept default constructor
struct StormRun {
  int innocent_done_before_unstuck = 0;  // of 3
  int innocent_finished = 0;
  int switch_ports_paused = 0;  // switch ports ever paused
  int ports_paused = 0;         // any port, NICs included
  uint32_t peak = 0;
  std::string invariants;
  nlohmann::ordered_json pfc;  // results.json network.pfc
};

StormRun run_storm(const std::string& watchdog) {
  Experiment e(load_scenario_text(storm_yaml(watchdog), "<storm>"));
  e.run();
  StormRun r;
  r.invariants = e.invariant_error();
  for (const FlowRecord& f : e.flows()) {
    const bool innocent = f.spec.dst != 0;
    if (!innocent || !f.finished()) continue;
    ++r.innocent_finished;
    if (f.end < Time::from_ms(1)) ++r.innocent_done_before_unstuck;
  }
  const Network& net = e.fabric().net();
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i) {
      int64_t paused = 0;
      for (int tc = 0; tc < kNumTcs; ++tc) paused += net.node(n).port(i).counters().pfc_paused_ps[tc];
      if (paused == 0) continue;
      ++r.ports_paused;
      if (net.node(n).kind() == NodeKind::kSwitch) ++r.switch_ports_paused;
    }
  r.peak = net.pause_spread().peak;
  r.pfc = results_json(e)["network"]["pfc"];
  return r;
}

TEST(PfcStorm, StuckReceiverPauseSpreadsToInnocentFlowsAndTheWatchdogContainsIt) {
  const StormRun bare = run_storm("");
  EXPECT_EQ(bare.invariants, "");
  // Without a watchdog the pause reaches leaf0's uplink, the spine, leaf1's
  // uplink and every sender's NIC: no innocent flow finishes while h0 is stuck.
  EXPECT_GE(bare.switch_ports_paused, 3);
  EXPECT_GE(bare.ports_paused, 7);
  EXPECT_GE(bare.peak, 7u);
  EXPECT_EQ(bare.innocent_done_before_unstuck, 0);
  EXPECT_EQ(bare.innocent_finished, 3);  // all recover once h0 drains again
  EXPECT_FALSE(bare.pfc.contains("watchdog"));

  const std::string wd =
      ", watchdog: {enabled: true, detection_time: 200us, restoration_time: 200us, polling_interval: 10us}";
  const StormRun dog = run_storm(wd);
  EXPECT_EQ(dog.invariants, "");
  ASSERT_TRUE(dog.pfc.contains("watchdog"));
  const auto& w = dog.pfc["watchdog"];
  ASSERT_GE(w["storms_detected"].get<uint64_t>(), 1u);
  EXPECT_GT(w["dropped_packets"].get<uint64_t>(), 0u);
  // The first storm is on leaf0's port to h0, declared within one polling
  // interval after the pause has held for detection_time.
  const auto& first = w["events"][0];
  EXPECT_EQ(first["port"], "leaf0:0");
  EXPECT_EQ(first["priority"], 3);
  EXPECT_EQ(first["event"], "storm");
  const double after = first["detected_after_us"].get<double>();
  EXPECT_GE(after, 200.0);
  EXPECT_LE(after, 210.0);
  // Only that queue: the pauses it spread upstream lift once it drops, before
  // they have lasted detection_time themselves.
  EXPECT_EQ(w["storms_detected"].get<uint64_t>(), 1u);
  // Contained: the innocent flows finish while h0 is still stuck.
  EXPECT_EQ(dog.innocent_done_before_unstuck, 3);
  // Restored once h0's XON has let the pauses lapse for restoration_time.
  bool restored = false;
  for (const auto& ev : w["events"])
    if (ev["event"] == "restored" && ev["port"] == "leaf0:0") {
      restored = true;
      EXPECT_GE(ev["at_us"].get<double>(), 1200.0);
      EXPECT_LE(ev["at_us"].get<double>(), 1212.0);  // XON lands ~1 us after 1 ms, then one poll
    }
  EXPECT_TRUE(restored);
  std::printf(
      "PFC storm: without the watchdog %d ports paused (%d switch ports, peak %u at once), 3 innocent flows "
      "stalled until the receiver drained; with it storm declared %.1f us into the pause, %llu packets "
      "dropped, %d/3 innocent flows done while stuck\n",
      bare.ports_paused, bare.switch_ports_paused, bare.peak, after,
      static_cast<unsigned long long>(w["dropped_packets"].get<uint64_t>()),
      dog.innocent_done_before_unstuck);
}

// Action forward: the stormed queue sends through the pauses, so the stuck
// NIC, not the switch, loses what it cannot take.
TEST(PfcStorm, WatchdogForwardIgnoresThePausesAndTheStuckNicDiscards) {
  const StormRun r = run_storm(
      ", watchdog: {enabled: true, detection_time: 200us, restoration_time: 200us, polling_interval: 10us, "
      "action: forward}");
  EXPECT_EQ(r.invariants, "");
  const auto& w = r.pfc["watchdog"];
  EXPECT_EQ(w["storms_detected"].get<uint64_t>(), 1u);
  EXPECT_EQ(w["storms_restored"].get<uint64_t>(), 1u);
  EXPECT_EQ(w["dropped_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(w["queues"][0]["port"], "leaf0:0");
  EXPECT_EQ(r.innocent_done_before_unstuck, 3);
}

// Five switches in a ring, one host each; every host sends to the host two
// switches clockwise, the shorter way. Each ring link carries two flows at
// line rate into a small buffer, and every ingress PG ends up holding only
// packets for the next ring link: the classic cyclic buffer dependency.
std::string ring_topology() {
  std::string t = "10 5 10\n5 6 7 8 9\n";
  for (int i = 0; i < 5; ++i) t += std::to_string(i) + " " + std::to_string(5 + i) + " 100Gbps 1000ns 0\n";
  for (int i = 0; i < 5; ++i)
    t += std::to_string(5 + i) + " " + std::to_string(5 + (i + 1) % 5) + " 100Gbps 1000ns 0\n";
  return t;
}

// `switch`: topology.switch keys (a small buffer fills in microseconds; an
// InfiniBand switch has no shared buffer to size, its credits bound each VL).
std::string ring_yaml(const std::string& topo_file, const std::string& sw, const std::string& fabric) {
  std::string y = "name: ring\nseed: 7\nduration: 50ms\ntopology: {type: file, file: " + topo_file + sw +
                  "}\nfabric:\n" + fabric + "workload:\n";
  for (int i = 0; i < 5; ++i)
    y += "  - {type: flow, src: " + std::to_string(i) + ", dst: " + std::to_string((i + 2) % 5) +
         ", size: 4MiB}\n";
  return y;
}

TEST(PfcDeadlock, RingOfFiveSwitchesDeadlocksUnderPfcButNotOnInfinibandUpDown) {
  const testing::TempFile topo(ring_topology(), "ring");
  {
    Experiment e(load_scenario_text(ring_yaml(topo.path(), ", switch: {buffer: 1MiB}",
                                              "  profile: ethernet-lossy\n  pfc: {enabled: true}\n"),
                                    "<ring-pfc>"));
    e.run();
    const DeadlockReport* d = e.deadlock();
    ASSERT_NE(d, nullptr);
    // Every egress queue toward the next switch clockwise waits on the next.
    EXPECT_EQ(d->text(),
              "sw5:1 prio3 -> sw6:2 prio3 -> sw7:2 prio3 -> sw8:2 prio3 -> sw9:2 prio3 -> sw5:1 prio3");
    EXPECT_LT(e.sim().now(), Time::from_ms(50));  // ended, not timed out
    EXPECT_LT(e.completed(), e.flows().size());
    const auto j = results_json(e);
    EXPECT_EQ(j["run"]["status"], "deadlock");
    EXPECT_EQ(j["deadlock"]["cycle"].size(), 5u);
    EXPECT_NE(summary_text(e).find("DEADLOCK"), std::string::npos);
    std::printf("PFC ring: %s, detected at %.1f us, %zu of %zu flows done\n", d->text().c_str(), d->at.us(),
                e.completed(), e.flows().size());
  }
  {
    Experiment e(load_scenario_text(ring_yaml(topo.path(), "", "  profile: ib-ndr\n  ib: {routing: updn}\n"),
                                    "<ring-ib>"));
    e.run();
    EXPECT_EQ(e.deadlock(), nullptr);
    EXPECT_EQ(e.completed(), e.flows().size());
    EXPECT_EQ(e.invariant_error(), "");
    EXPECT_FALSE(results_json(e)["run"].contains("status"));
  }
}

std::string refused(const std::string& fabric, const std::string& faults = "") {
  const std::string yaml = "name: k\nduration: 1ms\ntopology: {type: star, hosts: 2}\nfabric:\n" + fabric +
                           "workload:\n  - {type: flow, src: 0, dst: 1, size: 1KiB}\n" + faults;
  try {
    (void)load_scenario_text(yaml, "<k>");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PfcWatchdogKeys, RefusedOutOfRangeOrWhereTheyHaveNoEffect) {
  const std::string on = "  profile: rocev2-dcqcn\n  pfc: {watchdog: {enabled: true, ";
  EXPECT_EQ(refused(on + "detection_time: 100us, polling_interval: 10us}}\n"), "");
  EXPECT_NE(refused(on + "detection_time: 500ns}}\n").find("detection_time"), std::string::npos);
  EXPECT_NE(refused(on + "detection_time: 10s}}\n").find("detection_time"), std::string::npos);
  EXPECT_NE(refused(on + "restoration_time: 100s}}\n").find("restoration_time"), std::string::npos);
  EXPECT_NE(refused(on + "restoration_time: 0us}}\n").find("restoration_time"), std::string::npos);
  EXPECT_NE(refused(on + "detection_time: 100us, polling_interval: 200us}}\n").find("polling_interval"),
            std::string::npos);
  EXPECT_NE(refused(on + "action: pause}}\n").find("action"), std::string::npos);
  // No effect: the watchdog off, PFC off, or a credit fabric.
  EXPECT_NE(
      refused("  profile: rocev2-dcqcn\n  pfc: {watchdog: {detection_time: 1ms}}\n").find("watchdog is off"),
      std::string::npos);
  EXPECT_NE(refused("  profile: ethernet-lossy\n  pfc: {watchdog: {enabled: true}}\n").find("PFC is off"),
            std::string::npos);
  EXPECT_NE(refused("  profile: ethernet-lossy\n  pfc: {deadlock_detection: 1ms}\n").find("PFC is off"),
            std::string::npos);
  EXPECT_NE(refused("  profile: ib-ndr\n  pfc: {watchdog: {enabled: true}}\n").find("credit"),
            std::string::npos);
  // A stuck receiver is a NIC on a PFC fabric.
  const std::string stuck = "faults:\n  - {at: 1us, link: \"h0:0\", action: stuck}\n";
  EXPECT_EQ(refused("  profile: rocev2-dcqcn\n", stuck), "");
  EXPECT_NE(refused("  profile: ethernet-lossy\n", stuck).find("PFC"), std::string::npos);
  EXPECT_NE(refused("  profile: ib-ndr\n", stuck).find("PFC"), std::string::npos);
  EXPECT_NE(refused("  profile: rocev2-dcqcn\n", "faults:\n  - {at: 1us, link: \"sw0:0\", action: stuck}\n")
                .find("NIC"),
            std::string::npos);
}

}  // namespace
}  // namespace rdmasim
