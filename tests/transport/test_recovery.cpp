// RC loss recovery as strategies: the configuration picks the class, and each
// class's rules hold on hand-built connection state.
#include <gtest/gtest.h>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/fabric.h"
#include "support/rc_of.h"
#include "transport/rc.h"
#include "transport/recovery/irn.h"
#include "validate/loss_recovery.h"

namespace rdmasim {
namespace {

const char* recovery_of(LossRecovery r, bool reorder) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  RcConfig cfg;
  cfg.recovery = r;
  cfg.accept_out_of_order = reorder;
  RcEngine rc(net, cfg);
  return rc.recovery().name();
}

TEST(Recovery, TheConfigurationPicksTheStrategy) {
  EXPECT_STREQ(recovery_of(LossRecovery::kGoBackN, false), "go-back-n");
  EXPECT_STREQ(recovery_of(LossRecovery::kGoBack0, false), "go-back-0");
  EXPECT_STREQ(recovery_of(LossRecovery::kIrn, false), "irn");
  // Adaptive routing reorders: the responder keeps what arrives ahead of a gap.
  EXPECT_STREQ(recovery_of(LossRecovery::kGoBackN, true), "reorder-tolerant");
  EXPECT_STREQ(recovery_of(LossRecovery::kGoBack0, true), "reorder-tolerant");
  EXPECT_STREQ(recovery_of(LossRecovery::kIrn, true), "irn");  // IRN keeps them anyway
}

TEST(Recovery, GoBack0RewindsToTheStartOfTheMessageAndGoBackNToTheNakedPsn) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  RcConfig cfg;
  RcConnection c;
  auto msg = [](uint64_t first, uint64_t end) {
    RcMessage m;
    m.size = 10'000;
    m.first_psn = first;
    m.end_psn = end;
    return m;
  };
  c.msgs = {msg(0, 10), msg(10, 20)};
  cfg.recovery = LossRecovery::kGoBack0;
  RcEngine g0(net, cfg);
  EXPECT_EQ(g0.recovery().rewind_point(c, 14), 10u);
  EXPECT_EQ(g0.recovery().rewind_point(c, 3), 0u);
  cfg.recovery = LossRecovery::kGoBackN;
  RcEngine gn(net, cfg);
  EXPECT_EQ(gn.recovery().rewind_point(c, 14), 14u);
}

TEST(Recovery, IrnUsesTheLowTimeoutForATailAndCapsTheFlightAtItsWindow) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  RcConfig cfg;
  cfg.recovery = LossRecovery::kIrn;
  cfg.irn_window = 8;
  RcEngine rc(net, cfg);
  const Recovery& r = rc.recovery();
  RcConnection c;
  c.snd_una = 100;
  c.snd_max = 103;  // 3 outstanding = irn_low_packets
  EXPECT_EQ(r.rto(c), cfg.irn_rto_low);
  c.snd_max = 104;
  EXPECT_EQ(r.rto(c), cfg.irn_rto_high);
  c.snd_nxt = 107;
  EXPECT_FALSE(r.window_full(c));
  c.snd_nxt = 108;
  EXPECT_TRUE(r.window_full(c));
  cfg.recovery = LossRecovery::kGoBackN;
  RcEngine gbn(net, cfg);
  EXPECT_FALSE(gbn.recovery().window_full(c));  // go-back-N has no window of its own
  EXPECT_EQ(gbn.recovery().rto(c), cfg.rto);
}

TEST(Recovery, IrnResendsOnlyTheHolesBelowTheHighestSack) {
  Simulation sim(1);
  Network net(sim, Framing::rocev2());
  RcConfig cfg;
  cfg.recovery = LossRecovery::kIrn;
  RcEngine rc(net, cfg);
  Irn r(rc);
  RcConnection c;
  c.snd_una = 10;
  c.snd_nxt = c.snd_max = 20;
  for (uint64_t psn : {12u, 13u, 15u}) r.on_sack(c, psn);  // 10, 11, 14 missing below 16
  EXPECT_TRUE(r.retransmitting(c));
  EXPECT_EQ(r.next_retransmission(c), 10u);
  EXPECT_EQ(r.next_retransmission(c), 11u);
  EXPECT_EQ(r.next_retransmission(c), 14u);
  EXPECT_EQ(r.next_retransmission(c), Recovery::kNone);  // 16..19 are not known lost yet
}

