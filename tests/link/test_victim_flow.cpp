// Congestion spreading (issue: RoCEv2 fabric): a flow that shares no
// bottleneck with an incast is slowed by PFC back-pressure; DCQCN reduces the
// damage, HPCC more. Leaf-spine with a non-blocking 1 Tb/s spine; 8 hosts under leaf0
// send 4 MiB each to host 9 under leaf1 while host 0 (leaf0) sends 4 MiB to
// host 10 (leaf1). The only congested link is leaf1 -> host 9.
#include <gtest/gtest.h>

#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "support/recorder.h"

namespace rdmasim {
namespace {

struct VictimResult {
  double victim_gbps = 0;
  uint64_t drops = 0;
  uint64_t xoff = 0;
  size_t done = 0;
};

// cc: "none", "dcqcn" or "hpcc", each from its RoCEv2 profile.
VictimResult run(bool pfc, const std::string& cc) {
  Simulation sim(5);
  FabricConfig cfg = find_profile(cc == "hpcc" ? "rocev2-hpcc" : "rocev2-dcqcn").config;
  cfg.sw.mmu.buffer_bytes = 4 << 20;
  if (!pfc) cfg.sw.mmu.lossless_mask = 0;
  if (cc == "none") {
    cfg.cc = "none";
    cfg.sw.ecn.enabled = false;
  }
  const Topology t = make_leaf_spine(2, 9, 1, 1.0, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)},
                                     LinkSpec{Rate::from_gbps(1000), Time::from_ns(1000)});
  Fabric f(sim, t, cfg);
  testing::Recorder rec;
  for (int s = 1; s <= 8; ++s) f.rc().post(f.rc().connect(s, 9, &rec, 3), Opcode::kWrite, 4 << 20, s);
  f.rc().post(f.rc().connect(0, 10, &rec, 3), Opcode::kWrite, 4 << 20, 100);
  sim.run(Time::from_ms(100));
  VictimResult r;
  for (const auto& c : rec.done)
    if (c.wr_id == 100) r.victim_gbps = (4 << 20) * 8.0 / c.completed.sec() / 1e9;
  for (const Switch* sw : f.switches()) {
    r.drops += sw->counters().buffer_drops;
    r.xoff += sw->counters().pfc_xoff_sent;
  }
  r.done = rec.done.size();
  EXPECT_EQ(f.check_invariants(), "");
  return r;
}

TEST(VictimFlow, PfcBackPressureSlowsAnInnocentFlowAndDcqcnOrHpccReducesIt) {
  const VictimResult lossy = run(false, "none");
  const VictimResult pfc = run(true, "none");
  const VictimResult dcqcn = run(true, "dcqcn");
  const VictimResult hpcc = run(true, "hpcc");
  ASSERT_EQ(lossy.done, 9u);
  ASSERT_EQ(pfc.done, 9u);
  ASSERT_EQ(dcqcn.done, 9u);
  ASSERT_EQ(hpcc.done, 9u);
  // Without PFC the victim runs near its 100G line rate (92.4 Gb/s of payload).
  EXPECT_GT(lossy.victim_gbps, 80);
  EXPECT_GT(lossy.drops, 0u);
  // With PFC nothing drops, but pauses spread to the victim's path.
  EXPECT_EQ(pfc.drops, 0u);
  EXPECT_GT(pfc.xoff, 0u);
  EXPECT_LT(pfc.victim_gbps, 0.3 * lossy.victim_gbps);
  // DCQCN slows the incast senders at the source: fewer pauses, a faster victim.
  EXPECT_EQ(dcqcn.drops, 0u);
  EXPECT_GT(dcqcn.victim_gbps, 1.5 * pfc.victim_gbps);
  // HPCC sees the incast's queue in its first RTT of INT and cuts to the fair
  // share at once: the victim keeps most of its line rate.
  EXPECT_EQ(hpcc.drops, 0u);
  EXPECT_GT(hpcc.victim_gbps, dcqcn.victim_gbps);
  std::printf("victim flow: lossy %.1f Gb/s, PFC %.1f Gb/s, PFC+DCQCN %.1f Gb/s, PFC+HPCC %.1f Gb/s\n",
              lossy.victim_gbps, pfc.victim_gbps, dcqcn.victim_gbps, hpcc.victim_gbps);
}

}  // namespace
}  // namespace rdmasim
