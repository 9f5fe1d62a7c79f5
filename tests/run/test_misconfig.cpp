// Misconfiguration injections (misconfig:): each changes what its real
// counterpart changes, shown against the same run correctly configured. The
// run: eight hosts on one switch WRITE 2 MiB each into one host behind a
// second switch (RoCEv2, DCQCN, PFC on class 3), so the inter-switch link
// and the receiver's port congest and PFC must hold the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/error.h"
#include "config/scenario.h"
#include "net/switch.h"
#include "report/results.h"
#include "run/experiment.h"
#include "support/workload_errors.h"

namespace rdmasim {
namespace {

std::string incast(const std::string& misconfig, const std::string& buffer = "4MiB",
                   const std::string& fabric_extra = "", const std::string& profile = "rocev2-dcqcn") {
  return R"(name: misconfig
seed: 3
duration: 20ms
topology:
  type: dumbbell
  left: 8
  right: 2
  switch: {buffer: )" +
         buffer + R"(}
fabric:
  profile: )" +
         profile + "\n" + fabric_extra + R"(workload:
  - {type: incast, senders: 8, receiver: 8, size: 2MiB, placement: sequential}
)" + (misconfig.empty() ? std::string() : "misconfig:\n" + misconfig);
}

struct Outcome {
  size_t finished = 0;
  uint64_t lossless_drops = 0;  // where the class was lossless
  uint64_t class_drops[8]{};    // per class, at any switch port
  uint64_t buffer_drops = 0;
  uint64_t oversize = 0;
  uint64_t xoff = 0;
  uint64_t pfc_tx_class[8]{};
  uint64_t ecn = 0;
  uint64_t peak_buffer = 0;
  uint64_t retransmitted = 0;
  std::vector<double> fct_us;  // by flow, as the incast placed them
  std::vector<int> src;
  std::string invariants;
  std::string summary;
};

Outcome run(const std::string& yaml) {
  Experiment e(load_scenario_text(yaml, "<t>"));
  e.run();
  Outcome o;
  for (const auto& f : e.flows()) {
    o.finished += f.finished() ? 1 : 0;
    o.fct_us.push_back(f.finished() ? f.fct().us() : 1e12);
    o.src.push_back(f.spec.src);
  }
  for (const Switch* sw : e.fabric().switches()) {
    o.lossless_drops += sw->counters().lossless_drops;
    o.buffer_drops += sw->counters().buffer_drops;
    o.oversize += sw->counters().oversize_drops;
    o.xoff += sw->counters().pfc_xoff_sent;
    o.ecn += sw->counters().ecn_marked;
    o.peak_buffer = std::max(o.peak_buffer, sw->mmu().peak());
    for (size_t i = 0; i < sw->num_ports(); ++i)
      for (int tc = 0; tc < 8; ++tc) {
        o.class_drops[tc] += sw->port(i).counters().drop_packets[tc];
        o.pfc_tx_class[tc] += sw->port(i).counters().pfc_tx_frames[tc];
      }
  }
  o.retransmitted = e.fabric().verbs().total_stats().retransmitted_packets;
  o.invariants = e.invariant_error();
  o.summary = summary_text(e);
  return o;
}

double fct_of(const Outcome& o, int src) {
  for (size_t i = 0; i < o.src.size(); ++i)
    if (o.src[i] == src) return o.fct_us[i];
  return -1;
}

TEST(Misconfig, TheCorrectConfigurationPausesAndDropsNothing) {
  const Outcome ok = run(incast(""));
  EXPECT_EQ(ok.finished, 8u);
  EXPECT_EQ(ok.class_drops[3], 0u);
  EXPECT_GT(ok.xoff, 0u);
  EXPECT_EQ(ok.invariants, "");
  EXPECT_EQ(ok.summary.find("MISCONFIGURED"), std::string::npos);
}

