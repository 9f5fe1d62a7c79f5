// A failed link on an InfiniBand fat-tree: traffic over it stalls until the
// subnet manager has noticed (detection delay), recomputed and written new
// LFTs (compute time), then recovers; lost packets are fault drops, never a
// flow-control violation, and credits stay conserved.
#include <gtest/gtest.h>

#include "config/scenario.h"
#include "run/experiment.h"
#include "validate/ib_experiments.h"

namespace rdmasim {
namespace {

TEST(LinkFailure, StallsUntilTheSubnetManagerReroutesThenRecovers) {
  const Time fail = Time::from_us(10), detect = Time::from_us(10), compute = Time::from_us(20);
  const IbLinkFailureRun r = run_ib_link_failure(4, false, 4 << 20, fail, detect, compute, 3);
  EXPECT_EQ(r.invariants, "");
  EXPECT_EQ(r.completed, r.flows);
  ASSERT_GT(r.affected_flows, 0);
  EXPECT_EQ(r.rerouted_at, fail + detect + compute);
  // Progress resumes only once the new LFTs are in, and then within a few
  // round trips: the first rerouted packet is out of sequence, the NAK goes
  // back, and the resent packet queues behind what the sender kept sending
  // meanwhile on paths now shared with other flows.
  EXPECT_GE(r.recovered_at, r.rerouted_at);
  EXPECT_LE(r.recovered_at, r.rerouted_at + Time::from_us(10));
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

TEST(LinkFailure, ALinkBackUpBeforeItsWireDrainsRetrainsOnceThePacketsHaveLanded) {
  // Down at 50 us and up 10 ns later, with full-rate traffic on the link: the
  // packets already on the wire land after the requested "up". The link must
  // come up only then, or the credit resynchronisation would miss them.
  const char* yaml = R"(name: flap
seed: 3
duration: 20ms
topology: {type: fat-tree, k: 4, link: {rate: 400Gbps, delay: 25ns}}
fabric:
  profile: ib-ndr
  ib: {sm_detection_delay: 100us, sm_compute_time: 500us}
workload:
  - {type: permutation, size: 4MiB}
faults:
  - {at: 50us, link: "agg0_0:2", action: down}
  - {at: 50.01us, link: "agg0_0:2", action: up}
)";
  Experiment e(load_scenario_text(yaml, "<flap>"));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  for (const auto& f : e.flows()) EXPECT_TRUE(f.finished());
  bool found = false;
  for (const Switch* sw : e.fabric().switches())
    if (sw->name() == "agg0_0") {
      found = true;
      EXPECT_TRUE(sw->port(2).up());
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace rdmasim
