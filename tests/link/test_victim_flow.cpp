// Congestion spreading (issue: RoCEv2 fabric): a flow that shares no
// bottleneck with an incast is slowed by PFC back-pressure; DCQCN reduces the
// damage, HPCC more. The setup is in src/validate/victim_flow.h.
#include <gtest/gtest.h>

#include <cstdio>

#include "validate/victim_flow.h"

namespace rdmasim {
namespace {

TEST(VictimFlow, PfcBackPressureSlowsAnInnocentFlowAndDcqcnOrHpccReducesIt) {
  const VictimRun lossy = run_victim_flow(false, "none");
  const VictimRun pfc = run_victim_flow(true, "none");
  const VictimRun dcqcn = run_victim_flow(true, "dcqcn");
  const VictimRun hpcc = run_victim_flow(true, "hpcc");
  for (const VictimRun* r : {&lossy, &pfc, &dcqcn, &hpcc}) {
    ASSERT_EQ(r->done, 9u);
    EXPECT_EQ(r->invariants, "");
  }
  // Without PFC the victim runs near its 100G line rate (92.4 Gb/s of payload).
  EXPECT_GT(lossy.victim_gbps, 80);
  EXPECT_GT(lossy.drops, 0u);
  // With PFC nothing drops, but pauses spread to the victim's path.
  EXPECT_EQ(pfc.drops, 0u);
  EXPECT_GT(pfc.xoff, 0u);
  EXPECT_LT(pfc.victim_gbps, 0.3 * lossy.victim_gbps);
  // DCQCN slows the incast senders at the source: fewer pauses, a faster victim.
  EXPECT_EQ(dcqcn.drops, 0u);
  EXPECT_LT(dcqcn.xoff, pfc.xoff);
  EXPECT_GT(dcqcn.victim_gbps, 1.5 * pfc.victim_gbps);
  // HPCC sees the incast's queue in its first RTT of INT and cuts to the fair
  // share at once: the victim keeps most of its line rate.
  EXPECT_EQ(hpcc.drops, 0u);
  EXPECT_GT(hpcc.victim_gbps, dcqcn.victim_gbps);
  std::printf(
      "victim flow: lossy %.1f Gb/s, PFC %.1f Gb/s (%llu XOFF), PFC+DCQCN %.1f Gb/s (%llu XOFF), "
      "PFC+HPCC %.1f Gb/s (%llu XOFF)\n",
      lossy.victim_gbps, pfc.victim_gbps, static_cast<unsigned long long>(pfc.xoff), dcqcn.victim_gbps,
      static_cast<unsigned long long>(dcqcn.xoff), hpcc.victim_gbps,
      static_cast<unsigned long long>(hpcc.xoff));
}

}  // namespace
}  // namespace rdmasim
