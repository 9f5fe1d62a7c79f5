// HPCC (Li et al., SIGCOMM 2019, Algorithm 1): the window rule driven ACK by
// ACK with hand-made INT stacks, then end to end through switches that stamp
// real telemetry.
#include <gtest/gtest.h>

#include <cmath>

#include "cc/hpcc.h"
#include "fabric/fabric.h"
#include "support/fake_cc_host.h"
#include "support/rc_of.h"
#include "support/recorder.h"
#include "transport/rc.h"
#include "validate/dcqcn_experiment.h"

namespace rdmasim {
namespace {

// 100 Gb/s NIC, T = 10 us: Winit = 125,000 B; W_AI = 50 Mb/s x 10 us = 62.5 B.
struct HpccRule : ::testing::Test {
  FakeCcHost host;
  HpccConfig cfg;
  std::unique_ptr<Hpcc> cc;
  CcFlow c;
  IntStack stack;
  Packet ack;
  static constexpr double kWinit = 125'000;
  static constexpr double kWai = 62.5;

  void SetUp() override {
    host.rate = Rate::from_gbps(100);
    host.stack = &stack;
    cfg.base_rtt = Time::from_us(10);
    cc = std::make_unique<Hpcc>(cfg);
    cc->attach(&host);
    c = host.flow();
    cc->on_connect(c);
    stack.n = 1;
    stack.hop[0] = IntHop{Time::from_us(100), 0, 0, Rate::from_gbps(100)};
  }
  // The hop reports `dt` later, having sent at `util` x its rate and holding `qlen`.
  void advance(int hop, Time dt, double util, uint64_t qlen) {
    IntHop& h = stack.hop[hop];
    h.tx_bytes += static_cast<uint64_t>(util * static_cast<double>(h.rate.bytes_in(dt).count()));
    h.ts += dt;
    h.qlen = qlen;
  }
  void feed(uint64_t acked_psn) {
    ack.psn = acked_psn;
    cc->on_ack(c, host.sample(ack));
  }
};

TEST_F(HpccRule, StartsAtLineRateWithOneBdpWindow) {
  EXPECT_DOUBLE_EQ(cc->window_bytes(c.id), kWinit);
  EXPECT_EQ(c.cwnd_bytes, 125'000);
  EXPECT_EQ(c.pace_rate.bps(), 0);  // unpaced: W / T is the line rate
}

TEST_F(HpccRule, MultiplicativeDecreaseToTargetUtilization) {
  c.nxt = 10;
  feed(0);  // first telemetry: reference only
  EXPECT_DOUBLE_EQ(cc->window_bytes(c.id), kWinit);
  // One full T later the link ran at line rate with one BDP (B x T) queued
  // both times: U = 1 + 1 = 2, and the EWMA takes it whole (tau = T).
  advance(0, Time::from_us(10), 1.0, 125'000);
  stack.hop[0].qlen = 125'000;
  c.nxt = 20;
  feed(10);  // covers PSN 10 = snd_nxt at the last update: per-RTT update
  EXPECT_NEAR(cc->utilization(c.id), 1.0 + 0.0, 1e-12);  // min(qlen, prev qlen) = min(125000, 0)
  // With the previous queue 0, U = txRate/B = 1: W = Winit x 0.95 / 1 + W_AI.
  EXPECT_NEAR(cc->window_bytes(c.id), kWinit * 0.95 + kWai, 1e-6);
  advance(0, Time::from_us(10), 1.0, 125'000);
  c.nxt = 30;
  feed(20);  // now both samples hold one BDP: U = 2
  EXPECT_NEAR(cc->utilization(c.id), 2.0, 1e-12);
  const double w = (kWinit * 0.95 + kWai) * 0.95 / 2 + kWai;
  EXPECT_NEAR(cc->window_bytes(c.id), w, 1e-6);
  EXPECT_EQ(c.cwnd_bytes, static_cast<int64_t>(std::ceil(w / 1000)) * 1000);
  // Paced at W / T.
  EXPECT_NEAR(static_cast<double>(c.pace_rate.bps()), w * 8 / 10e-6, 1.0);
}

TEST_F(HpccRule, FastReactDoesNotCompoundWithinAnRtt) {
  c.nxt = 100;
  feed(0);
  advance(0, Time::from_us(10), 1.0, 125'000);
  feed(10);  // below PSN 100: reacts from the reference window Winit
  const double u1 = cc->utilization(c.id);
  EXPECT_NEAR(u1, 1.0, 1e-12);
  EXPECT_NEAR(cc->window_bytes(c.id), kWinit * 0.95 / u1 + kWai, 1e-6);
  advance(0, Time::from_us(10), 1.0, 125'000);
  feed(20);  // still below 100: again from Winit, not from the last W
  EXPECT_NEAR(cc->utilization(c.id), 2.0, 1e-12);
  EXPECT_NEAR(cc->window_bytes(c.id), kWinit * 0.95 / 2 + kWai, 1e-6);
}

TEST_F(HpccRule, EwmaWeighsBySampleIntervalOverT) {
  c.nxt = 100;
  feed(0);
  // 2.5 us of a fully loaded link with no queue: u = 1, weight tau/T = 1/4.
  advance(0, Time::from_us(2) + Time::from_ns(500), 1.0, 0);
  feed(1);
  EXPECT_NEAR(cc->utilization(c.id), 0.25, 1e-12);
  advance(0, Time::from_us(2) + Time::from_ns(500), 0.5, 0);
  feed(2);
  EXPECT_NEAR(cc->utilization(c.id), 0.75 * 0.25 + 0.25 * 0.5, 1e-12);
}

TEST_F(HpccRule, MostLoadedHopDecides) {
  stack.n = 2;
  stack.hop[1] = IntHop{Time::from_us(100), 0, 0, Rate::from_gbps(400)};
  c.nxt = 100;
  feed(0);
  // Hop 0 at 50%, hop 1 (400G) at 90%, no queues.
  advance(0, Time::from_us(10), 0.5, 0);
  advance(1, Time::from_us(10), 0.9, 0);
  feed(1);
  EXPECT_NEAR(cc->utilization(c.id), 0.9, 1e-12);
  EXPECT_NEAR(cc->window_bytes(c.id), std::min(kWinit, kWinit * 0.95 / 0.9 + kWai), 1e-6);
}

TEST_F(HpccRule, UnderUtilizedLinkGrowsBackToLineRateAndFloorHolds) {
  c.nxt = 10;
  feed(0);
  advance(0, Time::from_us(10), 1.0, 125'000);
  advance(0, Time::from_us(10), 1.0, 125'000);
  c.nxt = 20;
  feed(10);
  for (int i = 0; i < 40; ++i) {  // a deep standing queue drives W to the floor
    advance(0, Time::from_us(10), 1.0, 12'500'000);
    c.nxt += 10;
    feed(c.nxt - 10);
  }
  EXPECT_NEAR(cc->window_bytes(c.id), 125, 1e-9);  // MIN_RATE x T = 100 Mb/s x 10 us
  EXPECT_EQ(c.cwnd_bytes, 1000);
  // The queue gone and the link 10% busy: each update multiplies by
  // eta / U = 9.5 (and adds W_AI), so four restore line rate.
  const double floor = 100e6 * 10e-6 / 8;
  const double w1 = floor * 9.5 + kWai;
  const double w2 = w1 * 9.5 + kWai;
  for (const double expect : {w1, w2, w2 * 9.5 + kWai, kWinit}) {
    advance(0, Time::from_us(10), 0.1, 0);
    advance(0, Time::from_us(10), 0.1, 0);
    c.nxt += 10;
    feed(c.nxt - 10);
    EXPECT_NEAR(cc->window_bytes(c.id), expect, 1e-6);
  }
}

TEST_F(HpccRule, StaleHopsAreIgnored) {
  c.nxt = 10;
  feed(0);
  feed(1);  // same timestamp: nothing new to learn
  EXPECT_DOUBLE_EQ(cc->utilization(c.id), 0.0);
  EXPECT_DOUBLE_EQ(cc->window_bytes(c.id), kWinit);
}

// Keeps the telemetry of every ACK it sees.
struct IntProbe final : CongestionControl {
  std::vector<IntStack> seen;
  [[nodiscard]] const char* name() const override { return "int-probe"; }
  [[nodiscard]] bool wants_int() const override { return true; }
  [[nodiscard]] const char* feedback() const override { return "int-echo"; }
  void on_connect(CcFlow&) override {}
  void on_ack(CcFlow&, const AckSample& ack) override {
    if (ack.telemetry != nullptr) seen.push_back(*ack.telemetry);
  }
};

TEST(HpccInt, EverySwitchEgressStampsItsStateExactly) {
  Simulation sim(1);
  FabricConfig cfg;
  cfg.framing.int_header = 42;
  const Rate rate = Rate::from_gbps(100);
  const Time prop = Time::from_ns(1000);
  Fabric f(sim, make_chain(3, LinkSpec{rate, prop}), cfg);
  auto probe = std::make_unique<IntProbe>();
  IntProbe* p = probe.get();
  install_cc(f, std::move(probe));
  testing::Recorder rec;
  const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, cfg.rc.data_tc);
  rc_of(f).post(qp, Opcode::kWrite, 1000, 1);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.done.size(), 1u);
  ASSERT_EQ(p->seen.size(), 1u);
  const IntStack& s = p->seen[0];
  ASSERT_EQ(s.n, 3);
  // 1000 B + RETH 16 + RoCEv2 62 + INT 42 + 20 B preamble/IFG = 1140 wire bytes.
  const int64_t wire = 1140;
  const Time hop = rate.tx_time(Bytes(wire)) + prop;  // store-and-forward, no pipeline latency
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s.hop[i].ts, hop * (i + 1)) << "hop " << i;
    EXPECT_EQ(s.hop[i].tx_bytes, static_cast<uint64_t>(wire));
    EXPECT_EQ(s.hop[i].qlen, 0u);
    EXPECT_EQ(s.hop[i].rate.bps(), rate.bps());
  }
  // Every stack went back to the table: none leak.
  EXPECT_EQ(f.net().telemetry().in_use(), 0u);
}

// Two senders into one host through one switch: the bottleneck egress
// reports a queue, and one port's reports move forward in time and bytes.
TEST(HpccInt, BottleneckReportsItsQueueAndCountersOnlyGrow) {
  Simulation sim(1);
  FabricConfig cfg;
  cfg.sw.mmu.lossless_mask = 1u << cfg.rc.data_tc;
  Fabric f(sim, make_star(3, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  auto probe = std::make_unique<IntProbe>();
  IntProbe* p = probe.get();
  install_cc(f, std::move(probe));
  testing::Recorder rec;
  for (int s = 1; s <= 2; ++s) f.verbs().create_qp(s, 0, &rec, cfg.rc.data_tc).post_write(1 << 20, s);
  sim.run(Time::from_ms(5));
  ASSERT_EQ(rec.done.size(), 2u);
  ASSERT_GT(p->seen.size(), 1000u);
  uint64_t max_q = 0;
  IntHop last{};
  for (const IntStack& s : p->seen) {
    ASSERT_EQ(s.n, 1);
    const IntHop& h = s.hop[0];
    max_q = std::max<uint64_t>(max_q, h.qlen);
    EXPECT_EQ(h.port_id, p->seen[0].hop[0].port_id);  // every report from the one egress to host 0
    if (h.ts > last.ts) {
      EXPECT_GT(h.tx_bytes, last.tx_bytes);
      last = h;
    }
  }
  // Two line-rate senders into one port: a queue of at least a packet builds.
  EXPECT_GE(max_q, 1000u);
  EXPECT_EQ(f.check_invariants(), "");
}

// A record whose port queue did not fit IntHop's 32 bits fails the run's
// invariant check: its HPCC is not the one modelled.
TEST(HpccInt, AClippedQueueLengthFailsTheInvariantCheck) {
  Simulation sim(1);
  FabricConfig cfg;
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  ASSERT_EQ(f.check_invariants(), "");
  IntTable& t = f.net().telemetry();
  const uint32_t slot = t.acquire();
  t.push(slot, IntHop{Time::from_us(1), 0, uint64_t{4} << 30, Rate::from_gbps(100)});  // 4 GiB
  t.release(slot);  // not a leak: only the clipped record is wrong
  EXPECT_NE(f.check_invariants().find("1 records of a port queue of 4 GiB or more"), std::string::npos)
      << f.check_invariants();
}

// Loss, NAKs and retransmissions move stacks around; none may leak
// (check_invariants counts them once the network is idle).
TEST(HpccInt, NoStackLeaksUnderLossAndIrn) {
  Simulation sim(2);
  FabricConfig cfg;
  cfg.cc = "hpcc";
  cfg.rc.recovery = LossRecovery::kIrn;
  cfg.rc.irn_window = 400;  // larger than a BDP: the incast overflows the buffer
  cfg.sw.mmu.buffer_bytes = 200'000;
  Fabric f(sim, make_star(9, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  testing::Recorder rec;
  for (int s = 1; s <= 8; ++s) f.verbs().create_qp(s, 0, &rec, cfg.rc.data_tc).post_write(1 << 20, s);
  sim.run(Time::from_ms(50));
  ASSERT_EQ(rec.done.size(), 8u);
  uint64_t drops = 0;
  for (const Switch* sw : f.switches()) drops += sw->counters().buffer_drops;
  EXPECT_GT(drops, 0u);
  EXPECT_EQ(f.check_invariants(), "");
}

// A report from another port (a re-route of equal length) is a new
// reference, not a sample: differencing two ports' counters is meaningless.
TEST_F(HpccRule, PathChangeResetsTheReference) {
  c.nxt = 10;
  stack.hop[0].port_id = 7;
  feed(0);
  advance(0, Time::from_us(10), 1.0, 125'000);
  stack.hop[0].port_id = 8;
  stack.hop[0].tx_bytes = 0;  // the new port has sent less than the old one
  c.nxt = 20;
  feed(10);
  EXPECT_DOUBLE_EQ(cc->utilization(c.id), 0.0);
  EXPECT_DOUBLE_EQ(cc->window_bytes(c.id), kWinit);
}

// Four line-rate flows into one 100G port: HPCC holds the bottleneck near
// eta with almost no standing queue, and shares it evenly.
TEST(HpccEndToEnd, IncastConvergesToEtaWithNearZeroQueue) {
  const Time duration = Time::from_us(1500);
  const Time half = duration / 2;
  Simulation sim(1);
  FabricConfig cfg;
  cfg.sw.mmu.lossless_mask = 1u << cfg.rc.data_tc;
  cfg.cc = "hpcc";
  Fabric f(sim, make_star(5, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  testing::Recorder rec;
  for (int s = 1; s <= 4; ++s)
    f.verbs().create_qp(s, 0, &rec, cfg.rc.data_tc).post_write(int64_t{1} << 40, 0);
  const Switch& sw = *f.switches()[0];
  QueueSampler q(sim, sw.mmu(), 0, cfg.rc.data_tc, half, Time::from_ns(500));
  sim.run(half);
  const uint64_t rx0 = f.nic(0).port(0).counters().rx_bytes;
  std::vector<uint64_t> tx0;
  for (int s = 1; s <= 4; ++s) tx0.push_back(f.nic(s).port(0).counters().tx_data_payload_bytes);
  sim.run(duration);
  // Wire utilization of the bottleneck: HPCC aims at eta = 0.95 of it.
  const double util =
      static_cast<double>(f.nic(0).port(0).counters().rx_bytes - rx0) * 8 / half.sec() / 100e9;
  EXPECT_NEAR(util, 0.95, 0.03);
  EXPECT_LT(q.mean(), 10'000);  // under 10 packets queued on average
  double sum = 0, sq = 0;
  for (int s = 1; s <= 4; ++s) {
    const auto g = static_cast<double>(f.nic(s).port(0).counters().tx_data_payload_bytes - tx0[s - 1]);
    sum += g;
    sq += g * g;
  }
  EXPECT_GT(sum * sum / (4 * sq), 0.95);  // Jain's fairness index
  EXPECT_EQ(f.check_invariants(), "");
  EXPECT_EQ(sw.counters().lossless_drops, 0u);
}

}  // namespace
}  // namespace rdmasim
