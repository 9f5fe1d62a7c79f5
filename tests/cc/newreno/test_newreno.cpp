// NewReno (RFC 5681, RFC 6582, RFC 6928): the window rules step by step
// against hand values, then end to end on a lossy incast, where a go-back-N
// sender without congestion control collapses into timeouts.
#include <gtest/gtest.h>

#include "cc/newreno/newreno.h"
#include "config/scenario.h"
#include "run/experiment.h"
#include "support/fake_cc_host.h"

namespace rdmasim {
namespace {

struct NewRenoRule : ::testing::Test {
  FakeCcHost host;  // MTU 1000 B
  NewReno cc;
  CcFlow f;
  void SetUp() override {
    cc.attach(&host);
    f = host.flow();
    cc.on_connect(f);
  }
  // The sender has sent up to `nxt`; an ACK moves una to `una`.
  void ack(uint64_t una, uint64_t nxt) {
    f.una = una;
    f.nxt = nxt;
    AckSample a;
    a.seq = una - 1;
    cc.on_ack(f, a);
  }
};

TEST_F(NewRenoRule, StartsWithTenPacketsAndDoublesPerWindowInSlowStart) {
  EXPECT_EQ(f.cwnd_bytes, 10'000);  // IW = 10 packets (RFC 6928)
  ack(10, 10);                      // the first window acknowledged, packet by packet or at once
  EXPECT_DOUBLE_EQ(cc.window(0), 20);
  ack(30, 30);
  EXPECT_DOUBLE_EQ(cc.window(0), 40);
  EXPECT_EQ(f.cwnd_bytes, 40'000);
  EXPECT_EQ(f.pace_rate.bps(), 0);  // window only, never paced
}

TEST_F(NewRenoRule, ALossHalvesTheFlightOnceAndCongestionAvoidanceAddsOnePacketPerWindow) {
  ack(30, 40);  // cwnd 40, 10 in flight after this ACK... then the sender fills the window
  f.nxt = 70;   // 40 packets in flight
  cc.on_loss(f);
  EXPECT_DOUBLE_EQ(cc.ssthresh(0), 20);  // flight / 2 (RFC 5681 eq. 4)
  EXPECT_DOUBLE_EQ(cc.window(0), 20);
  EXPECT_TRUE(cc.in_recovery(0));
  cc.on_loss(f);  // the same episode: no second cut (RFC 6582)
  EXPECT_DOUBLE_EQ(cc.window(0), 20);
  ack(50, 70);  // partial ACK: still in recovery, window unchanged
  EXPECT_TRUE(cc.in_recovery(0));
  EXPECT_DOUBLE_EQ(cc.window(0), 20);
  ack(70, 70);  // everything outstanding at the loss is acknowledged: recovery ends
  EXPECT_FALSE(cc.in_recovery(0));
  EXPECT_DOUBLE_EQ(cc.window(0), 20);
  // Congestion avoidance: 20 packets acknowledged one by one add about one packet.
  for (uint64_t u = 71; u <= 90; ++u) ack(u, 90);
  EXPECT_NEAR(cc.window(0), 21, 0.05);
  EXPECT_GT(cc.window(0), 20.95);
}

TEST_F(NewRenoRule, ATimeoutFallsBackToOnePacketAndSlowStartsToHalfTheFlight) {
  f.una = 0;
  f.nxt = 10;
  cc.on_rto(f);
  EXPECT_DOUBLE_EQ(cc.window(0), 1);
  EXPECT_EQ(f.cwnd_bytes, 1000);
  EXPECT_DOUBLE_EQ(cc.ssthresh(0), 5);
  ack(1, 10);
  ack(3, 10);
  ack(7, 10);
  EXPECT_DOUBLE_EQ(cc.window(0), 8);  // 1 + 1 + 2 + 4: below ssthresh it grows by what is acked
  ack(10, 10);
  EXPECT_NEAR(cc.window(0), 8 + 3.0 / 8, 1e-12);  // above ssthresh 5: 3 packets add 3/8
  f.nxt = 12;
  f.una = 10;
  cc.on_rto(f);
  EXPECT_DOUBLE_EQ(cc.ssthresh(0), 2);  // never below two packets
}

TEST(NewReno, RescuesALossyIncastFromTimeouts) {
  // 8 x 512 KiB into one 100G port through a 1 MiB buffer, go-back-N (the
  // shipped incast-star scenario). Without congestion control the senders
  // refill the buffer after every NAK and end in retransmission timeouts.
  auto run = [](const char* cc) {
    Experiment e(load_scenario_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/incast-star.yaml",
                                    {std::string("fabric.cc=") + cc}));
    e.run();
    EXPECT_EQ(e.invariant_error(), "");
    EXPECT_EQ(e.completed(), 8u);
    Time last = Time::zero();
    for (const auto& fl : e.flows()) last = std::max(last, fl.end);
    return std::pair{last, e.fabric().verbs().total_stats()};
  };
  const auto [none_end, none] = run("none");
  const auto [reno_end, reno] = run("newreno");
  EXPECT_GT(none.timeouts, 0u);
  EXPECT_EQ(reno.timeouts, 0u);
  EXPECT_LT(reno.retransmitted_packets, none.retransmitted_packets);
  // 8 x 512 KiB at 100 Gb/s take at least 0.34 ms; NewReno ends within 2x of that.
  EXPECT_LT(reno_end, Time::from_us(700));
  EXPECT_GT(none_end, reno_end * 10);
}

}  // namespace
}  // namespace rdmasim
