// DCQCN against the fluid model of Zhu et al. (CoNEXT 2016), VALIDATION.md §B.5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/fake_cc_host.h"
#include "support/rc_of.h"
#include "validate/dcqcn_experiment.h"

namespace rdmasim {
namespace {

// The reaction point driven CNP by CNP on a 40 Gb/s NIC, against the rules
// of the DCQCN paper (§3.1, Figure 5) and of the Mellanox variant the HPCC
// simulator runs (rdma-hw.cc, *Mlx).
struct DcqcnRule : ::testing::Test {
  FakeCcHost host;
  DcqcnConfig cfg;
  std::unique_ptr<Dcqcn> cc;
  CcFlow c;
  static constexpr double kLine = 40e9;

  void start() {
    cc = std::make_unique<Dcqcn>(cfg);
    cc->attach(&host);
    c = host.flow();
    cc->on_connect(c);
  }
  void cnp_at(Time t) {
    host.t = t;
    cc->on_cnp(c);
  }
  // Fires the newest timer (the increase timer unless a cut was deferred).
  void fire_last_timer() {
    host.t = host.timers.back();
    cc->on_timer(c, host.timer_tags.back());
  }
  [[nodiscard]] double rate() const { return static_cast<double>(c.pace_rate.bps()); }
};

TEST_F(DcqcnRule, CutHalvesAtAlphaOneThenFastRecoveryHalvesTheGap) {
  start();
  cnp_at(Time::from_us(10));  // alpha = 1 (initial), not yet decayed
  EXPECT_NEAR(rate(), kLine / 2, 1);
  EXPECT_DOUBLE_EQ(cc->alpha(c.id), 1.0);  // (1 - g) + g
  ASSERT_EQ(host.timers.back(), Time::from_us(65));
  fire_last_timer();
  EXPECT_NEAR(rate(), kLine * 3 / 4, 1);  // Rc = (Rt + Rc) / 2 with Rt = 40G
}

TEST_F(DcqcnRule, FastRecoveryLastsFStepsThenAdditiveThenHyper) {
  cfg.fast_recovery_steps = 2;
  cfg.byte_counter = 0;  // timer alone, so the stages are exact
  start();
  cnp_at(Time::zero());  // Rc 20G, Rt 40G
  double rc = kLine / 2, rt = kLine;
  for (int step = 0; step < 5; ++step) {
    fire_last_timer();
    if (step >= 2) rt += step == 2 ? 40e6 : 200e6;  // F = 2: FR, FR, AI, HAI, HAI
    rt = std::min(rt, kLine);
    rc = std::min((rt + rc) / 2, kLine);
    EXPECT_NEAR(rate(), rc, 1) << "step " << step;
  }
}

TEST_F(DcqcnRule, AlphaDecaysOncePerTimerPeriodWithoutCnps) {
  start();
  cnp_at(Time::zero());           // cut at alpha 1; alpha stays 1
  cnp_at(Time::from_us(55 * 4));  // four periods: alpha (1-g)^4, then the cut, then +g
  const double g = cfg.g;
  const double a = std::pow(1 - g, 4);
  EXPECT_NEAR(cc->alpha(c.id), (1 - g) * a + g, 1e-12);
}

TEST_F(DcqcnRule, TargetRateIsKeptAcrossBackToBackCutsWithoutClamp) {
  for (const bool clamp : {true, false}) {
    cfg.clamp_target_rate = clamp;
    start();
    cnp_at(Time::zero());      // Rc 20G; Rt 40G (clamp: Rt = Rc before the cut = 40G too)
    cnp_at(Time::from_us(1));  // no increase in between: without clamp Rt stays 40G
    const double rc = rate();
    fire_last_timer();  // fast recovery towards Rt
    const double rt = clamp ? kLine / 2 : kLine;
    EXPECT_NEAR(rate(), (rt + rc) / 2, 1) << "clamp " << clamp;
    host.timers.clear();
    host.timer_tags.clear();
  }
}

TEST_F(DcqcnRule, RateDecreaseIntervalDefersTheSecondCutButAlphaMovesAtOnce) {
  cfg.rate_decrease_interval = Time::from_us(4);
  cfg.alpha_timer = Time::from_us(1);
  start();
  cnp_at(Time::zero());  // cuts at once: 20G
  EXPECT_NEAR(rate(), kLine / 2, 1);
  cnp_at(Time::from_ns(1500));  // within 4 us of the cut: alpha moves, rate does not
  EXPECT_NEAR(rate(), kLine / 2, 1);
  const double g = cfg.g;
  const double a = (1 - g) * (1 - g) + g;  // one 1-us decay period, then +g
  EXPECT_NEAR(cc->alpha(c.id), a, 1e-12);
  cnp_at(Time::from_us(3));  // a second CNP in the interval adds no second cut
  ASSERT_EQ(host.timer_tags.back(), Dcqcn::kCutTag);
  EXPECT_EQ(host.timers.back(), Time::from_us(4));
  EXPECT_EQ(std::count(host.timer_tags.begin(), host.timer_tags.end(), Dcqcn::kCutTag), 1);
  // At 3 us: one decay period since 1.5 us, then +g; by 4 us one more decay.
  const double alpha_at_cut = (1 - g) * ((1 - g) * (1 - g) * a + g);
  fire_last_timer();
  EXPECT_NEAR(rate(), kLine / 2 * (1 - alpha_at_cut / 2), 1);
}

TEST_F(DcqcnRule, ReactionPointStartingAtFirstCnpCutsWithInitialAlpha) {
  for (const bool at_first : {false, true}) {
    cfg.start_at_first_cnp = at_first;
    start();
    cnp_at(Time::from_us(55 * 18));  // 18 alpha periods after the QP started
    const double alpha = at_first ? 1.0 : std::pow(1 - cfg.g, 18);
    EXPECT_NEAR(rate(), kLine * (1 - alpha / 2), 1) << "start_at_first_cnp " << at_first;
  }
}

TEST_F(DcqcnRule, ConnectXStyleFirstCutComesOneDecreaseIntervalAfterTheFirstCnp) {
  cfg.start_at_first_cnp = true;
  cfg.rate_decrease_interval = Time::from_us(4);
  cfg.alpha_timer = Time::from_us(1);
  start();
  cnp_at(Time::from_ms(1));
  EXPECT_NEAR(rate(), kLine, 1);  // nothing yet
  ASSERT_EQ(host.timer_tags.back(), Dcqcn::kCutTag);
  EXPECT_EQ(host.timers.back(), Time::from_ms(1) + Time::from_us(4));
  fire_last_timer();
  const double alpha = std::pow(1 - cfg.g, 4);  // set to 1 at the CNP, four 1-us decays since
  EXPECT_NEAR(rate(), kLine * (1 - alpha / 2), 1);
}

// Two senders burst into one 100G port; RED is a step at 15 KB. The first
// packet to be marked on enqueue is one that found 15 KB ahead of it, so its
// CNP leaves the receiver one 15 KB queueing delay after the first packet
// marked on dequeue (which leaves 15 KB behind it and is not delayed by it).
Time first_cnp_at(bool mark_on_dequeue) {
  Simulation sim(1);
  FabricConfig cfg;
  cfg.rc.mtu = 1000;
  cfg.sw.ecn.enabled = true;
  cfg.sw.ecn.kmin_bytes = 15'000;
  cfg.sw.ecn.kmax_bytes = 15'001;
  cfg.sw.ecn.pmax = 1.0;
  cfg.sw.ecn.reference_rate = Rate::from_bps(0);
  cfg.sw.ecn.mark_on_dequeue = mark_on_dequeue;
  Fabric f(sim, make_star(3, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  DcqcnConfig d;
  d.cnp_interval = Time::from_s(1);   // one CNP per QP: the first mark's
  d.min_rate = Rate::from_gbps(100);  // the senders ignore it (no cut below line rate)
  install_cc(f, std::make_unique<Dcqcn>(d));
  struct : CompletionSink {
    void on_complete(const Completion&) override {}
  } rec;
  std::vector<uint32_t> qps;
  for (int s = 1; s <= 2; ++s) {
    qps.push_back(rc_of(f).create_qp(s, 0, &rec, cfg.rc.data_tc));
    rc_of(f).post(qps.back(), Opcode::kWrite, 40'000, 0);
  }
  sim.run(Time::from_ms(1));
  Time first = Time::never();
  for (uint32_t qp : qps)
    if (rc_of(f).connection(qp).fb.cnps_sent > 0)
      first = std::min(first, rc_of(f).connection(qp).fb.last_cnp);
  return first;
}

TEST(Dcqcn, MarkOnDequeueReachesTheReceiverOneQueueingDelaySooner) {
  const Time enq = first_cnp_at(false);
  const Time deq = first_cnp_at(true);
  ASSERT_NE(enq, Time::never());
  ASSERT_NE(deq, Time::never());
  // The queue grows by one packet per packet time. On enqueue, the first mark
  // goes to the packet that makes the queue n = floor(15000 / wire) + 1
  // packets long; it waits behind n - 1 of them. On dequeue, the first mark
  // goes to the packet that leaves n behind, which departs one packet time
  // after that arrival. The two marks leave the switch n - 2 packet times apart.
  const uint32_t wire = Framing::rocev2().data_wire(1000, false);
  const int64_t n = 15'000 / wire + 1;
  const Time packet_time = Rate::from_gbps(100).tx_time(Bytes(wire));
  EXPECT_EQ((enq - deq).ps(), (n - 2) * packet_time.ps());
}

TEST(Dcqcn, LongFlowsIntoOne40GPortShareFairlyAtTheFluidQueue) {
  // Published fixed points of the bottleneck queue (VALIDATION.md §B.5),
  // measured over 100-200 ms: alpha starts at 1 and settles with a time
  // constant of 256 x 55 us = 14 ms.
  const struct {
    int n;
    double q_kb;
  } cases[] = {{2, 23}, {4, 50}, {8, 119}};
  for (const auto& k : cases) {
    const DcqcnRun r = run_dcqcn_incast(k.n, Time::from_ms(200));
    EXPECT_GE(r.jain, 0.95) << "N=" << k.n;
    EXPECT_NEAR(r.mean_queue_bytes / 1e3, k.q_kb, 0.3 * k.q_kb) << "N=" << k.n;
    EXPECT_GT(r.cnps, 0u);
    EXPECT_EQ(r.drops, 0u);
    EXPECT_EQ(r.invariants, "");
    // The port stays busy: the flows together take >= 99% of what 40G can
    // carry at 1000-byte payloads (40 x 1000 / 1082 Gb/s).
    double sum = 0;
    for (double g : r.gbps) sum += g;
    EXPECT_GT(sum, 0.99 * 40.0 * 1000 / 1082) << "N=" << k.n;
  }
}

TEST(Dcqcn, MarkingOnEnqueueAddsTheQueueingDelayToTheLoopAndEightFlowsOscillate) {
  // With the mark taken as a packet joins the queue, the CNP is as old as the
  // packet's wait (~25 us at 120 KB on 40G). At N = 8 that extra delay turns
  // the fixed point into a limit cycle: the queue swings between empty and
  // Kmax, and its mean falls well under the fluid fixed point (measured: 75 KB,
  // a quarter of the time at or under Kmin). Marking on dequeue holds it there.
  const DcqcnRun enq = run_dcqcn_incast(8, Time::from_ms(200), DcqcnConfig{}, 3, false);
  const DcqcnRun deq = run_dcqcn_incast(8, Time::from_ms(200), DcqcnConfig{}, 3, true);
  EXPECT_GT(enq.below_kmin, 0.15);
  EXPECT_LT(deq.below_kmin, 0.05);
  EXPECT_LT(enq.mean_queue_bytes, 0.7 * 119e3);
  EXPECT_NEAR(deq.mean_queue_bytes, 119e3, 0.3 * 119e3);
  EXPECT_GE(enq.jain, 0.95);
  EXPECT_EQ(enq.drops, 0u);
}

}  // namespace
}  // namespace rdmasim
