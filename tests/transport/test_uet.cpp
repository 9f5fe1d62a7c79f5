// UET's Packet Delivery Sublayer: exact framing and unloaded timing, and
// under trimming, spraying, wire loss and each delivery mode, every byte
// delivered once (or, for uud, lost and said so), with the PDS's own
// conservation and SACK-consistency invariants holding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "config/scenario.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "support/recorder.h"
#include "topo/topology.h"
#include "transport/uet/pds.h"
#include "validate/uet_cases.h"
#include "verbs/verbs.h"

namespace rdmasim {
namespace {

using testing::Recorder;

FabricConfig uet_config(DeliveryMode mode = DeliveryMode::kRud) {
  FabricConfig cfg;
  cfg.transport = "uet";
  cfg.uet.mode = mode;
  cfg.uet.mtu = 4096;
  cfg.rc.data_tc = 3;
  return cfg;
}

// Trimming as the UET profiles run it: 64 B headers, strict-priority class 7.
FabricConfig trimming(FabricConfig cfg, uint64_t threshold = 0) {
  cfg.sw.trim.enabled = true;
  cfg.sw.trim.header_bytes = 64;
  cfg.sw.trim.threshold_bytes = threshold;
  cfg.sw.trim.tc = 7;
  cfg.sw.trim.class_limit_bytes = 64 * 1024;
  return cfg;
}

UetPds& pds_of(Fabric& f) { return dynamic_cast<UetPds&>(f.transport()); }

// Bytes by hand: data = 14 + 20 + 8 + PDS 12 + SES 44 + FCS 4 = 102 B of
// headers + payload + 20 B preamble/IFG; ACK = 14 + 20 + 8 + ACK_CC 32 + 4
// = 78 B + 20; NACK 62 B padded to 64 + 20.
TEST(UetFraming, WireBytesMatchTheUecHeaderFormats) {
  const Framing fr = Framing::uet();
  EXPECT_EQ(fr.data_wire(4096, false), 4218u);
  EXPECT_EQ(fr.data_wire(4096, true), 4218u) << "the SES header replaces RETH";
  EXPECT_EQ(fr.ack_wire(), 98u);
  EXPECT_EQ(fr.frame(fr.nack_header), 84u);
  EXPECT_EQ(Framing::kUetTrimMin, 58u);
}

// One 4 KiB WRITE through one switch: the target places it when the hand
// calculation says, and the ACK completes it one ACK trip later.
TEST(Uet, UnloadedWriteCompletesWhenTheHandCalculationSays) {
  Simulation sim(1);
  FabricConfig cfg = uet_config();
  cfg.nic.tx_latency = Time::from_ns(700);
  cfg.nic.rx_latency = Time::from_ns(600);
  cfg.sw.latency = Time::from_ns(500);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  qp.post_write(4096, 7);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.received.size(), 1u);
  ASSERT_EQ(rec.done.size(), 1u);
  const int64_t one_way = 700'000 + 2 * (4218 * 80 + 1'000'000) + 500'000 + 600'000;
  EXPECT_EQ(rec.received[0].completed.ps(), one_way);
  const int64_t ack = 2 * (98 * 80 + 1'000'000) + 500'000 + 600'000;
  EXPECT_EQ(rec.done[0].completed.ps(), one_way + ack);
  EXPECT_EQ(rec.done[0].completed.ps(), f.ideal_completion(qp.id(), Opcode::kWrite, 4096).ps());
  EXPECT_EQ(pds_of(f).totals().pdcs_opened, 1u);
  EXPECT_TRUE(pds_of(f).pdc(qp.id()).half[0].established);
  EXPECT_EQ(f.check_invariants(), "");
}

// One 4 KiB READ: the request (headers only, 122 B on the wire) crosses,
// the target's NIC takes it as new work (its tx latency again) and the data
// returns on the PDC's second direction; the READ completes when it lands.
TEST(Uet, UnloadedReadCompletesWhenTheHandCalculationSays) {
  Simulation sim(1);
  FabricConfig cfg = uet_config();
  cfg.nic.tx_latency = Time::from_ns(700);
  cfg.nic.rx_latency = Time::from_ns(600);
  cfg.sw.latency = Time::from_ns(500);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  qp.post_read(4096, 9);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_TRUE(rec.received.empty()) << "a READ is not a receive at the target";
  EXPECT_EQ(rec.done[0].op, Opcode::kRead);
  auto one_way = [](int64_t wire) { return 700'000 + 2 * (wire * 80 + 1'000'000) + 500'000 + 600'000; };
  EXPECT_EQ(rec.done[0].completed.ps(), one_way(122) + one_way(4218));
  EXPECT_EQ(rec.done[0].completed.ps(), f.ideal_completion(qp.id(), Opcode::kRead, 4096).ps());
  sim.run(Time::from_ms(2));
  EXPECT_TRUE(qp.idle()) << "both directions acknowledged";
  EXPECT_EQ(pds_of(f).pdc(qp.id()).half[1].snd_una, 1u) << "the response's one PSN acknowledged";
  EXPECT_EQ(f.check_invariants(), "");
}

// READs, WRITEs and SENDs interleaved over a lossy link: every operation
// completes, in posting order, and the invariants hold in both directions.
TEST(Uet, MixedOperationsUnderLossCompleteInPostingOrder) {
  Simulation sim(5);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), uet_config());
  f.set_link_loss(f.topology().hosts[0], 0, 0.01);
  f.set_link_loss(f.topology().hosts[1], 0, 0.01);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  for (int i = 0; i < 24; ++i) {
    if (i % 3 == 0) qp.post_read(200 * 1024, static_cast<uint64_t>(i));
    if (i % 3 == 1) qp.post_write(200 * 1024, static_cast<uint64_t>(i));
    if (i % 3 == 2) qp.post_send(10 * 1024, static_cast<uint64_t>(i));
  }
  sim.run(Time::from_ms(200));
  ASSERT_EQ(rec.done.size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(rec.done[i].wr_id, i);
  EXPECT_EQ(rec.received.size(), 16u) << "the WRITEs and SENDs";
  EXPECT_GT(qp.stats().retransmitted_packets, 0u);
  EXPECT_TRUE(qp.idle());
  EXPECT_EQ(f.check_invariants(), "");
}

// A lone long WRITE runs at line rate x 4096 / 4218; every packet ACKed.
TEST(Uet, LongWriteGoodputIsLineRateTimesPayloadShare) {
  Simulation sim(1);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), uet_config());
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  const int64_t bytes = int64_t{4096} * 10'000;
  qp.post_write(bytes, 1);
  sim.run(Time::from_s(1));
  ASSERT_EQ(rec.done.size(), 1u);
  const Time took = rec.done[0].completed - rec.done[0].posted;
  EXPECT_EQ(took.ps(), f.ideal_completion(qp.id(), Opcode::kWrite, bytes).ps());
  // Within 0.2%: the first packet's trip and the last ACK's are the rest.
  EXPECT_NEAR(static_cast<double>(bytes) * 8 / took.sec() / (100e9 * 4096 / 4218), 1.0, 0.002);
  const QpStats s = qp.stats();
  EXPECT_EQ(s.data_packets_sent, 10'000u);
  EXPECT_EQ(s.acks_sent, 10'000u);
  EXPECT_EQ(s.retransmitted_packets, 0u);
  EXPECT_EQ(f.check_invariants(), "");
}

struct IncastRun {
  PdsTotals totals;
  uint64_t trimmed_at_switch = 0;
  uint64_t drops = 0;
  uint64_t timeouts = 0;
  uint64_t retransmitted = 0;
  size_t done = 0;
  size_t received = 0;
  double receiver_busy = 0;
  std::string invariants;
};

// 8 senders x 2 MiB into one 100G port through a 1 MiB buffer, no
// congestion control: the queue overflows at once.
IncastRun incast(FabricConfig cfg, int senders = 8) {
  Simulation sim(7);
  cfg.sw.mmu.buffer_bytes = 1 << 20;
  Fabric f(sim, make_star(senders + 1, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  std::vector<QueuePair> qps;
  for (int s = 0; s < senders; ++s) {
    qps.push_back(f.verbs().create_qp(s, senders, &rec, 3));
    qps.back().post_write(2 << 20, static_cast<uint64_t>(s));
  }
  sim.run(Time::from_ms(50));
  IncastRun r;
  r.totals = pds_of(f).totals();
  for (const Switch* sw : f.switches()) {
    r.drops += sw->counters().buffer_drops;
    for (size_t i = 0; i < sw->num_ports(); ++i)
      r.trimmed_at_switch += sw->port(i).counters().trimmed_packets;
  }
  for (const QueuePair& q : qps) {
    r.timeouts += q.stats().timeouts;
    r.retransmitted += q.stats().retransmitted_packets;
  }
  r.done = rec.done.size();
  r.received = rec.received.size();
  if (r.done == static_cast<size_t>(senders)) {
    Time first = Time::never(), last = Time::zero();
    for (const Completion& c : rec.received) {
      first = std::min(first, c.posted);
      last = std::max(last, c.completed);
    }
    const Port& rx = f.nic(senders).port(0);
    (void)rx;
    // Receiver link busy share: payload bytes over the makespan at line rate x payload share.
    r.receiver_busy =
        static_cast<double>(senders) * (2 << 20) * 8 / (last - first).sec() / (100e9 * 4096 / 4218);
  }
  r.invariants = f.check_invariants();
  return r;
}

// Trimming turns every overflow into a NACK: no timeouts, no drops, every
// trimmed header NACKed and its packet resent once, and the receiver's
// link stays busy (VALIDATION D.12; the issue's >= 90%).
TEST(Uet, IncastWithTrimmingRecoversEveryTrimByNackWithoutTimeouts) {
  const IncastRun r = incast(trimming(uet_config()));
  EXPECT_EQ(r.done, 8u);
  EXPECT_EQ(r.received, 8u);
  EXPECT_GT(r.trimmed_at_switch, 100u);
  EXPECT_EQ(r.totals.trimmed_received, r.trimmed_at_switch) << "every trimmed header reached its target";
  // A trimmed copy of a PSN whose spurious resend already arrived needs no NACK.
  EXPECT_EQ(r.totals.trim_nacks_sent + r.totals.trimmed_after_arrival, r.totals.trimmed_received);
  EXPECT_LE(r.totals.trimmed_after_arrival, r.totals.trimmed_received / 1000);
  EXPECT_EQ(r.totals.trim_retransmits, r.totals.trim_nacks_sent) << "each NACK resent its packet once";
  EXPECT_EQ(r.timeouts, 0u);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_GE(r.receiver_busy, 0.90);
  EXPECT_EQ(r.invariants, "");
}

// Without trimming the same incast drops, and the PDS recovers by SACK
// inference and timeouts instead: slower, but every byte still arrives once.
TEST(Uet, IncastWithoutTrimmingRecoversDropsBySackAndTimeout) {
  const IncastRun trimmed = incast(trimming(uet_config()));
  const IncastRun r = incast(uet_config());
  EXPECT_EQ(r.done, 8u);
  EXPECT_GT(r.drops, 0u);
  EXPECT_EQ(r.trimmed_at_switch, 0u);
  EXPECT_GT(r.totals.sack_retransmits + r.totals.rto_retransmits, 0u);
  EXPECT_LT(r.receiver_busy, trimmed.receiver_busy);
  EXPECT_EQ(r.invariants, "");
}

// Cross-rail senders on a rail-optimized cluster spray over the spines and
// are trimmed at two hops: a resend can sit behind a window of later PSNs
// that arrived beyond the 64 after the cumulative one. The target moves its
// SACK bitmap to report them (UEC's SACK offset); with the bitmap pinned to
// the cumulative PSN the initiator counted them in flight, its window stayed
// shut and each hole waited for the timeout (22 ms instead of 0.2 ms).
TEST(Uet, ADeepHoleIsReportedBeyondTheSackBitmapAndNeedsNoTimeout) {
  const std::string yaml = R"(
name: rail-incast
fabric: {profile: uet-nscc}
topology: {type: servers, servers: 4, gpus_per_server: 4, spines: 4,
           link: {rate: 400Gbps, delay: 500ns}, fabric_link: {rate: 400Gbps, delay: 500ns}}
workload:
  - {type: incast, senders: 8, size: 1MiB}
)";
  Experiment e(load_scenario_text(yaml, "<rail-incast>"));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  Time last;
  for (const auto& f : e.flows()) {
    ASSERT_TRUE(f.finished());
    last = std::max(last, f.fct());
  }
  EXPECT_GT(e.fabric().verbs().total_stats().retransmitted_packets, 100u) << "trims happened";
  EXPECT_EQ(e.fabric().verbs().total_stats().timeouts, 0u);
  // 8 MiB into one 400G link takes 168 us at line rate.
  EXPECT_LT(last.us(), 1.5 * 8 * 1048576 * 8 / 400e3);
}

// Ordered delivery: the target takes only the next PSN; after a trim it
// NACKs the gap once and the initiator goes back N. Every byte arrives.
TEST(Uet, RodGoesBackNAfterATrimAndDeliversInOrder) {
  const IncastRun r = incast(trimming(uet_config(DeliveryMode::kRod)));
  EXPECT_EQ(r.done, 8u);
  EXPECT_EQ(r.received, 8u);
  EXPECT_GT(r.totals.rod_ooo_nacks, 0u);
  EXPECT_GT(r.retransmitted, r.totals.trim_retransmits) << "go-back-N resends more than the trimmed packets";
  EXPECT_EQ(r.invariants, "");
}

// Unreliable delivery: no ACKs, no resends; the sender completes each
// message as its last packet leaves; a trimmed packet is simply lost, so
// some receives never happen.
TEST(Uet, UudCompletesAtTheSenderAndLosesWhatIsTrimmed) {
  const IncastRun r = incast(trimming(uet_config(DeliveryMode::kUud)));
  EXPECT_EQ(r.done, 8u);
  EXPECT_GT(r.totals.trimmed_received, 0u);
  EXPECT_LT(r.received, 8u);
  EXPECT_EQ(r.retransmitted, 0u);
  EXPECT_EQ(r.totals.uud_sent, 8u * 512);
  EXPECT_EQ(r.invariants, "");
}

// Random loss on a link: without trims to NACK, the SACK bitmap and the
// timeout repair every hole; each message completes and the invariants hold.
TEST(Uet, WireLossIsRepairedBySackAndTimeout) {
  Simulation sim(3);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), uet_config());
  f.set_link_loss(f.topology().hosts[0], 0, 0.01);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  for (int i = 0; i < 16; ++i) qp.post_write(256 * 1024, static_cast<uint64_t>(i));
  sim.run(Time::from_ms(100));
  ASSERT_EQ(rec.done.size(), 16u);
  ASSERT_EQ(rec.received.size(), 16u);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(rec.done[i].wr_id, i) << "completions in posting order";
  const PdsTotals& t = pds_of(f).totals();
  EXPECT_GT(t.sack_retransmits, 0u);
  EXPECT_EQ(qp.stats().retransmitted_packets, t.sack_retransmits + t.rto_retransmits);
  EXPECT_EQ(f.check_invariants(), "");
}