// PFC off: the switches stop pausing and the lossless class tail-drops; go-back-N
// recovers every flow. The drops are the run's finding, not a broken invariant.
TEST(Misconfig, PfcOffTurnsPausesIntoDrops) {
  const Outcome ok = run(incast(""));
  const Outcome off = run(incast("  - {switch: all, set: {pfc: {enabled: false}}}\n"));
  EXPECT_EQ(off.xoff, 0u);
  EXPECT_GT(off.class_drops[3], 0u);
  EXPECT_EQ(off.lossless_drops, 0u);  // dropped as lossy: the switch no longer treats class 3 as lossless
  EXPECT_GT(off.retransmitted, ok.retransmitted);
  EXPECT_EQ(off.finished, 8u);
  EXPECT_EQ(off.invariants, "");
  EXPECT_NE(off.summary.find("MISCONFIGURED switch all: pfc.enabled"), std::string::npos) << off.summary;
  EXPECT_NE(off.summary.find("lossless-class drops " + std::to_string(off.class_drops[3])), std::string::npos)
      << off.summary;
  // PFC off where the congestion is (swL, whose link to swR the eight
  // senders share) drops; off at swR, which never congests here, nothing does.
  const Outcome left = run(incast("  - {switch: swL, set: {pfc: {enabled: false}}}\n"));
  EXPECT_GT(left.class_drops[3], 0u);
  const Outcome right = run(incast("  - {switch: swR, set: {pfc: {enabled: false}}}\n"));
  EXPECT_EQ(right.class_drops[3], 0u);
  EXPECT_GT(right.xoff, 0u);
}

// PFC on priority 4 while RoCE runs on 3: class 3 is lossy at the switch and
// no PAUSE ever names it.
TEST(Misconfig, PfcOnTheWrongPriorityLeavesTheTrafficLossy) {
  const Outcome wrong = run(incast("  - {switch: all, set: {pfc: {classes: [4]}}}\n"));
  EXPECT_EQ(wrong.pfc_tx_class[3], 0u);
  EXPECT_GT(wrong.class_drops[3], 0u);
  EXPECT_EQ(wrong.finished, 8u);
}

// Headroom below what the link needs: what arrives after XOFF overflows it.
TEST(Misconfig, HeadroomBelowNeedDropsLosslessPackets) {
  const Outcome ok = run(incast(""));
  const Outcome small = run(incast("  - {switch: all, set: {pfc: {headroom: 2KB}}}\n"));
  EXPECT_EQ(ok.lossless_drops, 0u);
  EXPECT_GT(small.lossless_drops, 0u);
  EXPECT_EQ(small.invariants, "");
  // The same headroom written into the fabric, not injected: a violation the run reports.
  const Outcome plain = run(incast("", "4MiB", "  pfc: {headroom: 2KB}\n"));
  EXPECT_NE(plain.invariants.find("lossless class dropped"), std::string::npos) << plain.invariants;
  EXPECT_NE(plain.invariants.find("fabric.pfc.headroom"), std::string::npos) << plain.invariants;
}

// A NIC that ignores PAUSE keeps sending into a full headroom.
TEST(Misconfig, NicsIgnoringPauseOverrunTheHeadroom) {
  const Outcome deaf = run(incast("  - {nic: all, set: {pfc: {enabled: false}}}\n"));
  EXPECT_GT(deaf.lossless_drops, 0u);
  EXPECT_EQ(deaf.finished, 8u);
}

// XOFF above the default dynamic threshold: the buffer fills further before
// the switch pauses, and it pauses less.
TEST(Misconfig, XoffTooHighFillsTheBufferBeforePausing) {
  const Outcome ok = run(incast(""));
  const Outcome high = run(incast("  - {switch: all, set: {pfc: {xoff: 3MiB}}}\n"));
  EXPECT_GT(high.peak_buffer, ok.peak_buffer + (1u << 20));
  EXPECT_LT(high.xoff, ok.xoff);
}

