// InfiniBand link layer: credit-based flow control per VL (IBTA Vol.1 §7.9),
// VL arbitration (§7.6.9), framing and cut-through latency, XmitWait.
#include <gtest/gtest.h>

#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "support/recorder.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

using testing::Recorder;

// The credit loop checked exactly: the profile without its host jitter.
FabricConfig ndr() {
  FabricConfig c = find_profile("ib-ndr").config;
  c.nic.jitter.enabled = false;
  return c;
}
const LinkSpec kNdrLink{Rate::from_gbps(400), Time::from_ns(25)};

TEST(IbFraming, HeaderBytesAreLrhBthIcrcVcrc) {
  const Framing f = Framing::infiniband();
  EXPECT_EQ(f.data_wire(4096, false), 8u + 12 + 4 + 2 + 4096);
  EXPECT_EQ(f.data_wire(4096, true), 8u + 12 + 16 + 4 + 2 + 4096);  // + RETH
  EXPECT_EQ(f.ack_wire(), 8u + 12 + 4 + 4 + 2);                     // + AETH
}

// One 1000-byte WRITE through one cut-through switch, by hand: NIC tx 300 ns;
// the switch starts forwarding once the 8-byte LRH is in (8 B x 20 ps) and
// after its 330 ns pipeline; the receiving NIC takes the whole packet
// (26 + 16 + 1000 = 1042 B x 20 ps) and its 300 ns; two 25 ns cables.
TEST(IbFraming, UnloadedOneWayLatencyIsExact) {
  Simulation sim(1);
  Fabric f(sim, make_chain(1, kNdrLink), ndr());
  Recorder rec;
  f.verbs().create_qp(0, 1, &rec, 0).post_write(1000, 0);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.received.size(), 1u);
  const int64_t expect = 300'000 + 8 * 20 + 25'000 + 330'000 + 1042 * 20 + 25'000 + 300'000;
  EXPECT_EQ(rec.received[0].completed.ps(), expect);
  EXPECT_EQ(f.check_invariants(), "");
}

struct IncastRun {
  size_t done = 0;
  Time last;
  uint64_t dropped = 0;
  int64_t sender_wait_ps = 0;
  int64_t sender_busy_ps = 0;
  uint64_t rx_link_bytes = 0;
  uint64_t rx_link_fcps = 0;  // credits for the receiver's ACKs share its link
  uint64_t data_wire_bytes = 0;
  uint64_t switch_vl_blocks = 0;  // a switch input port's buffer per VL
  std::string invariants;
};

IncastRun incast(int senders, int64_t bytes, const FabricConfig& cfg) {
  Simulation sim(3);
  Fabric f(sim, make_star(senders + 1, kNdrLink), cfg);
  Recorder rec;
  for (int s = 1; s <= senders; ++s)
    f.verbs().create_qp(s, 0, &rec, 0).post_write(bytes, static_cast<uint64_t>(s));
  sim.run(Time::from_ms(100));
  IncastRun r;
  r.done = rec.done.size();
  for (const auto& c : rec.received) r.last = std::max(r.last, c.completed);
  for (uint64_t d : f.net().ledger().dropped) r.dropped += d;
  for (int s = 1; s <= senders; ++s) {
    r.sender_wait_ps += f.nic(s).port(0).xmit_wait(sim.now()).ps();
    r.sender_busy_ps += static_cast<int64_t>(f.nic(s).port(0).counters().busy_ps);
  }
  const Switch& sw = *f.switches()[0];
  const Port& down = sw.port(0);  // star: port 0 leads to host 0
  r.rx_link_bytes = down.credit()->lane[0].xmit_data_bytes;
  r.rx_link_fcps = down.credit()->ctr.fcp_sent;
  r.switch_vl_blocks = sw.port(1).credit()->capacity;
  const Framing& fr = f.net().framing();
  const int64_t n = (bytes + cfg.rc.mtu - 1) / cfg.rc.mtu;
  r.data_wire_bytes = static_cast<uint64_t>(senders) *
                      (fr.data_wire(static_cast<uint32_t>(bytes - (n - 1) * cfg.rc.mtu), n == 1) +
                       (n - 1) * fr.data_wire(cfg.rc.mtu, false) + (n > 1 ? fr.reth : 0));
  r.invariants = f.check_invariants();
  return r;
}