using NsccRun = UetIncastRun;

NsccRun nscc_incast(int senders, int64_t bytes, Time from, Time to, bool tuned = false,
                    const std::string& profile = "uet-nscc") {
  NsccRun r = run_uet_incast(profile, senders, bytes, from, to, tuned);
  EXPECT_EQ(r.done, static_cast<size_t>(senders));
  return r;
}

uint64_t count(const NsccRun& r, const char* key) { return r.uet.value(key, uint64_t{0}); }

// The issue's incast on uet-nscc: 16 senders start at 1.5 BDP each, so the
// first round overflows into trims; every trim is NACKed and resent, no
// timeout fires, nothing is dropped, and the receiver's link stays >= 90% busy.
TEST(UetNscc, IncastTrimsAreRecoveredByNackAndTheReceiverStaysBusy) {
  const NsccRun r = nscc_incast(16, 8 << 20, Time::from_us(50), Time::from_us(1500));
  EXPECT_GT(r.trimmed, 0u);
  EXPECT_EQ(count(r, "trimmed_received"), r.trimmed);
  EXPECT_EQ(count(r, "trim_nacks_sent") + count(r, "trimmed_after_arrival"), count(r, "trimmed_received"));
  EXPECT_EQ(count(r, "trim_retransmits"), count(r, "trim_nacks_sent"));
  EXPECT_EQ(r.retransmitted, count(r, "trim_retransmits")) << "every resend was a trim's";
  EXPECT_EQ(r.timeouts, 0u);
  EXPECT_EQ(r.drops, 0u);
  EXPECT_GE(r.busy, 0.90) << "receiver link busy share";
  EXPECT_EQ(r.invariants, "");
}

