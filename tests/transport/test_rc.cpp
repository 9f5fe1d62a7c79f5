#include <gtest/gtest.h>

#include "cc/congestion_control.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "support/rc_of.h"
#include "support/recorder.h"
#include "topo/topology.h"
#include "verbs/verbs.h"

namespace rdmasim {
namespace {

using testing::Recorder;

// VALIDATION.md §A.2: a lone long flow's goodput = line rate x payload /
// (payload + every per-packet header, CRC, preamble and IFG byte).
struct GoodputCase {
  int64_t gbps;
  uint32_t mtu;
};
class GoodputTest : public ::testing::TestWithParam<GoodputCase> {};

TEST_P(GoodputTest, LongWriteReachesAnalyticalGoodput) {
  const auto k = GetParam();
  Simulation sim(1);
  FabricConfig cfg;
  cfg.rc.mtu = k.mtu;
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(k.gbps), Time::from_ns(1000)}), cfg);
  Recorder rec;
  const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, 3);
  const int64_t bytes = int64_t{200} * k.mtu * 1000;  // 200k packets: fixed latency < 0.01%
  rc_of(f).post(qp, Opcode::kWrite, bytes, 1);
  sim.run(Time::from_s(1));
  ASSERT_EQ(rec.done.size(), 1u);
  const double fct_s = (rec.done[0].completed - rec.done[0].posted).sec();
  const double goodput = static_cast<double>(bytes) * 8 / fct_s;
  const double analytical =
      static_cast<double>(k.gbps) * 1e9 * k.mtu / (k.mtu + 62 + 20);  // RoCEv2 headers + preamble/IFG
  EXPECT_NEAR(goodput / analytical, 1.0, 0.001) << "goodput " << goodput / 1e9 << " Gb/s";
  // The lone flow is exactly its own ideal.
  EXPECT_EQ((rec.done[0].completed - rec.done[0].posted).ps(),
            f.ideal_completion(qp, Opcode::kWrite, bytes).ps());
  EXPECT_EQ(f.check_invariants(), "");
}

INSTANTIATE_TEST_SUITE_P(Rates, GoodputTest,
                         ::testing::Values(GoodputCase{100, 1000}, GoodputCase{400, 4096},
                                           GoodputCase{25, 1024}),
                         [](const auto& i) {
                           return std::to_string(i.param.gbps) + "G_mtu" + std::to_string(i.param.mtu);
                         });

TEST(RcTest, ReadLatencyAndCompletionAreExact) {
  Simulation sim(1);
  FabricConfig cfg;
  cfg.sw.latency = Time::from_ns(500);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, 3);
  rc_of(f).post(qp, Opcode::kRead, 64, 1);
  rc_of(f).post(qp, Opcode::kRead, 100000, 2);
  sim.run(Time::from_ms(10));
  ASSERT_EQ(rec.done.size(), 2u);
  // READ request: 62 + 16 RETH + 20 = 98 B; response-only: 62 + 4 AETH + 64 + 20 = 150 B. Two hops each way.
  const int64_t req = 2 * (98 * 80 + 1'000'000) + 500'000;
  const int64_t resp = 2 * (150 * 80 + 1'000'000) + 500'000;
  EXPECT_EQ(rec.done[0].completed.ps(), req + resp);
  EXPECT_EQ(rec.done[0].completed.ps(), f.ideal_completion(qp, Opcode::kRead, 64).ps());
  EXPECT_EQ(rec.done[1].bytes, 100000);
  EXPECT_EQ(f.check_invariants(), "");
}

TEST(RcTest, SendCarriesNoRethAndCompletesOnBothSides) {
  Simulation sim(1);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), FabricConfig{});
  Recorder rec;
  const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, 3);
  rc_of(f).post(qp, Opcode::kSend, 1000, 9);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.received.size(), 1u);
  // SEND-only: 62 + 1000 + 20 = 1082 B, two hops.
  EXPECT_EQ(rec.received[0].completed.ps(), 2 * (1082 * 80 + 1'000'000));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_EQ(rec.done[0].wr_id, 9u);
}

