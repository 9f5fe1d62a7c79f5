// The link flow-control parts on a stub port: exact eligibility, credit and
// frame handling without a fabric around them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <deque>
#include <tuple>
#include <vector>

#include "link/link_flow_control.h"
#include "net/counters.h"
#include "net/framing.h"

namespace rdmasim {
namespace {

struct StubNet {
  Framing fr{.name = "stub", .min_frame = 64, .wire_extra = 20};
  [[nodiscard]] const Framing& framing() const { return fr; }
  std::deque<Packet> storage;
  std::vector<Packet*> delivered;
  Packet* new_packet(PktType t) {
    storage.emplace_back();
    storage.back().type = t;
    return &storage.back();
  }
  void deliver(Packet* p) { delivered.push_back(p); }
  void drop(Packet* p) { delivered.push_back(p); }
  void note_port_paused(bool /*paused*/) {}
  void note_pause_refreshed() {}
};

// The switch buffer's verdicts on one priority group, set by the test.
struct StubBuffer {
  bool over_xoff = false, under_xon = false;
  std::array<bool, kNumTcs> paused_pg{};
  [[nodiscard]] static bool lossless(uint16_t /*port*/, uint8_t tc) { return tc == 3; }
  [[nodiscard]] bool should_pause(uint16_t /*port*/, uint8_t tc) const { return over_xoff && !paused_pg[tc]; }
  [[nodiscard]] bool should_resume(uint16_t /*port*/, uint8_t tc) const { return under_xon && paused_pg[tc]; }
  void set_paused(uint16_t /*port*/, uint8_t tc, bool p) { paused_pg[tc] = p; }
  [[nodiscard]] bool paused(uint16_t /*port*/, uint8_t tc) const { return paused_pg[tc]; }
};

// What a part uses of its port (see link/link_flow_control.h).
struct StubPort {
  StubBuffer buf;
  int xoff_sent = 0, xon_sent = 0;
  StubBuffer& buffer() { return buf; }
  [[nodiscard]] static uint16_t index() { return 7; }
  void note_pause_sent(bool xoff) { ++(xoff ? xoff_sent : xon_sent); }
  StubNet n;
  TcScheduler q;
  PortCounters ctr;
  Time t;
  Rate r = Rate::from_gbps(100);
  bool switch_port = true;
  bool source = false;
  std::deque<Packet*> src;  // packets the NIC would hand out
  std::vector<Packet*> ctrl;
  std::vector<std::tuple<Time, uint32_t, uint64_t>> timers;
  int kicks = 0;
  // The link: the other end, this end's frame on the wire, an FCP's hold.
  StubPort* peer = nullptr;
  Time busy, hold;
  Time d = Time::from_ns(100);
  bool is_up = true;
  int link_frames = 0;