// NSCC on 4 long flows into one port, the switches' thresholds set for this
// fabric's BDP: the port stays busy, the queue settles near the target delay
// (0.75 x base RTT) and the flows, started together at the max window, end
// with equal shares (Jain's index over the measuring window).
TEST(UetNscc, LongFlowsShareFairlyWithTheQueueNearTheTarget) {
  const NsccRun r =
      nscc_incast(4, int64_t{512} << 20, Time::from_us(1000), Time::from_us(11000), /*tuned=*/true);
  EXPECT_GE(r.busy, 0.95);
  const double target_us = r.target.sec() * 1e6;
  EXPECT_GT(r.mean_queue_us, 0.8 * target_us) << "target " << target_us << " us";
  EXPECT_LT(r.mean_queue_us, 1.25 * target_us) << "target " << target_us << " us";
  double sum = 0, squares = 0;
  std::string shares;
  for (const double x : r.share_gbps) {
    sum += x;
    squares += x * x;
    shares += " " + std::to_string(x);
  }
  const double jain = sum * sum / (static_cast<double>(r.share_gbps.size()) * squares);
  EXPECT_GE(jain, 0.95) << "shares (Gb/s):" << shares;
  EXPECT_EQ(r.invariants, "");
}

// RCCC on the same incast: once the first round's speculative credit has
// drained, the receiver shares its link by grants and its ToR port's queue
// stays within about the grant budget beyond one BDP, well below where
// NSCC alone holds it; fewer packets are trimmed.
TEST(UetNscc, RcccBoundsTheReceiversQueueInAnIncast) {
  const NsccRun nscc = nscc_incast(16, 8 << 20, Time::from_us(50), Time::from_us(1500));
  const NsccRun rccc =
      nscc_incast(16, 8 << 20, Time::from_us(50), Time::from_us(1500), false, "uet-nscc-rccc");
  std::printf(
      "16-to-1 after 50 us: queue mean/max NSCC %.2f/%.2f us, NSCC+RCCC %.2f/%.2f us; trims %llu vs %llu\n",
      nscc.mean_queue_us, nscc.max_queue_us, rccc.mean_queue_us, rccc.max_queue_us,
      static_cast<unsigned long long>(nscc.trimmed), static_cast<unsigned long long>(rccc.trimmed));
  EXPECT_LT(rccc.max_queue_us, 0.5 * nscc.max_queue_us);
  EXPECT_LT(rccc.trimmed, nscc.trimmed);
  EXPECT_GE(rccc.busy, 0.95);
  EXPECT_EQ(rccc.timeouts, 0u);
  EXPECT_EQ(rccc.invariants, "");
}

}  // namespace
}  // namespace rdmasim