// N-to-1 incast into a shallow lossy buffer: packets drop, go-back-N recovers
// every flow, and every packet is accounted for.
TEST(RcTest, IncastOnLossyEthernetDropsAndRecovers) {
  Simulation sim(7);
  FabricConfig cfg;
  cfg.sw.mmu.buffer_bytes = 256 * 1024;
  const int senders = 16;
  Fabric f(sim, make_star(senders + 1, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  std::vector<uint32_t> qps;
  for (int s = 0; s < senders; ++s) {
    qps.push_back(rc_of(f).create_qp(s + 1, 0, &rec, 3));
    rc_of(f).post(qps.back(), Opcode::kWrite, 1 << 20, static_cast<uint64_t>(s));
  }
  uint64_t checks = 0;
  // Conservation holds at every instant, not only at the end.
  while (!sim.run(sim.now() + Time::from_us(50))) {
    ASSERT_EQ(f.check_invariants(), "") << "at " << sim.now().us() << " us";
    ++checks;
  }
  EXPECT_GT(checks, 10u);
  ASSERT_EQ(rec.done.size(), static_cast<size_t>(senders));
  const auto& led = f.net().ledger();
  EXPECT_GT(led.dropped[static_cast<int>(PktType::kData)], 0u);
  uint64_t retx = 0, naks = 0;
  for (uint32_t q : qps) {
    retx += rc_of(f).connection(q).ctr.retransmitted_packets;
    naks += rc_of(f).connection(q).ctr.naks_received;
  }
  EXPECT_GT(retx, 0u);
  EXPECT_GT(naks, 0u);
  EXPECT_EQ(f.check_invariants(), "");
  EXPECT_EQ(f.net().packets_in_pool_use(), 0u);
  // The receiver's link carried every byte at most at line rate: the incast
  // cannot finish before senders x 1 MiB have crossed it.
  const double min_time = senders * double(1 << 20) * (1000 + 82) / 1000 * 8 / 100e9;
  Time last;
  for (const auto& c : rec.done) last = std::max(last, c.completed);
  EXPECT_GT(last.sec(), min_time);
}

TEST(RcTest, TailLossIsRecoveredByTimeoutWithBackoff) {
  // Three single-packet WRITEs meet at one egress port whose buffer holds one
  // packet: one is sent, one waits, the third is dropped. With no later
  // packet to reveal the gap there is no NAK: only the timeout recovers it.
  Simulation sim(3);
  FabricConfig cfg;
  cfg.sw.mmu.buffer_bytes = 1100;
  cfg.rc.rto = Time::from_us(100);
  Fabric f(sim, make_star(4, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  std::vector<uint32_t> qps;
  for (int s = 1; s <= 3; ++s) {
    qps.push_back(rc_of(f).create_qp(s, 0, &rec, 3));
    rc_of(f).post(qps.back(), Opcode::kWrite, 1000, static_cast<uint64_t>(s));
  }
  sim.run(Time::from_ms(100));
  ASSERT_EQ(rec.done.size(), 3u);
  uint64_t timeouts = 0;
  for (uint32_t q : qps) timeouts += rc_of(f).connection(q).ctr.timeouts;
  EXPECT_EQ(timeouts, 1u);
  EXPECT_EQ(f.net().ledger().dropped[static_cast<int>(PktType::kData)], 1u);
  // The lost message completes one RTO after it was first sent, plus its
  // unloaded round trip.
  const Time rtt = f.ideal_completion(qps[2], Opcode::kWrite, 1000);
  EXPECT_EQ(rec.done.back().completed, cfg.rc.rto + rtt);
  EXPECT_EQ(f.check_invariants(), "");
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

TEST(RcTest, AckCoalescingSendsOneAckPerIntervalAndPerMessageEnd) {
  for (uint32_t interval : {1u, 4u, 16u}) {
    Simulation sim(1);
    FabricConfig cfg;
    cfg.rc.ack_interval = interval;
    Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
    testing::Recorder rec;
    const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, 3);
    // 3 messages of 50 packets: per message ceil(50 / interval) ACKs (the
    // interval restarts at each message end, which is always ACKed).
    for (int m = 0; m < 3; ++m) rc_of(f).post(qp, Opcode::kWrite, 50 * 1000, static_cast<uint64_t>(m));
    sim.run(Time::from_ms(1));
    ASSERT_EQ(rec.done.size(), 3u);
    EXPECT_EQ(rc_of(f).connection(qp).ctr.acks_sent, 3u * ((50 + interval - 1) / interval)) << interval;
    EXPECT_EQ(f.net().ledger().created[static_cast<int>(PktType::kAck)],
              rc_of(f).connection(qp).ctr.acks_sent);
  }
}

TEST(RcTest, MultiPortNicSpreadsConnectionsOverItsPorts) {
  // Host 0 has two ports, to two switches that both reach host 1.
  Topology t;
  t.add_node(TopoNodeKind::kHost, "a", 0);
  t.add_node(TopoNodeKind::kHost, "b", 0);
  const int s0 = t.add_node(TopoNodeKind::kSwitch, "s0", 1);
  const int s1 = t.add_node(TopoNodeKind::kSwitch, "s1", 1);
  const Rate r = Rate::from_gbps(100);
  const Time d = Time::from_ns(500);
  t.add_link(0, s0, r, d);
  t.add_link(0, s1, r, d);
  t.add_link(1, s0, r, d);
  t.add_link(1, s1, r, d);
  Simulation sim(5);
  Fabric f(sim, t, FabricConfig{});
  testing::Recorder rec;
  std::array<int, 2> used{};
  for (int i = 0; i < 64; ++i) {
    const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, 3);
    ++used[rc_of(f).connection(qp).src_nic_port];
    rc_of(f).post(qp, Opcode::kWrite, 10000, static_cast<uint64_t>(i));
  }
  EXPECT_GT(used[0], 16);
  EXPECT_GT(used[1], 16);
  sim.run(Time::from_ms(10));
  EXPECT_EQ(rec.done.size(), 64u);
  EXPECT_GT(f.nic(0).port(0).counters().tx_packets, 0u);
  EXPECT_GT(f.nic(0).port(1).counters().tx_packets, 0u);
  EXPECT_EQ(f.check_invariants(), "");
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

TEST(RcTest, SendWithoutReceiveWqeGetsRnrNakAndRetriesAfterTheTimer) {
  Simulation sim(1);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), FabricConfig{});
  testing::Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec);
  qp.post_recv(1);
  qp.post_send(4000, 1);  // consumes the one receive
  qp.post_send(4000, 2);  // finds none: RNR NAK
  sim.run(Time::from_us(300));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_EQ(rc_of(f).connection(qp.id()).ctr.rnr_naks_sent, 1u);
  qp.post_recv(1);  // the application catches up
  sim.run(Time::from_ms(5));
  ASSERT_EQ(rec.done.size(), 2u);
  ASSERT_EQ(rec.received.size(), 2u);
  // The retry starts 0.64 ms after the RNR NAK reached the requester, so the
  // second SEND lands later than that.
  EXPECT_GT(rec.received[1].completed, Time::from_us(640));
  EXPECT_EQ(rc_of(f).connection(qp.id()).ctr.naks_received, 0u);  // no sequence-error NAK storm
  EXPECT_EQ(f.check_invariants(), "");
}

// A window controller that opens 4 packets and closes to 1 on every ACK. The
// transport must let it see each ACK before the freed window is used, so no
// packet after the first ACK finds more than one packet in flight.
class ShrinkOnAck final : public CongestionControl {
 public:
  [[nodiscard]] const char* name() const override { return "shrink-on-ack"; }
  void on_connect(CcFlow& c) override { c.cwnd_bytes = 4 * host_->mtu(); }
  void on_ack(CcFlow& c, const AckSample&) override {
    c.cwnd_bytes = host_->mtu();
    acked = true;
  }
  void on_send(CcFlow& c, int64_t) override {
    // Once an ACK has arrived the controller has closed the window to 1: this
    // packet (nxt is past it) must be alone.
    if (acked && c.nxt - c.una > 1) ++over_window;
    ++sent;
  }
  bool acked = false;
  int over_window = 0;
  int sent = 0;
};

TEST(RcTest, CongestionControlSeesAnAckBeforeTheWindowItFreesIsUsed) {
  Simulation sim(1);
  FabricConfig cfg;
  cfg.rc.mtu = 1000;
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  auto cc = std::make_unique<ShrinkOnAck>();
  const ShrinkOnAck& seen = *cc;
  install_cc(f, std::move(cc));
  Recorder rec;
  f.verbs().create_qp(0, 1, &rec, 3).post_write(20'000, 1);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_EQ(seen.sent, 20);
  EXPECT_EQ(seen.over_window, 0);
}

}  // namespace
}  // namespace rdmasim