// XON hysteresis too small: PAUSE and XON chatter; too large: the upstream
// stays paused long after the queue drained below XOFF.
TEST(Misconfig, XonOffsetOffMakesPausesChatterOrLinger) {
  const Outcome ok = run(incast(""));
  const Outcome chatter = run(incast("  - {switch: all, set: {pfc: {xon_offset: 64B}}}\n"));
  EXPECT_GT(chatter.xoff, 2 * ok.xoff);
  Experiment lingering(
      load_scenario_text(incast("  - {switch: all, set: {pfc: {xon_offset: 1MiB}}}\n"), "<t>"));
  lingering.run();
  Experiment correct(load_scenario_text(incast(""), "<t>"));
  correct.run();
  auto paused = [](const Experiment& e) {
    double us = 0;
    const Network& net = e.fabric().net();
    for (size_t n = 0; n < net.num_nodes(); ++n)
      for (size_t i = 0; i < net.node(n).num_ports(); ++i)
        us += net.node(n).port(i).paused_time(3, e.sim().now()).us();
    return us;
  };
  EXPECT_GT(paused(lingering), 2 * paused(correct));
}

// ECN off, or Kmin above any queue the buffer lets form: marks vanish, DCQCN
// never slows down, and PFC carries the congestion instead.
TEST(Misconfig, EcnOffOrTooHighMakesMarksVanishAndPausesRise) {
  const Outcome ok = run(incast(""));
  for (const char* m : {"  - {switch: all, set: {ecn: {enabled: false}}}\n",
                        "  - {switch: all, set: {ecn: {kmin: 3MiB, kmax: 3MiB}}}\n"}) {
    const Outcome off = run(incast(m));
    EXPECT_GT(ok.ecn, 0u);
    EXPECT_EQ(off.ecn, 0u) << m;
    EXPECT_GT(off.xoff, 2 * ok.xoff) << m;
  }
  // Kmin too low marks at shallow queues: many more marks.
  const Outcome low = run(incast("  - {switch: all, set: {ecn: {kmin: 1KB, kmax: 2KB}}}\n"));
  EXPECT_GT(low.ecn, 2 * ok.ecn);
}

// One NIC whose DCQCN recovers 125 times faster (R_AI 5 Gb/s) takes the
// bandwidth the others give up after their CNPs.
TEST(Misconfig, OneNicsAggressiveDcqcnIsUnfairToTheOthers) {
  const Outcome ok = run(incast(""));
  const Outcome bad = run(incast("  - {nic: h0, set: {dcqcn: {rate_ai: 5Gbps, rate_hai: 50Gbps}}}\n"));
  std::vector<double> others;
  for (size_t i = 0; i < bad.src.size(); ++i)
    if (bad.src[i] != 0) others.push_back(bad.fct_us[i]);
  std::sort(others.begin(), others.end());
  const double median = others[others.size() / 2];
  EXPECT_LT(fct_of(bad, 0), median / 2);
  EXPECT_GT(fct_of(ok, 0), fct_of(bad, 0) * 2);
}

// HPCC with one NIC aiming at 30% utilisation instead of 95% (eta): that
// NIC backs off first and finishes last, the others share what it leaves.
TEST(Misconfig, OneNicsHpccTargetTooLowMakesItTheLastToFinish) {
  const Outcome ok = run(incast("", "4MiB", "", "rocev2-hpcc"));
  const Outcome bad = run(incast("  - {nic: h0, set: {hpcc: {eta: 0.3}}}\n", "4MiB", "", "rocev2-hpcc"));
  double others_worst = 0;
  for (size_t i = 0; i < bad.src.size(); ++i)
    if (bad.src[i] != 0) others_worst = std::max(others_worst, bad.fct_us[i]);
  EXPECT_GT(fct_of(bad, 0), others_worst);
  EXPECT_GT(fct_of(bad, 0), fct_of(ok, 0) * 1.2);
  EXPECT_EQ(bad.finished, 8u);
}

