// InfiniBand congestion control (IBTA Vol.1 Annex A10): FECN at a congested
// root port, BECN on the ACK, CCT injection delays at the source, recovery by
// the CCTI timer.
#include <gtest/gtest.h>

#include <vector>

#include "cc/ib_cc.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "support/fake_cc_host.h"
#include "support/rc_of.h"
#include "support/recorder.h"
#include "topo/topology.h"
#include "validate/ib_experiments.h"

namespace rdmasim {
namespace {

using testing::Recorder;

// The CA's rule, exactly: each BECN raises the CCTI by ccti_increase (up to
// the limit) and the rate becomes line x 16 / (16 + step x CCTI); each timer
// expiry lowers it by one until ccti_min, re-arming only while above it.
struct FakeHost : FakeCcHost {
  FakeHost() {
    rate = Rate::from_gbps(400);
    mtu_bytes = 4096;
  }
};

TEST(IbCongestionControl, CctStepsUpPerBecnAndDownPerTimer) {
  FakeHost host;
  IbCcConfig cfg;
  cfg.ccti_increase = 2;
  cfg.ccti_limit = 5;
  cfg.cct_step = 4;
  IbCc cc(cfg);
  cc.attach(&host);
  CcFlow c;
  c = host.flow();
  cc.on_connect(c);
  Packet becn;
  becn.flags = kCe;
  Packet plain;
  cc.on_ack(c, host.sample(plain));
  EXPECT_EQ(cc.ccti(0), 0u);
  EXPECT_EQ(c.pace_rate.bps(), 0);
  cc.on_ack(c, host.sample(becn));
  EXPECT_EQ(cc.ccti(0), 2u);
  EXPECT_EQ(c.pace_rate.bps(), 400'000'000'000 * 16 / (16 + 8));
  ASSERT_EQ(host.timers.size(), 1u);
  EXPECT_EQ(host.timers[0], cfg.ccti_timer);
  cc.on_ack(c, host.sample(becn));
  cc.on_ack(c, host.sample(becn));
  EXPECT_EQ(cc.ccti(0), 5u);  // capped at ccti_limit
  EXPECT_EQ(c.pace_rate.bps(), 400'000'000'000 * 16 / (16 + 20));
  EXPECT_EQ(host.timers.size(), 1u);  // one timer at a time
  for (uint32_t expect = 4;; --expect) {
    cc.on_timer(c, 0);
    EXPECT_EQ(cc.ccti(0), expect);
    if (expect == 0) break;
  }
  EXPECT_EQ(c.pace_rate.bps(), 0);         // back to line rate
  EXPECT_EQ(host.timers.size(), 1u + 4u);  // re-armed while above ccti_min
}

// End to end on an 8-to-1 incast: the hot spot's port (a root: it has credit
// toward the NIC) marks FECN above the threshold, the receiver echoes BECN on
// its ACKs, the senders slow down, and every CCTI is back to 0 once the
// traffic is over. Nothing drops; credits are conserved.
TEST(IbCongestionControl, IncastMarksFecnReturnsBecnAndRecovers) {
  for (const char* cc : {"none", "ibcc"}) {
    Simulation sim(5);
    FabricConfig cfg = find_profile("ib-ndr").config;
    cfg.cc = cc;
    Fabric f(sim, make_star(9, LinkSpec{Rate::from_gbps(400), Time::from_ns(25)}), cfg);
    Recorder rec;
    std::vector<uint32_t> qps;
    for (int s = 1; s <= 8; ++s) {
      qps.push_back(rc_of(f).create_qp(s, 0, &rec, 0));
      rc_of(f).post(qps.back(), Opcode::kWrite, 2 << 20, 0);
    }
    sim.run(Time::from_ms(50));
    EXPECT_EQ(rec.done.size(), 8u);
    EXPECT_EQ(f.check_invariants(), "");
    uint64_t dropped = 0;
    for (uint64_t d : f.net().ledger().dropped) dropped += d;
    EXPECT_EQ(dropped, 0u);
    const uint64_t marked = f.switches()[0]->counters().ecn_marked;
    const auto* ib = dynamic_cast<const IbCc*>(rc_of(f).congestion_control());
    if (ib == nullptr) {
      EXPECT_EQ(marked, 0u) << cc;
      continue;
    }
    EXPECT_GT(marked, 0u);
    uint64_t becns = 0;
    for (uint32_t q : qps) {
      becns += ib->becns(q);
      EXPECT_EQ(ib->ccti(q), 0u);
    }
    EXPECT_EQ(becns, marked);  // one ACK per packet: every FECN comes back as one BECN
  }
}

// The effect IB CC exists for (Gran et al., "First experiences with
// congestion control in InfiniBand hardware", IPDPS 2010): eight left hosts
// WRITE to one right host (the hot spot) while a ninth left host WRITEs to
// another right host over the same inter-switch link (4 Tb/s: room for all,
// so the hot spot's port is the only root). Without CC the hot spot's
// back-pressure fills the shared buffers (tree saturation) and the victim is
// held to about 1/9 of the link's credit-limited rate; with CC the hot
// senders are paced and the victim gets a multiple of its share back, at some cost
// to the hot spot's utilisation. Needs VL buffers deeper than the marking
// threshold (the profile's 128 KiB per VL, threshold 64 KiB); with one credit
// loop per VL the root's queue barely reaches a threshold and CC does little.
// (Until 2026-11-30 this ran 256 KiB per VL, more than IBTA lets a port
// advertise: 49.7 -> 132.8 Gb/s.)
TEST(IbCongestionControl, FreesTheVictimOfAHotSpot) {
  const IbHotSpotRun off = run_ib_hot_spot(false);
  const IbHotSpotRun on = run_ib_hot_spot(true);
  EXPECT_EQ(off.invariants, "");
  EXPECT_EQ(on.invariants, "");
  // Without CC: the victim shares the credit-limited link FIFO with 8 hot
  // flows draining at 400G in all: about (400 x 9/8) / 9 = 50 Gb/s.
  EXPECT_NEAR(off.victim_gbps, 50, 5);
  EXPECT_GT(on.victim_gbps, 2 * off.victim_gbps);  // 49.7 -> 181.1 Gb/s with the default CCT
  EXPECT_GT(on.hotspot_gbps, 0.75 * 400 * 4096 / 4122);
}

}  // namespace
}  // namespace rdmasim