  StubNet& net() { return n; }
  [[nodiscard]] Time now() const { return t; }
  [[nodiscard]] Rate rate() const { return r; }
  PortCounters& counters() { return ctr; }
  void kick() { ++kicks; }
  Packet* dequeue(uint32_t eligible) { return q.pop(eligible); }
  Packet* dequeue_class(int cls) { return q.take_head(cls); }
  Packet* pull(uint32_t eligible) {
    if (src.empty() || !((eligible >> src.front()->tc) & 1u)) return nullptr;
    Packet* p = src.front();
    src.pop_front();
    return p;
  }
  [[nodiscard]] bool has_source() const { return source; }
  [[nodiscard]] bool source_has_more() const { return source && !src.empty(); }
  [[nodiscard]] bool at_switch() const { return switch_port; }
  void schedule_timer(Time at, uint32_t kind, uint64_t arg) { timers.emplace_back(at, kind, arg); }
  void send_control_frame(Packet* p) { ctrl.push_back(p); }
  [[nodiscard]] const TcScheduler& queues() const { return q; }
  [[nodiscard]] StubPort& peer_port() const { return *peer; }
  [[nodiscard]] Time wire_free_at() const { return std::max(busy, hold); }
  void hold_wire(Time until) { hold = until; }
  void note_link_frame(Time /*first_bit*/) { ++link_frames; }
  [[nodiscard]] Time delay() const { return d; }
  [[nodiscard]] bool up() const { return is_up; }
};

// Two stub ports joined by a link, each with its credit part.
struct CreditLink {
  CreditConfig cfg;
  StubPort a, b;
  CreditFlowControl fa, fb;
  CreditLink(uint64_t blocks_a, uint64_t blocks_b) : fa(&cfg, blocks_a, 256), fb(&cfg, blocks_b, 256) {
    a.peer = &b;
    b.peer = &a;
    fa.connect_peer(fb);
    fb.connect_peer(fa);
  }
};

Packet data(uint8_t tc, uint16_t wire) {
  Packet p;
  p.tc = tc;
  p.wire = wire;
  return p;
}

// The sending side: XOFF when the buffer says the group crossed XOFF, a
// refresh at half the pause while still paused, XON when it falls below XON.
TEST(PfcFlowControl, SwitchSendsXoffRefreshesAndXonFromTheBufferThresholds) {
  StubPort port;
  PfcFlowControl pfc(PfcConfig{.quanta = 1000, .refresh_fraction = 0.5});
  pfc.on_buffered(port, 3);  // below XOFF: nothing
  EXPECT_TRUE(port.ctrl.empty());
  port.buf.over_xoff = true;
  pfc.on_buffered(port, 1);  // a lossy class never pauses
  EXPECT_TRUE(port.ctrl.empty());
  port.t = Time::from_ns(100);
  pfc.on_buffered(port, 3);
  ASSERT_EQ(port.ctrl.size(), 1u);
  EXPECT_EQ(port.ctrl[0]->type, PktType::kPfc);
  EXPECT_EQ(port.ctrl[0]->tc, 3);
  EXPECT_EQ(port.ctrl[0]->psn, 1000u);
  EXPECT_EQ(port.ctrl[0]->wire, 84);
  EXPECT_EQ(port.ctr.pfc_tx_frames[3], 1u);
  EXPECT_EQ(port.xoff_sent, 1);
  EXPECT_TRUE(port.buf.paused_pg[3]);
  // 1000 quanta at 100 Gb/s = 5.12 us; refreshed after half of it.
  ASSERT_EQ(port.timers.size(), 1u);
  EXPECT_EQ(port.timers[0], std::make_tuple(Time::from_ns(2660), PfcFlowControl::kRefresh, uint64_t{3}));
  pfc.on_buffered(port, 3);  // already paused: no second XOFF
  EXPECT_EQ(port.ctrl.size(), 1u);
  port.t = Time::from_ns(2660);
  pfc.on_timer(port, PfcFlowControl::kRefresh, 3);
  ASSERT_EQ(port.ctrl.size(), 2u);
  EXPECT_EQ(port.ctrl[1]->psn, 1000u);
  ASSERT_EQ(port.timers.size(), 2u);
  EXPECT_EQ(std::get<0>(port.timers[1]), Time::from_ns(5220));
  // XON once below the XON threshold; the refresh then due sends nothing.
  port.t = Time::from_ns(3000);
  pfc.on_left_buffer(port, 3);
  EXPECT_EQ(port.ctrl.size(), 2u);
  port.buf.under_xon = true;
  pfc.on_left_buffer(port, 3);
  ASSERT_EQ(port.ctrl.size(), 3u);
  EXPECT_EQ(port.ctrl[2]->psn, 0u);
  EXPECT_EQ(port.xon_sent, 1);
  EXPECT_FALSE(port.buf.paused_pg[3]);
  port.t = Time::from_ns(5220);
  pfc.on_timer(port, PfcFlowControl::kRefresh, 3);
  EXPECT_EQ(port.ctrl.size(), 3u);
  EXPECT_EQ(port.xoff_sent, 2);
}

TEST(PfcFlowControl, XoffClearsOneClassForItsQuanta) {
  StubPort port;
  PfcFlowControl pfc;
  EXPECT_EQ(pfc.eligible(Time::zero()), 0xffu);
  Packet frame;
  frame.type = PktType::kPfc;
  frame.tc = 3;
  frame.psn = 1000;  // 1000 x 512 bits at 100 Gb/s = 5.12 us
  ASSERT_TRUE(pfc.on_receive(port, &frame));
  EXPECT_EQ(port.ctr.pfc_rx_frames[3], 1u);
  ASSERT_EQ(port.n.delivered.size(), 1u);
  EXPECT_EQ(pfc.eligible(Time::zero()), 0xf7u);
  EXPECT_EQ(pfc.eligible(Time::from_ps(5'119'999)), 0xf7u);
  EXPECT_EQ(pfc.eligible(Time::from_ns(5120)), 0xffu);
  ASSERT_EQ(port.timers.size(), 1u);
  EXPECT_EQ(port.timers[0], std::make_tuple(Time::from_ns(5120), PfcFlowControl::kResume, uint64_t{3}));
  EXPECT_EQ(port.ctr.pfc_paused_ps[3], 5'120'000);
  EXPECT_EQ(pfc.pause_left(3, Time::from_ns(120)), Time::from_ns(5000));

  // The paused class waits; another class goes first.
  Packet a = data(3, 1000), b = data(1, 1000);
  port.q.push(&a);
  port.q.push(&b);
  EXPECT_EQ(pfc.next(port, Time::zero()), &b);
  EXPECT_EQ(pfc.next(port, Time::zero()), nullptr);
  // XON at 1 us: resumes at once, the pause counted as 1 us.
  port.t = Time::from_ns(1000);
  pfc.apply_pause(port, 3, 0);
  EXPECT_EQ(port.kicks, 1);
  EXPECT_EQ(pfc.eligible(port.t), 0xffu);
  EXPECT_EQ(port.ctr.pfc_paused_ps[3], 1'000'000);
  EXPECT_EQ(pfc.next(port, port.t), &a);
  Packet d = data(0, 64);
  EXPECT_FALSE(pfc.on_receive(port, &d));
}

TEST(LossyFlowControl, IgnoresPauseAndAlwaysSends) {
  StubPort port;
  LossyFlowControl lossy;
  Packet frame;
  frame.type = PktType::kPfc;
  frame.tc = 3;
  frame.psn = 0xFFFF;
  EXPECT_TRUE(lossy.on_receive(port, &frame));  // consumed, not applied
  EXPECT_EQ(port.ctr.pfc_rx_frames[3], 0u);
  EXPECT_TRUE(port.timers.empty());
  Packet a = data(3, 1000);
  port.q.push(&a);
  EXPECT_EQ(lossy.next(port, Time::zero()), &a);
  EXPECT_EQ(lossy.pause_left(3, Time::zero()), Time::zero());
}

TEST(CreditFlowControl, NeverSendsWithoutCredit) {
  // Both buffers 4 blocks = 256 bytes of credit per VL; a sends to b.
  CreditLink l(4, 4);
  StubPort& port = l.a;
  CreditFlowControl& me = l.fa;
  EXPECT_EQ(me.credit_bytes(0, Time::zero()), 256u);
  Packet a = data(0, 128), b = data(0, 128), c = data(0, 100);
  port.q.push(&a);
  port.q.push(&b);
  port.q.push(&c);
  Packet* p = me.next(port, Time::zero());
  ASSERT_EQ(p, &a);
  me.on_transmit(port, p);
  p = me.next(port, Time::zero());
  ASSERT_EQ(p, &b);
  me.on_transmit(port, p);
  // No credit left: nothing is sent, the port starts waiting, and with no
  // FCP in flight it sets no timer.
  EXPECT_EQ(me.credit_bytes(0, Time::zero()), 0u);
  EXPECT_EQ(me.next(port, Time::from_ns(10)), nullptr);
  EXPECT_TRUE(port.timers.empty());
  // b's switch forwards `a` at 20 ns: its 2 blocks go back in an FCP that
  // leaves at once (b's wire is idle), 6 bytes at 100 Gb/s = 480 ps, and
  // lands 100 ns later with FCCL = 4 + 2. It wakes the waiting sender then.
  l.b.t = Time::from_ns(20);
  EXPECT_FALSE(l.fb.on_receive(l.b, &a));
  l.fb.on_release(l.b, 0, 128);
  const Time lands = Time::from_ps(20'000 + 480 + 100'000);
  ASSERT_EQ(port.timers.size(), 1u);
  EXPECT_EQ(std::get<0>(port.timers[0]), lands);
  EXPECT_EQ(std::get<1>(port.timers[0]), CreditFlowControl::kWake);
  EXPECT_EQ(l.b.hold, Time::from_ps(20'480));  // b's next frame starts after the FCP
  EXPECT_EQ(l.b.ctr.tx_packets, 1u);
  EXPECT_EQ(l.b.link_frames, 1);
  EXPECT_EQ(l.fb.state().ctr.fcp_sent, 1u);
  // Not before it lands.
  EXPECT_EQ(me.credit_bytes(0, lands - Time::from_ps(1)), 0u);
  EXPECT_EQ(me.credit_bytes(0, lands), 128u);
  EXPECT_EQ(me.next(port, Time::from_ns(60)), nullptr);
  me.on_timer(port, CreditFlowControl::kWake, std::get<2>(port.timers[0]));
  EXPECT_EQ(port.kicks, 1);
  EXPECT_EQ(me.next(port, lands), &c);
  me.on_transmit(port, &c);
  EXPECT_EQ(me.xmit_wait(lands), lands - Time::from_ns(10));
  EXPECT_EQ(me.state().ctr.sent_without_credit, 0u);
  EXPECT_EQ(me.state().lane[0].fctbs, 6u);
  // FCPs are counted as received when the port settles (the run's end).
  EXPECT_EQ(me.state().ctr.fcp_received, 0u);
  me.settle(port, lands);
  EXPECT_EQ(me.state().ctr.fcp_received, 1u);
  EXPECT_EQ(port.ctr.rx_packets, 1u);
}

TEST(CreditFlowControl, ReceiverReturnsCreditWithTheNewestLimit) {
  CreditLink l(4, 8);
  StubPort& port = l.b;  // a NIC: it frees what arrives at once
  port.switch_port = false;
  CreditFlowControl& me = l.fb;
  // b's wire carries a frame until 50 ns: the FCP waits for it.
  port.busy = Time::from_ns(50);
  port.t = Time::from_ns(10);
  Packet a = data(2, 200);  // 4 blocks
  EXPECT_FALSE(me.on_receive(port, &a));
  EXPECT_EQ(me.state().lane[2].abr, 4u);
  EXPECT_EQ(me.state().lane[2].held, 0u);
  const CreditLane& lane = l.fb.state().lane[2];  // b's FCPs to a
  const auto& in = lane.in_flight;
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(lane.last_leave, Time::from_ns(50));
  EXPECT_EQ(in.back().arrive, Time::from_ps(50'000 + 480 + 100'000));
  // A second arrival before the FCP leaves rides the same FCP.
  port.t = Time::from_ns(20);
  Packet b = data(2, 64);
  me.on_receive(port, &b);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in.back().fccl, 4u + 1u + 8u);  // ABR + free blocks
  EXPECT_EQ(me.state().ctr.fcp_sent, 1u);
  // One after it left takes the next FCP, behind the first on the wire.
  port.t = Time::from_ps(50'100);
  Packet c = data(2, 64);
  me.on_receive(port, &c);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(lane.last_leave, Time::from_ps(50'480));
  EXPECT_EQ(in.back().fccl, 6u + 8u);
  EXPECT_EQ(me.state().ctr.fcp_sent, 2u);
  // The sender reads both once both have landed; its limit is the newest.
  l.fa.settle(l.a, Time::from_us(1));
  EXPECT_EQ(l.fa.state().lane[2].fccl, 14u);
  EXPECT_EQ(l.fa.state().ctr.fcp_received, 2u);
}

TEST(CreditFlowControl, AnFcpWaitingForTheWireIsLostWithTheLink) {
  CreditLink l(4, 8);
  StubPort& port = l.b;
  port.switch_port = false;
  port.busy = Time::from_ns(50);
  port.t = Time::from_ns(10);
  Packet a = data(0, 200);
  l.fb.on_receive(port, &a);
  EXPECT_EQ(l.fb.state().ctr.fcp_sent, 1u);
  port.t = Time::from_ns(20);
  port.is_up = false;
  l.fb.on_link_down(port);
  EXPECT_TRUE(l.fb.state().lane[0].in_flight.empty());
  EXPECT_EQ(l.fb.state().ctr.fcp_sent, 0u);
  EXPECT_EQ(l.fb.state().ctr.fault_drop_packets, 1u);
  EXPECT_EQ(port.ctr.fault_drop_packets, 1u);
  EXPECT_EQ(port.ctr.tx_packets, 0u);
  // While the link is down, freed buffer sends nothing.
  Packet b = data(0, 64);
  l.fb.on_receive(port, &b);
  EXPECT_TRUE(l.fb.state().lane[0].in_flight.empty());
  EXPECT_EQ(l.fb.state().ctr.fault_drop_packets, 2u);
}

TEST(CreditFlowControl, NicPullsOnlyForSlsWhoseVlHasCredit) {
  CreditConfig cfg;  // SL i -> VL i for i < 8
  StubPort port;
  port.switch_port = false;
  port.source = true;
  CreditFlowControl me(&cfg, 4, 256), peer(&cfg, 4, 256);
  me.connect_peer(peer);
  me.state().lane[5].fctbs = 1;  // VL5 lacks room for a full-size packet
  Packet on5 = data(5, 64);
  port.src.push_back(&on5);
  EXPECT_EQ(me.next(port, Time::zero()), nullptr);
  Packet on4 = data(4, 64);
  port.src.push_front(&on4);
  Packet* p = me.next(port, Time::zero());
  ASSERT_EQ(p, &on4);
  EXPECT_EQ(p->sl, 4);
  EXPECT_EQ(p->tc, 4);
}

TEST(LinkFlowControl, DispatchesToThePartItHolds) {
  StubPort port;
  LinkFlowControl pfc;  // default: PFC
  EXPECT_NE(pfc.pfc(), nullptr);
  EXPECT_EQ(pfc.credit(), nullptr);
  CreditConfig cfg;
  LinkFlowControl credit(CreditFlowControl(&cfg, 4, 256));
  LinkFlowControl peer(CreditFlowControl(&cfg, 6, 256));
  credit.connect_peer(peer);
  EXPECT_EQ(credit.credit_bytes(1, Time::zero()), 6u * 64);
  EXPECT_EQ(pfc.credit_bytes(1, Time::zero()), 0u);
  LinkFlowControl lossy(LossyFlowControl{});
  Packet a = data(0, 64);
  port.q.push(&a);
  EXPECT_EQ(lossy.next(port, Time::zero()), &a);
}

// A ring with storage in place (a lane's FCPs in flight) keeps its order
// across wrap-around and its move from in place to the heap, as a deque does.
TEST(CreditLane, FcpsInFlightKeepTheirOrderThroughWrapAndGrowth) {
  Ring<PendingCredit, 8> q;
  std::deque<PendingCredit> ref;
  uint64_t next = 0;
  for (int round = 0; round < 200; ++round) {
    const int pushes = (round * 7) % 13;
    const int pops = (round * 5) % 11;
    for (int i = 0; i < pushes; ++i) {
      q.push_back(PendingCredit{Time::from_ps(static_cast<int64_t>(next)), next});
      ref.push_back(PendingCredit{Time::from_ps(static_cast<int64_t>(next)), next});
      ++next;
    }
    for (int i = 0; i < pops && !ref.empty(); ++i) {
      ASSERT_EQ(q.front().fccl, ref.front().fccl);
      q.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(q.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(q[i].fccl, ref[i].fccl);
    if (!ref.empty()) {
      ASSERT_EQ(q.back().arrive, ref.back().arrive);
    }
  }
  EXPECT_GT(next, 1000u);
}

}  // namespace
}  // namespace rdmasim