// VALIDATION-style conservation: N senders into one 400G port. Nothing may
// drop; the receiver link carries exactly the data's wire bytes and stays
// saturated (finishes within a few packet times of bytes / rate); every
// sender is, at each instant, either sending or waiting for credit, so its
// XmitWait is its span minus its busy time. The senders drain at one rate
// and stop once their last packets sit in the switch's input buffers, N x B
// before the incast ends: together they wait (N-1) x drain - N^2 x B / rate.
TEST(IbCredit, IncastIsLosslessSaturatesTheReceiverAndShowsXmitWait) {
  const int senders = 8;
  const int64_t bytes = 1 << 20;
  const IncastRun r = incast(senders, bytes, ndr());
  EXPECT_EQ(r.invariants, "");
  EXPECT_EQ(r.done, static_cast<size_t>(senders));
  EXPECT_EQ(r.dropped, 0u);
  EXPECT_EQ(r.rx_link_bytes, r.data_wire_bytes);
  const Time drain = Rate::from_gbps(400).tx_time(Bytes(static_cast<int64_t>(r.data_wire_bytes)));
  const Time fcps = Rate::from_gbps(400).tx_time(Bytes(static_cast<int64_t>(r.rx_link_fcps * kFcpBytes)));
  // Start: NIC 300 ns + cut-through to the switch; end: last cable + NIC.
  const Time fixed = Time::from_ns(300 + 25 + 330 + 25 + 300);
  EXPECT_GE(r.last, drain + fcps + fixed - Time::from_ns(50));
  EXPECT_LE(r.last, drain + fcps + fixed + Time::from_ns(50));  // idle < 5 MTU packet times in all
  // Each sender: busy + waiting = its sending span (<= the incast).
  const uint64_t buffer_blocks = r.switch_vl_blocks;
  const Time buffered = Rate::from_gbps(400).tx_time(Bytes(static_cast<int64_t>(buffer_blocks * 64)));
  EXPECT_EQ(buffer_blocks, uint64_t{2048});  // auto in-rack: the most IBTA lets a port advertise
  const double expect_wait = static_cast<double>(senders - 1) * static_cast<double>(drain.ps()) -
                             static_cast<double>(senders) * senders * static_cast<double>(buffered.ps());
  EXPECT_NEAR(static_cast<double>(r.sender_wait_ps), expect_wait, 0.03 * expect_wait);
  EXPECT_LE(r.sender_wait_ps + r.sender_busy_ps, senders * r.last.ps());
}

TEST(IbCredit, SmallBufferStillLosslessAndConserved) {
  FabricConfig cfg = ndr();
  cfg.ib.credit.vl_buffer_bytes = 4200;  // one MTU packet: stop-and-wait per hop
  const IncastRun r = incast(4, 256 << 10, cfg);
  EXPECT_EQ(r.invariants, "");
  EXPECT_EQ(r.done, 4u);
  EXPECT_EQ(r.dropped, 0u);
}

TEST(IbCredit, BatchedCreditUpdatesStillConserveCredits) {
  FabricConfig cfg = ndr();
  cfg.ib.credit.update_period = Time::from_ns(500);
  const IncastRun r = incast(4, 256 << 10, cfg);
  EXPECT_EQ(r.invariants, "");
  EXPECT_EQ(r.done, 4u);
  EXPECT_EQ(r.dropped, 0u);
}

