// TIMELY (Mittal et al., SIGCOMM 2015) over RC: RTT from echoed send times.
#include <gtest/gtest.h>

#include "cc/timely.h"
#include "support/fake_cc_host.h"
#include "support/rc_of.h"
#include "support/recorder.h"
#include "transport/rc.h"
#include "validate/dcqcn_experiment.h"

namespace rdmasim {
namespace {

struct TimelyRule : ::testing::Test {
  FakeCcHost host;
  TimelyConfig cfg;
  std::unique_ptr<Timely> cc;
  CcFlow c;
  Packet ack;
  void SetUp() override {
    host.t = Time::from_ms(1);  // echoed send times stay positive
    cc = std::make_unique<Timely>(cfg);
    cc->attach(&host);
    c = host.flow();
    cc->on_connect(c);
  }
  // One ACK whose data packet left `rtt` ago, covering one 64 KB segment.
  double feed(Time rtt) {
    host.t += Time::from_us(100);
    c.una += 66;
    ack.sent_at = host.t - rtt;
    cc->on_ack(c, host.sample(ack));
    return c.pace_rate.gbps();
  }
};

TEST_F(TimelyRule, AboveTHighCutsInProportionToTheOvershoot) {
  feed(Time::from_us(100));                    // first sample: reference only
  const double r = feed(Time::from_us(1000));  // 2 x T_high
  // rate x (1 - beta (1 - T_high / rtt)) = 40 x (1 - 0.8 x 0.5) = 24 Gb/s.
  EXPECT_NEAR(r, 24.0, 1e-6);
}

TEST_F(TimelyRule, BelowTLowAddsDeltaAndGradientCutsAreBounded) {
  feed(Time::from_us(100));
  feed(Time::from_us(1000));                 // 24 Gb/s
  const double a = feed(Time::from_us(40));  // below T_low: + 10 Mb/s
  EXPECT_NEAR(a, 24.01, 1e-6);
  // Inside [T_low, T_high] with a steep positive gradient the cut is capped
  // at one half.
  const double b = feed(Time::from_us(400));
  EXPECT_NEAR(b, a * 0.5, 1e-6);
}

TEST_F(TimelyRule, FiveFallingRttsInARowSwitchToHyperAdditiveIncrease) {
  feed(Time::from_us(100));
  feed(Time::from_us(1000));  // 24 Gb/s
  double r = c.pace_rate.gbps();
  double rtt_us = 450;
  for (int i = 1; i <= 6; ++i) {
    const double before = r;
    r = feed(Time::from_us(static_cast<int64_t>(rtt_us)));
    rtt_us -= 50;
    if (i == 1) continue;                                      // the first step mixes in the earlier rise
    EXPECT_NEAR(r - before, i >= 5 ? 0.05 : 0.01, 1e-9) << i;  // + delta, then + 5 delta
  }
}

TEST(Timely, EndToEndKeepsQueueingDelayBelowTHigh) {
  const int n = 4;
  Simulation sim(3);
  FabricConfig cfg;
  cfg.rc.mtu = 1000;
  cfg.sw.mmu.lossless_mask = 1u << cfg.rc.data_tc;
  Fabric f(sim, make_star(n + 1, LinkSpec{Rate::from_gbps(40), Time::from_ns(1000)}), cfg);
  install_cc(f, std::make_unique<Timely>(TimelyConfig{}));
  testing::Recorder rec;
  for (int s = 1; s <= n; ++s) f.verbs().create_qp(s, 0, &rec, 3).post_write(int64_t{1} << 40, 0);
  QueueSampler q(sim, f.switches()[0]->mmu(), 0, 3, Time::zero(), Time::from_us(1));
  sim.run(Time::from_ms(5));
  // The senders slowed down: the queue's delay stays under T_high = 500 us.
  EXPECT_LT(q.mean() * 8 / 40e9 * 1e6, 500);
  EXPECT_LT(rc_of(f).connection(0).cc.pace_rate.gbps(), 40.0);
  EXPECT_EQ(f.check_invariants(), "");
}

}  // namespace
}  // namespace rdmasim