TEST(Recovery, IrnKeysAreRefusedUnlessTheFabricRunsIrn) {
  const char* yaml = R"(name: t
duration: 1ms
topology: {type: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
fabric: {recovery: go-back-n, irn_window: 64}
workload: [{type: incast, senders: 2, receiver: 0, size: 10KB}]
)";
  try {
    (void)load_scenario_text(yaml, "t.yaml");
    FAIL() << "irn_window was accepted under go-back-n";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.message().find("has no effect"), std::string::npos) << e.what();
  }
  EXPECT_EQ(load_scenario_text(yaml, "t.yaml", {"fabric.recovery=irn"}).fabric.rc.irn_window, 64u);
}

// reorder_nak belongs to responders that place out of order: refused on a
// fabric that does not reorder, read with adaptive routing (InfiniBand's
// default 256 PSNs, Ethernet's 0: off, as the profiles cite).
TEST(Recovery, ReorderNakIsReadOnlyWhereTheFabricReorders) {
  const std::string yaml = R"(name: t
duration: 1ms
topology: {type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: ib-ndr, reorder_nak: 64}
workload: [{type: incast, senders: 2, receiver: 0, size: 10KB}]
)";
  try {
    (void)load_scenario_text(yaml, "t.yaml");
    FAIL() << "reorder_nak was accepted without adaptive routing";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.message().find("has no effect"), std::string::npos) << e.what();
  }
  EXPECT_EQ(load_scenario_text(yaml, "t.yaml", {"fabric.ib.adaptive_routing=true"}).fabric.rc.reorder_nak,
            64u);
  std::string plain = yaml;
  const std::string key = ", reorder_nak: 64";
  plain.replace(plain.find(key), key.size(), "");
  EXPECT_EQ(load_scenario_text(plain, "t.yaml", {"fabric.ib.adaptive_routing=true"}).fabric.rc.reorder_nak,
            256u);
  EXPECT_EQ(load_scenario_text(plain, "t.yaml", {"fabric.profile=rocev2-ar"}).fabric.rc.reorder_nak, 0u);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// IRN §2: at 1/256 loss a 4 MB message of 1 KB packets (4,000 of them)
// survives whole with probability (255/256)^4000 ~ 2e-7, so go-back-0,
// which restarts the message on every loss, never finishes one, while
// go-back-N and IRN finish all; IRN, resending only the holes, is fastest.
TEST(Recovery, GoBack0LivelocksAtOneIn256LossWhileGoBackNAndIrnFinish) {
  const Time horizon = Time::from_ms(20);
  const LossRecoveryRun gb0 = run_loss_recovery(LossRecovery::kGoBack0, 1.0 / 256, 4, 4'000'000, horizon, 11);
  const LossRecoveryRun gbn = run_loss_recovery(LossRecovery::kGoBackN, 1.0 / 256, 4, 4'000'000, horizon, 11);
  const LossRecoveryRun irn = run_loss_recovery(LossRecovery::kIrn, 1.0 / 256, 4, 4'000'000, horizon, 11);
  for (const auto* r : {&gb0, &gbn, &irn}) {
    EXPECT_EQ(r->invariants, "");
    EXPECT_GT(r->wire_losses, 0u);
    // The draws are per frame, so the losses track the rate (binomial, 5 sigma).
  }
  EXPECT_EQ(gb0.completed, 0);
  EXPECT_GT(gb0.retransmitted_packets, 10'000u);  // it keeps trying
  EXPECT_EQ(gbn.completed, 4);
  EXPECT_EQ(irn.completed, 4);
  EXPECT_GT(irn.goodput_gbps, gbn.goodput_gbps);
  // Selective repeat resends about what was lost; go-back-N a window per loss.
  EXPECT_LT(irn.retransmitted_packets, 2 * irn.wire_losses + 10);
  EXPECT_GT(gbn.retransmitted_packets, 4 * gbn.wire_losses);
  std::printf("1/256 loss: go-back-0 %d done (%llu resent), go-back-N %.1f Gb/s, IRN %.1f Gb/s\n",
              gb0.completed, static_cast<unsigned long long>(gb0.retransmitted_packets), gbn.goodput_gbps,
              irn.goodput_gbps);
}

}  // namespace
}  // namespace rdmasim