// A NIC marking its data with priority 0 (DSCP mismatch): its packets land
// in a lossy queue, are dropped and resent, while the others stay lossless.
TEST(Misconfig, ANicOnTheWrongPriorityIsDroppedWhileTheOthersArePaused) {
  const Outcome bad = run(incast("  - {nic: h0, set: {data_tc: 0}}\n", "1MiB"));
  EXPECT_GT(bad.class_drops[0], 0u);
  EXPECT_EQ(bad.class_drops[3], 0u);
  EXPECT_GT(bad.retransmitted, 0u);
  EXPECT_EQ(bad.finished, 8u);
}

// A switch MTU below the fabric's drops every full frame: no flow through it
// finishes; on one port, only the flows crossing it.
TEST(Misconfig, AnMtuBelowTheFabricsDropsFullFrames) {
  const Outcome all = run(incast("  - {switch: all, set: {mtu: 512B}}\n"));
  EXPECT_GT(all.oversize, 0u);
  EXPECT_EQ(all.finished, 0u);
  // swL's port 8 is its link to swR: the senders under swL cross it, h9 does not.
  const Outcome one = run(incast("  - {port: \"swL:8\", set: {mtu: 512B}}\n"));
  EXPECT_GT(one.oversize, 0u);
  EXPECT_EQ(one.finished, 1u);
  EXPECT_GT(fct_of(one, 9), 0);
  EXPECT_LT(fct_of(one, 9), 1e6);
}

TEST(Misconfig, BadInjectionsAreRefusedAtTheirKey) {
  auto has = [](const std::string& got, const std::string& want) {
    return got.find(want) != std::string::npos;
  };
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: spine9, set: {pfc: {headroom: 2KB}}}\n")),
               "no node named 'spine9'");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {nic: swL, set: {data_tc: 0}}\n")), "is a switch");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: h0, set: {mtu: 512B}}\n")), "is a host");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {port: \"swL:99\", set: {mtu: 512B}}\n")),
               "expected a port of 'swL'");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: swL, nic: h0, set: {mtu: 512B}}\n")),
               "exactly one of");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: swL, set: {rto: 1ms}}\n")),
               "cannot be injected");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {nic: h0, set: {pfc: {headroom: 2KB}}}\n")),
               "not on a nic");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: swL, set: {dcqcn: {rate_ai: 1Gbps}}}\n")),
               "set them with nic:");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: swL, set: {pfc: {enabled: true}}}\n")),
               "has no effect");
  EXPECT_PRED2(
      has,
      testing::scenario_refusal(incast("  - {switch: swL, set: {mtu: 4096B}}\n", "4MiB", "  mtu: 2048B\n")),
      "has no effect");
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {switch: swL}\n")), "set");
  EXPECT_PRED2(has,
               testing::scenario_refusal(incast(
                   "  - {switch: swL, set: {mtu: 512B}}\n  - {switch: all, set: {pfc: {xoff: 1MiB}}}\n")),
               "must come before");
  // Injections the profile has no use for.
  EXPECT_PRED2(has,
               testing::scenario_refusal(
                   incast("  - {switch: all, set: {pfc: {enabled: false}}}\n", "4MiB", "", "iwarp-cubic")),
               "does not apply to profile 'iwarp-cubic'");
  EXPECT_PRED2(has,
               testing::scenario_refusal(
                   incast("  - {switch: all, set: {ecn: {enabled: false}}}\n", "4MiB", "", "rocev2-hpcc")),
               "does not react to ECN marks");
  EXPECT_PRED2(
      has, testing::scenario_refusal(incast("  - {nic: h0, set: {data_tc: 0}}\n", "unlimited", "", "ib-ndr")),
      "does not apply to profile 'ib-ndr'");
  // A value out of the key's own range is the fabric schema's error.
  EXPECT_PRED2(has, testing::scenario_refusal(incast("  - {nic: h0, set: {data_tc: 9}}\n")), "data_tc");
  // What INT reports is the switches': on one NIC it would change nothing.
  EXPECT_PRED2(has,
               testing::scenario_refusal(
                   incast("  - {nic: h0, set: {hpcc: {int: class}}}\n", "4MiB", "", "rocev2-hpcc")),
               "not one NIC's");
}

}  // namespace
}  // namespace rdmasim
