// A failed link on an InfiniBand fat-tree: traffic over it stalls until the
// subnet manager has noticed (detection delay), recomputed and written new
// LFTs (compute time), then recovers; lost packets are fault drops, never a
// flow-control violation, and credits stay conserved.
#include <gtest/gtest.h>

#include "config/scenario.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "validate/ib_experiments.h"

namespace rdmasim {
namespace {

TEST(LinkFailure, StallsUntilTheSubnetManagerReroutesThenRecovers) {
  const Time fail = Time::from_us(10), detect = Time::from_us(10), compute = Time::from_us(20);
  const IbLinkFailureRun r = run_ib_link_failure(4, false, false, 4 << 20, fail, detect, compute, 3);
  EXPECT_EQ(r.invariants, "");
  EXPECT_EQ(r.completed, r.flows);
  ASSERT_GT(r.affected_flows, 0);
  EXPECT_EQ(r.rerouted_at, fail + detect + compute);
  // Progress resumes only once the new LFTs are in, and then within a few
  // round trips: the first rerouted packet is out of sequence, the NAK goes
  // back, and the resent packet queues behind what the sender kept sending
  // meanwhile on paths now shared with other flows; each of the three waits
  // behind at most one full VL buffer (7.9 us in all at 128 KiB).
  EXPECT_GE(r.recovered_at, r.rerouted_at);
  EXPECT_LE(r.recovered_at,
            r.rerouted_at + Time::from_us(10) + vl_buffer_waits(find_profile("ib-ndr").config));
  EXPECT_GE(r.longest_stall, detect + compute - Time::from_us(2));
  EXPECT_GT(r.fault_drops, 0u);
  // Go-back-N resends at least every packet the dead link swallowed.
  EXPECT_GE(r.retransmitted_packets, r.fault_drops);
  EXPECT_EQ(r.timeouts, 0u);
  std::printf(
      "failed %s: %d flows affected, rerouted at %.3f us, recovered at %.3f us (%.3f us after the "
      "failure), stall %.3f us, %llu fault drops, %llu bytes retransmitted\n",
      r.failed_link.c_str(), r.affected_flows, r.rerouted_at.us(), r.recovered_at.us(), r.recovery.us(),
      r.longest_stall.us(), static_cast<unsigned long long>(r.fault_drops),
      static_cast<unsigned long long>(r.retransmitted_bytes));
}

// SHIELD: the aggregation switch takes another core at once (FLFR), so no
// flow over the failed link stalls for the SM (whose LFTs still come 600 us
// after the failure); the core cut off from the pod notifies the other
// pods' aggregation switches, which stop sending it that pod's traffic (here
// the hit flows' ACKs) after flfn_delay (FLFN): what it loses grows with that
// delay, and no flow waits for a timeout.
TEST(LinkFailure, ShieldReroutesAtOnceAndTheNoticeBoundsWhatIsLost) {
  const Time fail = Time::from_us(10);
  uint64_t lost_before = 0;
  for (const Time flfn : {Time::from_us(10), Time::from_us(40)}) {
    FabricConfig cfg = find_profile("ib-ndr").config;
    ASSERT_TRUE(cfg.ib.sm.shield) << "on in the profile, as opensm.conf ships it";
    cfg.ib.sm.flfn_delay = flfn;
    const LinkFailureRun r = run_link_failure(cfg, 4, 4 << 20, fail, 3, Time::from_s(2));
    EXPECT_EQ(r.invariants, "");
    EXPECT_EQ(r.completed, r.flows);
    ASSERT_GT(r.affected_flows, 0);
    EXPECT_EQ(r.timeouts, 0u);
    EXPECT_EQ(r.rerouted_at, fail + cfg.ib.sm.detection_delay + cfg.ib.sm.compute_time);
    std::printf("SHIELD, FLFN %.0f us: %d flows hit, longest stall %.1f us, %llu fault drops\n", flfn.us(),
                r.affected_flows, r.longest_stall.us(), static_cast<unsigned long long>(r.fault_drops));
    EXPECT_LT(r.longest_stall, Time::from_us(2));
    EXPECT_GT(r.fault_drops, lost_before) << "a later notice loses more at the core";
    lost_before = r.fault_drops;
  }
}

// Runs the k=4 ib-ndr fat-tree permutation with these link-state changes of
// agg0_0 port 2 and returns whether that port ends up.
bool flap(const std::string& faults, std::string& invariants, bool& all_finished) {
  const std::string yaml = R"(name: flap
seed: 3
duration: 100ms
topology: {type: fat-tree, k: 4, link: {rate: 400Gbps, delay: 25ns}}
fabric:
  profile: ib-ndr
  ib: {sm_detection_delay: 100us, sm_compute_time: 500us}
workload:
  - {type: permutation, size: 4MiB}
faults:
)" + faults;
  Experiment e(load_scenario_text(yaml, "<flap>"));
  e.run();
  invariants = e.invariant_error();
  all_finished = true;
  for (const auto& f : e.flows()) all_finished = all_finished && f.finished();
  for (const Switch* sw : e.fabric().switches())
    if (sw->name() == "agg0_0") return sw->port(2).up();
  ADD_FAILURE() << "no agg0_0";
  return false;
}

TEST(LinkFailure, ALinkBackUpBeforeItsWireDrainsRetrainsOnceThePacketsHaveLanded) {
  // Down at 50 us and up 10 ns later, with full-rate traffic on the link: the
  // packets already on the wire land after the requested "up". The link must
  // come up only then, or the credit resynchronisation would miss them.
  std::string inv;
  bool done = false;
  EXPECT_TRUE(
      flap("  - {at: 50us, link: 'agg0_0:2', action: down}\n"
           "  - {at: 50.01us, link: 'agg0_0:2', action: up}\n",
           inv, done));
  EXPECT_EQ(inv, "");
  EXPECT_TRUE(done);
}

TEST(LinkFailure, ADownRequestedWhileAnUpWaitsForTheWireWins) {
  // The up at 50.01 us waits for the wire (a few hundred ns); the down at
  // 50.2 us comes in meanwhile and must not be overridden by the waiting up.
  std::string inv;
  bool done = false;
  EXPECT_FALSE(
      flap("  - {at: 50us, link: 'agg0_0:2', action: down}\n"
           "  - {at: 50.01us, link: 'agg0_0:2', action: up}\n"
           "  - {at: 50.2us, link: 'agg0_0:2', action: down}\n",
           inv, done));
  EXPECT_EQ(inv, "");
  EXPECT_TRUE(done);  // rerouted by the subnet manager; a lost tail waits out the 67 ms local ACK timeout
}

// The same failure on the Ethernet fabrics: the detection, ECMP repair and
// BGP reconvergence land exactly when the profile says, nothing is lost in a
// lossless class, every flow finishes, and the last affected flow resumes
// after the repair and within one transport timer of the reconvergence.
TEST(LinkFailure, EthernetRepairsLocallyThenReconvergesAndEveryFlowFinishes) {
  for (const char* name : {"rocev2-dcqcn-400g", "iwarp-dctcp"}) {
    FabricConfig cfg = find_profile(name).config;
    cfg.reroute.link_detect = Time::from_us(20);
    cfg.reroute.local_repair = Time::from_us(30);
    cfg.reroute.bgp_convergence = Time::from_us(300);
    cfg.rc.rto = Time::from_us(500);
    cfg.tcp.min_rto = Time::from_ms(1);
    const Time fail = Time::from_us(50);
    const LinkFailureRun r = run_link_failure(cfg, 4, 8 << 20, fail, 3, Time::from_s(1));
    SCOPED_TRACE(name);
    EXPECT_EQ(r.invariants, "");
    EXPECT_EQ(r.completed, r.flows);
    ASSERT_GT(r.affected_flows, 0);
    EXPECT_EQ(r.detected_at, fail + Time::from_us(20));
    EXPECT_EQ(r.repaired_at, fail + Time::from_us(50));
    EXPECT_EQ(r.rerouted_at, fail + Time::from_us(320));
    EXPECT_GE(r.recovered_at, r.repaired_at);
    const Time timer = cfg.transport == "iwarp" ? cfg.tcp.min_rto * 2 : cfg.rc.rto * 8;
    EXPECT_LE(r.recovered_at, r.rerouted_at + timer);
    EXPECT_GT(r.fault_drops, 0u);
    EXPECT_GT(r.retransmitted_packets, 0u);
    std::printf("%s: failed %s, %d flows hit, recovered %.1f us after the failure, %llu fault drops\n", name,
                r.failed_link.c_str(), r.affected_flows, r.recovery.us(),
                static_cast<unsigned long long>(r.fault_drops));
  }
}

}  // namespace
}  // namespace rdmasim
