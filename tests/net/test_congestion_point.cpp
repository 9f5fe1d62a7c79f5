// The egress congestion points on a stub switch and port: RED's marking
// probability and its random stream, FECN's threshold and victim rule, the
// INT record, trimming, and the overflow default.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "link/credit.h"
#include "net/congestion_point/congestion_point.h"
#include "net/counters.h"

namespace rdmasim {
namespace {

struct StubMmu {
  std::array<uint64_t, kNumTcs> bytes{};
  [[nodiscard]] uint64_t egress_bytes(uint16_t /*port*/, uint8_t tc) const { return bytes[tc]; }
};

struct StubPort {
  TcScheduler q;
  PortCounters ctr;
  const CreditState* cs = nullptr;
  [[nodiscard]] uint16_t index() const { return 2; }
  [[nodiscard]] const CreditState* credit() const { return cs; }
  [[nodiscard]] const TcScheduler& queues() const { return q; }
  PortCounters& counters() { return ctr; }
  [[nodiscard]] Rate rate() const { return Rate::from_gbps(400); }
};

struct StubSwitch {
  StubMmu m;
  IntTable table;
  int marks = 0;
  StubMmu& mmu() { return m; }
  void note_ecn_mark(Packet& p, StubPort& /*out*/) {
    p.flags |= kCe;
    ++marks;
  }
  IntTable& telemetry() { return table; }
  int retyped = 0;
  void retype(Packet& p, PktType t) {
    p.type = t;
    ++retyped;
  }
  [[nodiscard]] Time now() const { return Time::from_ns(777); }
  [[nodiscard]] int id() const { return 5; }
};

EcnConfig red(uint64_t kmin, uint64_t kmax, double pmax) {
  EcnConfig c;
  c.enabled = true;
  c.kmin_bytes = kmin;
  c.kmax_bytes = kmax;
  c.pmax = pmax;
  c.reference_rate = Rate::from_bps(0);
  return c;
}

TEST(RedEcnPoint, ProbabilityIsZeroAtKminLinearToPmaxAtKmaxOneAbove) {
  RedEcnPoint p(red(1000, 3000, 0.5), {Rate::from_gbps(100)}, 42);
  Rng replay(42, "ecn");  // the point's own stream, drawn only between the thresholds
  for (int i = 0; i < 1000; ++i) {
    EXPECT_FALSE(p.decide(0, 1000));                          // at kmin: never, no draw
    EXPECT_TRUE(p.decide(0, 3001));                           // above kmax: always, no draw
    EXPECT_EQ(p.decide(0, 2000), replay.uniform01() < 0.25);  // mid: pmax / 2
    EXPECT_EQ(p.decide(0, 3000), replay.uniform01() < 0.5);   // at kmax: pmax
  }
  // Empirically: a mid-way queue marks a quarter of the packets.
  RedEcnPoint q(red(1000, 3000, 0.5), {Rate::from_gbps(100)}, 7);
  int marked = 0;
  for (int i = 0; i < 100'000; ++i) marked += q.decide(0, 2000) ? 1 : 0;
  EXPECT_NEAR(marked / 100'000.0, 0.25, 0.005);
}

TEST(RedEcnPoint, ThresholdsScaleWithPortRate) {
  EcnConfig c = red(400'000, 1'600'000, 0.2);
  c.reference_rate = Rate::from_gbps(100);
  RedEcnPoint p(c, {Rate::from_gbps(100), Rate::from_gbps(400)}, 1);
  EXPECT_EQ(p.thresholds(0), (std::array<uint64_t, 2>{400'000, 1'600'000}));
  EXPECT_EQ(p.thresholds(1), (std::array<uint64_t, 2>{1'600'000, 6'400'000}));
}

TEST(RedEcnPoint, MarksEctPacketsAtItsStageOnly) {
  StubSwitch sw;
  StubPort out;
  EcnConfig c = red(0, 0, 1.0);  // a step at 0: every queued byte marks
  c.mark_on_dequeue = false;
  CongestionPoints points;
  points.add(RedEcnPoint(c, {Rate::from_gbps(100), Rate::from_gbps(100), Rate::from_gbps(100)}, 1));
  sw.m.bytes[1] = 100;
  Packet ect;
  ect.tc = 1;
  ect.flags = kEct;
  points.on_dequeue(sw, ect, out, true);
  EXPECT_EQ(sw.marks, 0);  // enqueue stage
  points.on_enqueue(sw, ect, out);
  EXPECT_EQ(sw.marks, 1);
  EXPECT_TRUE(ect.flags & kCe);
  Packet not_ect;
  not_ect.tc = 1;
  points.on_enqueue(sw, not_ect, out);
  EXPECT_EQ(sw.marks, 1);
}

TEST(FecnPoint, MarksAboveThresholdAtARootNotAtAVictim) {
  StubSwitch sw;
  StubPort out;
  FecnPoint fecn(8192);
  Packet p;
  p.tc = 0;
  p.flags = kEct;
  sw.m.bytes[0] = 8192;
  fecn.on_enqueue(sw, p, out);
  EXPECT_EQ(sw.marks, 0);  // at the threshold
  sw.m.bytes[0] = 8193;
  fecn.on_enqueue(sw, p, out);
  EXPECT_EQ(sw.marks, 1);
  // A credit port whose head packet on the VL has no credit is a victim.
  CreditState cs;
  out.cs = &cs;
  Packet head;
  head.tc = 0;
  head.wire = 1000;
  out.q.push(&head);
  fecn.on_enqueue(sw, p, out);
  EXPECT_EQ(sw.marks, 1);
  cs.lane[0].fccl = 16;  // now it has credit for the head: a root again
  fecn.on_enqueue(sw, p, out);
  EXPECT_EQ(sw.marks, 2);
}

TEST(IntPoint, RecordsThePortADataPacketLeaves) {
  StubSwitch sw;
  StubPort out;
  out.ctr.tx_bytes = 10'000;
  Packet queued;
  queued.wire = 1500;
  out.q.push(&queued);
  IntPoint point;
  Packet p;
  p.type = PktType::kData;
  p.wire = 1000;
  p.int_slot = sw.table.acquire();
  point.on_dequeue(sw, p, out, true);
  const IntStack& s = sw.table.read(p.int_slot);
  ASSERT_EQ(s.n, 1);
  EXPECT_EQ(s.hop[0].ts, Time::from_ns(777));
  EXPECT_EQ(s.hop[0].tx_bytes, 11'000u);
  EXPECT_EQ(s.hop[0].qlen, 1500u);
  EXPECT_EQ(s.hop[0].rate, Rate::from_gbps(400));
  EXPECT_EQ(s.hop[0].port_id, (uint64_t{5} << 16) | 2);
  Packet ack;
  ack.type = PktType::kAck;
  ack.int_slot = p.int_slot;
  point.on_dequeue(sw, ack, out, true);
  EXPECT_EQ(sw.table.read(p.int_slot).n, 1);  // ACKs carry their stack back untouched
}

TEST(CongestionPoints, OverflowDropsUnlessAPointForwards) {
  StubSwitch sw;
  StubPort out;
  CongestionPoints points;
  Packet p;
  EXPECT_EQ(points.on_overflow(sw, p, out), OverflowAction::kDrop);
  points.emplace<FecnPoint>(1);
  points.emplace<IntPoint>();
  EXPECT_EQ(points.on_overflow(sw, p, out), OverflowAction::kDrop);
  EXPECT_EQ(points.size(), 2u);
}

TrimConfig trim_cfg(uint64_t threshold, uint64_t limit) {
  TrimConfig t;
  t.enabled = true;
  t.header_bytes = 64;
  t.wire_extra = 20;
  t.threshold_bytes = threshold;
  t.tc = 7;
  t.class_limit_bytes = limit;
  return t;
}

Packet data_packet(uint32_t payload) {
  Packet p;
  p.type = PktType::kData;
  p.tc = 3;
  p.payload = static_cast<uint16_t>(payload);
  p.wire = static_cast<uint16_t>(payload + 122);
  p.flags = kEct | kLast;
  return p;
}

// A refused data packet becomes a header of `size` + preamble/IFG in the
// trimmed class, counted at the egress; control packets are left to drop.
TEST(TrimPoint, OverflowTrimsDataToItsHeaderInThePriorityClass) {
  StubSwitch sw;
  StubPort out;
  TrimPoint t(trim_cfg(0, 4096));
  Packet p = data_packet(4096);
  EXPECT_EQ(t.on_overflow(sw, p, out), OverflowAction::kForward);
  EXPECT_EQ(p.type, PktType::kTrimmed);
  EXPECT_EQ(p.wire, 84);
  EXPECT_EQ(p.payload, 0);
  EXPECT_EQ(p.tc, 7);
  EXPECT_EQ(p.flags & kEct, 0);
  EXPECT_EQ(p.flags & kLast, kLast);  // the headers it keeps
  EXPECT_EQ(out.ctr.trimmed_packets, 1u);
  Packet ack;
  ack.type = PktType::kAck;
  EXPECT_EQ(t.on_overflow(sw, ack, out), OverflowAction::kDrop);
  EXPECT_EQ(sw.retyped, 1);
}

// Above the threshold (class bytes + this packet) data is trimmed before
// admission; at or below it, it is left alone.
TEST(TrimPoint, TrimsAboveTheThresholdBeforeAdmission) {
  StubSwitch sw;
  StubPort out;
  TrimPoint t(trim_cfg(10'000, 4096));
  sw.m.bytes[3] = 10'000 - 4218;
  Packet fits = data_packet(4096);  // wire 4218: exactly at the threshold
  t.before_admit(sw, fits, out);
  EXPECT_EQ(fits.type, PktType::kData);
  sw.m.bytes[3] += 1;
  Packet over = data_packet(4096);
  t.before_admit(sw, over, out);
  EXPECT_EQ(over.type, PktType::kTrimmed);
  EXPECT_EQ(out.ctr.trimmed_packets, 1u);
}

// The bounded share: once the trimmed class holds class_limit bytes, a
// further trim is refused (the packet drops) and counted.
TEST(TrimPoint, AFullTrimmedClassDropsInsteadOfTrimming) {
  StubSwitch sw;
  StubPort out;
  TrimPoint t(trim_cfg(0, 168));  // room for two 84 B headers
  Packet q1 = data_packet(1000), q2 = data_packet(1000), q3 = data_packet(1000);
  ASSERT_EQ(t.on_overflow(sw, q1, out), OverflowAction::kForward);
  out.q.push(&q1);
  ASSERT_EQ(t.on_overflow(sw, q2, out), OverflowAction::kForward);
  out.q.push(&q2);
  EXPECT_EQ(t.on_overflow(sw, q3, out), OverflowAction::kDrop);
  EXPECT_EQ(q3.type, PktType::kData);
  EXPECT_EQ(out.ctr.trimmed_packets, 2u);
  EXPECT_EQ(out.ctr.trim_drop_packets, 1u);
}

}  // namespace
}  // namespace rdmasim