// The invariant checker is not vacuous: a leaked credit is reported.
TEST(IbCredit, InvariantCatchesALeakedCredit) {
  Simulation sim(1);
  Fabric f(sim, make_star(3, kNdrLink), ndr());
  Recorder rec;
  f.verbs().create_qp(1, 0, &rec, 0).post_write(100'000, 0);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(f.check_invariants(), "");
  f.switches()[0]->port(1).credit()->lane[0].held += 1;
  EXPECT_NE(f.check_invariants().find("credit conservation violated"), std::string::npos);
}

// A lone flow on the auto-sized buffer never waits for credit: it gets the
// line rate (payload 4096 of 4122 wire bytes per packet).
TEST(IbCredit, LoneFlowGetsLineRateWithAutoBuffer) {
  Simulation sim(1);
  Fabric f(sim, make_chain(1, kNdrLink), ndr());
  Recorder rec;
  const int64_t bytes = 64 << 20;
  f.verbs().create_qp(0, 1, &rec, 0).post_write(bytes, 0);
  sim.run(Time::from_ms(10));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_EQ(f.nic(0).port(0).xmit_wait(sim.now()), Time::zero());
  EXPECT_EQ(f.check_invariants(), "");
  // The only difference from the ideal pipeline: the sender's link also
  // carries one 6-byte FCP (120 ps) per ACK it receives, returning the
  // switch's credits for that ACK; the last few leave after the data.
  const int64_t acks = bytes / 4096;
  const Time ideal = f.ideal_completion(0, Opcode::kWrite, bytes);
  EXPECT_LE(rec.done[0].completed, ideal + Time::from_ps(acks * 120));
  EXPECT_GE(rec.done[0].completed, ideal + Time::from_ps((acks - 16) * 120));
}

// Two senders into one port on different SLs/VLs.
struct TwoVlRun {
  Time a_done, b_done;
  std::string invariants;
};
TwoVlRun two_vls(const CreditConfig& credit, uint8_t sl_a, uint8_t sl_b, int64_t bytes) {
  Simulation sim(1);
  FabricConfig cfg = ndr();
  cfg.ib.credit = credit;
  Fabric f(sim, make_star(3, kNdrLink), cfg);
  Recorder ra, rb;
  f.verbs().create_qp(1, 0, &ra, sl_a).post_write(bytes, 0);
  f.verbs().create_qp(2, 0, &rb, sl_b).post_write(bytes, 0);
  sim.run(Time::from_ms(10));
  TwoVlRun r;
  if (!ra.received.empty()) r.a_done = ra.received[0].completed;
  if (!rb.received.empty()) r.b_done = rb.received[0].completed;
  r.invariants = f.check_invariants();
  return r;
}

// High-priority table with an unlimited high limit: VL0 is served whenever
// it has a packet, so the low-priority flow finishes only after it, and the
// high one as fast as alone. With limit 0 the two alternate packet by packet.
TEST(IbVlArbitration, HighPriorityLimit) {
  const int64_t bytes = 4 << 20;
  const Time alone = Rate::from_gbps(400).tx_time(Bytes(bytes / 4096 * 4122));
  CreditConfig c;
  c.high_limit = 255;
  const TwoVlRun strict = two_vls(c, 0, 1, bytes);
  EXPECT_EQ(strict.invariants, "");
  EXPECT_LT(strict.a_done, alone + Time::from_us(2));
  EXPECT_GT(strict.b_done, alone * 2 - Time::from_us(1));
  c.high_limit = 0;
  const TwoVlRun shared = two_vls(c, 0, 1, bytes);
  EXPECT_EQ(shared.invariants, "");
  const Time gap =
      shared.a_done > shared.b_done ? shared.a_done - shared.b_done : shared.b_done - shared.a_done;
  EXPECT_LT(gap, Time::from_ns(100));  // within one or two packet times (10.3 ns each)
}

// Low-priority weights 64 and 192 (x 64 B = one and three 4 KiB packets per
// turn): while both are backlogged VL2 gets 3/4 of the link, so it finishes
// its bytes in 4/3 of the time it would take alone.
TEST(IbVlArbitration, WeightedRoundRobinShares) {
  const int64_t bytes = 4 << 20;
  CreditConfig c;
  c.vlarb_high = {};
  c.vlarb_low = {{1, 64}, {2, 192}};
  const TwoVlRun r = two_vls(c, 1, 2, bytes);
  EXPECT_EQ(r.invariants, "");
  const double alone = Rate::from_gbps(400).tx_time(Bytes(bytes / 4096 * 4122)).us();
  EXPECT_NEAR(r.b_done.us(), alone * 4 / 3, 0.02 * alone);
  EXPECT_NEAR(r.a_done.us(), alone * 2, 0.02 * alone);
}

TEST(IbVlArbitration, Sl2VlMapsServiceLevels) {
  // SL 5 and SL 6 both on VL 1 (low priority): they share the VL FIFO, so
  // they finish together, unlike on separate VLs with unlimited high limit.
  CreditConfig c;
  c.sl2vl[5] = 1;
  c.sl2vl[6] = 1;
  const TwoVlRun r = two_vls(c, 5, 6, 1 << 20);
  EXPECT_EQ(r.invariants, "");
  const Time gap = r.a_done > r.b_done ? r.a_done - r.b_done : r.b_done - r.a_done;
  EXPECT_LT(gap, Time::from_ns(100));
}

}  // namespace
}  // namespace rdmasim
