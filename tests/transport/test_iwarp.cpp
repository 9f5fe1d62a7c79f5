// iWARP (RDMAP/DDP/MPA over TCP): exact framing, exact unloaded timing,
// line-rate goodput, and TCP's loss recovery delivering every byte once.
#include <gtest/gtest.h>

#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "support/recorder.h"
#include "topo/topology.h"
#include "transport/iwarp/iwarp.h"
#include "validate/dcqcn_experiment.h"
#include "validate/steady_share.h"
#include "verbs/verbs.h"

namespace rdmasim {
namespace {

using testing::Recorder;

FabricConfig iwarp_config() {
  FabricConfig cfg;
  cfg.transport = "iwarp";
  return cfg;
}

// Distinct NIC and switch latencies, so each appears in the hand
// calculations below exactly where it belongs.
FabricConfig timed_config() {
  FabricConfig cfg = iwarp_config();
  cfg.nic.tx_latency = Time::from_ns(700);
  cfg.nic.rx_latency = Time::from_ns(600);
  cfg.sw.latency = Time::from_ns(500);
  return cfg;
}

IwarpTransport& iwarp_of(Fabric& f) { return dynamic_cast<IwarpTransport&>(f.transport()); }

// Bytes by hand from the RFCs (header sizes in iwarp_framing.h):
// Ethernet 14 + FCS 4 + preamble/IFG 20, IPv4 20, TCP 20 (+12 timestamps),
// MPA length 2 + pad + CRC 4, DDP tagged 14 / untagged 18.
TEST(IwarpFraming, WireBytesMatchTheRfcs) {
  IwarpFraming fr;
  EXPECT_EQ(fr.mss(), 1460u);
  EXPECT_EQ(fr.mulpdu(), 1454u);               // RFC 5044: EMSS - (6 + EMSS mod 4)
  EXPECT_EQ(fr.max_payload(true), 1440u);      // a Write segment
  EXPECT_EQ(fr.max_payload(false), 1436u);     // a Send segment
  EXPECT_EQ(fr.data_wire(1440, true), 1538u);  // 38 + 20 + 20 + 1460
  EXPECT_EQ(fr.data_wire(8, true), 106u);      // 8 B Write: 2 + 14 + 8 = 24, + CRC = 28 TCP bytes
  EXPECT_EQ(fr.data_wire(9, true), 110u);      // 25 -> padded to 28, + CRC = 32
  EXPECT_EQ(fr.read_request_wire(), 130u);     // 2 + 18 + 28 = 48, + CRC = 52
  EXPECT_EQ(fr.ack_wire(), 84u);               // 58 B padded to the 64 B minimum frame
  fr.timestamps = true;
  EXPECT_EQ(fr.mss(), 1448u);
  EXPECT_EQ(fr.max_payload(true), 1428u);
  EXPECT_EQ(fr.data_wire(8, true), 118u);
  fr.timestamps = false;
  fr.markers = true;
  EXPECT_EQ(fr.mulpdu(), 1442u);  // 1460 - (6 + 4 x 3)
  fr.markers = false;
  fr.ip_mtu = 9000;
  EXPECT_EQ(fr.max_payload(true), 8940u);  // 8960 - 6 - 14
}

// One 1000-byte Write through one switch: the responder sees its last byte
// when the hand calculation says so, to the picosecond.
TEST(Iwarp, UnloadedWriteArrivesWhenTheHandCalculationSays) {
  Simulation sim(1);
  FabricConfig cfg = timed_config();
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  qp.post_write(1000, 7);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.received.size(), 1u);
  ASSERT_EQ(rec.done.size(), 1u);
  // 1000 B Write: 2 + 14 + 1000 = 1016 -> FPDU 1020 TCP bytes; frame 38 + 40 + 1020 = 1098 B.
  const int64_t ser = 1098 * 80;  // ps at 100 Gb/s
  const int64_t one_way = 700'000 + 2 * (ser + 1'000'000) + 500'000 + 600'000;
  EXPECT_EQ(rec.received[0].completed.ps(), one_way);
  // The segment ends the message: its ACK (84 B) leaves at once.
  const int64_t ack = 2 * (84 * 80 + 1'000'000) + 500'000 + 600'000;
  EXPECT_EQ(rec.done[0].completed.ps(), one_way + ack);
  EXPECT_EQ(rec.done[0].completed.ps(), f.ideal_completion(qp.id(), Opcode::kWrite, 1000).ps());
  EXPECT_EQ(f.check_invariants(), "");
}

// One 1000-byte Read: the Read Request (130 B) crosses, the responder's
// RNIC takes it as new work (its tx latency again) and streams the tagged
// Read Response back on the connection's other direction; the Read
// completes when the response's last byte lands, to the picosecond.
TEST(Iwarp, UnloadedReadCompletesWhenTheHandCalculationSays) {
  Simulation sim(1);
  FabricConfig cfg = timed_config();
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  qp.post_read(1000, 9);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.done.size(), 1u);
  EXPECT_TRUE(rec.received.empty()) << "a Read is not a receive at the responder";
  EXPECT_EQ(rec.done[0].wr_id, 9u);
  EXPECT_EQ(rec.done[0].op, Opcode::kRead);
  EXPECT_EQ(rec.done[0].bytes, 1000);
  // Request: 2 + 18 + 28 = 48 -> FPDU 52; frame 38 + 40 + 52 = 130 B.
  const int64_t request = 700'000 + 2 * (130 * 80 + 1'000'000) + 500'000 + 600'000;
  // Response: 2 + 14 + 1000 = 1016 -> FPDU 1020; frame 1098 B.
  const int64_t response = 700'000 + 2 * (1098 * 80 + 1'000'000) + 500'000 + 600'000;
  EXPECT_EQ(rec.done[0].completed.ps(), request + response);
  EXPECT_EQ(rec.done[0].completed.ps(), f.ideal_completion(qp.id(), Opcode::kRead, 1000).ps());
  sim.run(Time::from_ms(2));
  EXPECT_TRUE(qp.idle()) << "both directions acknowledged";
  const TcpConnection& c = iwarp_of(f).connection(qp.id());
  EXPECT_EQ(c.half[0].ctr.segments_sent, 1u);
  EXPECT_EQ(c.half[1].ctr.segments_sent, 1u);
  EXPECT_EQ(c.half[1].ctr.acks_sent, 1u) << "the requester acknowledges the response";
  EXPECT_EQ(f.check_invariants(), "");
}

// With the handshake on, a connection's first Write waits for SYN,
// SYN-ACK, MPA Request and MPA Reply, each a small frame crossing one
// switch; the set-up time is those four one-way trips, to the picosecond,
// and the Write then goes as it would on a connection set up ahead.
TEST(Iwarp, HandshakeDelaysTheFirstWriteByTwoRoundTripsOfSetUpFrames) {
  Simulation sim(1);
  FabricConfig cfg = timed_config();
  cfg.tcp.handshake = true;
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  qp.post_write(1000, 7);
  qp.post_write(1000, 8);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.done.size(), 2u);
  auto one_way = [](int64_t wire) { return 2 * (wire * 80 + 1'000'000) + 500'000 + 600'000; };
  // SYN/SYN-ACK: 18 + 20 + 20 + MSS 4 + NOP/WScale 4 = 66 B -> 86 on the wire;
  // MPA Request/Reply: 58 + key 16 + control 4 + IRD/ORD 4 = 82 B -> 102.
  const int64_t setup = 2 * one_way(86) + 2 * one_way(102);
  const TcpConnection& c = iwarp_of(f).connection(qp.id());
  EXPECT_EQ(c.setup_time.ps(), setup);
  EXPECT_EQ(c.setup_retries, 0u);
  // Established: the Writes go at once (their doorbells rang long before).
  EXPECT_EQ(rec.received[0].completed.ps(), setup + one_way(1098));
  EXPECT_EQ(rec.done[0].completed.ps(), setup + one_way(1098) + one_way(84));
  EXPECT_TRUE(c.half[0].rtt_valid) << "the handshake gave the first RTT sample";
  EXPECT_EQ(f.check_invariants(), "");
  nlohmann::ordered_json j;
  f.transport().report(j);
  EXPECT_EQ(j["tcp"]["connections_set_up"], 1);
  EXPECT_NEAR(j["tcp"]["setup_us"]["max"].get<double>(), static_cast<double>(setup) / 1e6, 1e-9);
}

// A long Read streams at line rate x 1440 / 1538, like a Write the other way.
TEST(Iwarp, LongReadGoodputIsLineRateTimesPayloadShare) {
  Simulation sim(1);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), iwarp_config());
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  const int64_t bytes = int64_t{1440} * 100'000;
  qp.post_read(bytes, 1);
  sim.run(Time::from_s(1));
  ASSERT_EQ(rec.done.size(), 1u);
  const Time took = rec.done[0].completed - rec.done[0].posted;
  EXPECT_EQ(took.ps(), f.ideal_completion(qp.id(), Opcode::kRead, bytes).ps());
  const double goodput = static_cast<double>(bytes) * 8 / took.sec();
  EXPECT_NEAR(goodput / (100e9 * 1440 / 1538), 1.0, 0.001) << goodput / 1e9 << " Gb/s";
  EXPECT_EQ(iwarp_of(f).connection(qp.id()).half[1].ctr.segments_sent, 100'000u);
  EXPECT_EQ(f.check_invariants(), "");
}

// A lone long Write with no congestion window runs at line rate x 1440 /
// 1538; the reverse-direction ACKs take nothing from it.
TEST(Iwarp, LongWriteGoodputIsLineRateTimesPayloadShare) {
  Simulation sim(1);
  Fabric f(sim, make_star(2, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), iwarp_config());
  Recorder rec;
  QueuePair qp = f.verbs().create_qp(0, 1, &rec, 3);
  const int64_t bytes = int64_t{1440} * 100'000;
  qp.post_write(bytes, 1);
  sim.run(Time::from_s(1));
  ASSERT_EQ(rec.done.size(), 1u);
  const double goodput = static_cast<double>(bytes) * 8 / (rec.done[0].completed - rec.done[0].posted).sec();
  EXPECT_NEAR(goodput / (100e9 * 1440 / 1538), 1.0, 0.001) << goodput / 1e9 << " Gb/s";
  EXPECT_EQ((rec.done[0].completed - rec.done[0].posted).ps(),
            f.ideal_completion(qp.id(), Opcode::kWrite, bytes).ps());
  // Delayed ACK: one ACK per two segments (RFC 5681 §4.2), and one at the end.
  const QpStats s = qp.stats();
  EXPECT_EQ(s.data_packets_sent, 100'000u);
  EXPECT_EQ(s.acks_sent, 50'000u);
  EXPECT_EQ(s.retransmitted_packets, 0u);
  EXPECT_EQ(f.check_invariants(), "");
}

// A 16-to-1 incast into a shallow buffer on lossy Ethernet: TCP loses
// segments, recovers them by fast retransmit (and timeouts where a window
// was too small for three duplicate ACKs), and every message completes,
// each byte delivered once and in order: with NewReno's duplicate-ACK
// recovery and with SACK's scoreboard (RFC 6675), for Writes and for
// Reads (whose responses converge on the reader's port instead).
struct IncastCase {
  bool sack;
  Opcode op;
};

struct IncastOutcome {
  Time last;
  uint64_t drops = 0, resent = 0, fast = 0, timeouts = 0, reno = 0, sack = 0;
};

IncastOutcome run_lossy_incast(const IncastCase& k) {
  Simulation sim(3);
  FabricConfig cfg = iwarp_config();
  cfg.cc = "newreno";
  cfg.tcp.min_rto = Time::from_us(200);  // a datacenter RTO floor (Vasudevan et al., SIGCOMM 2009)
  cfg.tcp.sack = k.sack;
  cfg.sw.mmu.buffer_bytes = 200'000;
  Fabric f(sim, make_star(17, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  Recorder rec;
  std::vector<QueuePair> qps;
  for (int h = 1; h <= 16; ++h) {
    // A Write goes from each server to host 0; a Read by host 0 from each.
    qps.push_back(k.op == Opcode::kWrite ? f.verbs().create_qp(h, 0, &rec, 3)
                                         : f.verbs().create_qp(0, h, &rec, 3));
    if (k.op == Opcode::kWrite)
      qps.back().post_write(1 << 20, static_cast<uint64_t>(h));
    else
      qps.back().post_read(1 << 20, static_cast<uint64_t>(h));
  }
  sim.run(Time::from_s(2));
  EXPECT_EQ(rec.done.size(), 16u);
  EXPECT_EQ(rec.received.size(), k.op == Opcode::kWrite ? 16u : 0u);
  IncastOutcome o;
  for (const Switch* sw : f.switches()) o.drops += sw->counters().buffer_drops;
  const int d = k.op == Opcode::kWrite ? 0 : 1;  // the direction that carries the data
  for (const QueuePair& q : qps) {
    const TcpHalf& h = iwarp_of(f).connection(q.id()).half[d];
    o.resent += h.ctr.retransmitted;
    o.fast += h.ctr.fast_retransmits;
    o.timeouts += h.ctr.timeouts;
    o.reno += h.ctr.reno_recoveries;
    o.sack += h.ctr.sack_recoveries;
    // Each connection delivered exactly its segments, in order, once.
    EXPECT_EQ(h.rcv_nxt, iwarp_of(f).segments_for(Opcode::kWrite, 1 << 20));
    EXPECT_EQ(h.snd_una, h.snd_end);
  }
  for (const auto& c : rec.done) o.last = std::max(o.last, c.completed);
  EXPECT_EQ(f.check_invariants(), "");
  return o;
}

class IwarpLossyIncast : public ::testing::TestWithParam<IncastCase> {};

TEST_P(IwarpLossyIncast, RecoversEveryByteOnceAndInOrder) {
  const IncastCase k = GetParam();
  const IncastOutcome o = run_lossy_incast(k);
  std::printf("%s %s incast: last %.3f ms, drops %llu, resent %llu, fast %llu, RTOs %llu\n",
              k.sack ? "SACK" : "NewReno", k.op == Opcode::kWrite ? "write" : "read", o.last.sec() * 1e3,
              static_cast<unsigned long long>(o.drops), static_cast<unsigned long long>(o.resent),
              static_cast<unsigned long long>(o.fast), static_cast<unsigned long long>(o.timeouts));
  // Recovery is fast retransmit's, not the 40 ms delayed-ACK timer's: a
  // segment filling part of a gap is acknowledged at once (RFC 5681 §4.2).
  EXPECT_LT(o.last, Time::from_ms(5));
  EXPECT_GT(o.drops, 0u);
  EXPECT_GE(o.resent, o.drops) << "every dropped segment is sent again";
  EXPECT_GT(o.fast, 0u);
  EXPECT_GT(k.sack ? o.sack : o.reno, 0u);
  EXPECT_EQ(k.sack ? o.reno : o.sack, 0u);
}

INSTANTIATE_TEST_SUITE_P(Recovery, IwarpLossyIncast,
                         ::testing::Values(IncastCase{false, Opcode::kWrite},
                                           IncastCase{true, Opcode::kWrite}, IncastCase{false, Opcode::kRead},
                                           IncastCase{true, Opcode::kRead}));

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Alizadeh et al. (SIGCOMM 2010) and RFC 8257 on iwarp-dctcp: N long flows
// into one 10 Gb/s port with K = 65 segments keep the queue near K, the port
// busy and the flows fair, with no loss.
class IwarpDctcpTest : public ::testing::TestWithParam<int> {};

TEST_P(IwarpDctcpTest, LongFlowsHoldTheQueueNearKAndShareFairly) {
  const int n = GetParam();
  Simulation sim(5);
  FabricConfig cfg = find_profile("iwarp-dctcp").config;
  Fabric f(sim, make_star(n + 1, LinkSpec{Rate::from_gbps(10), Time::from_us(10)}), cfg);
  testing::Recorder rec;
  for (int s = 1; s <= n; ++s) f.verbs().create_qp(s, 0, &rec, 3).post_write(int64_t{1} << 40, 0);
  const Time half = Time::from_ms(50);
  QueueSampler q(sim, f.switches()[0]->mmu(), 0, 3, half, Time::from_us(1));
  const SteadyShare share = steady_share(sim, f, n, half);
  const double sum = share.total_gbps;
  const double k_bytes = 65.0 * 1538;
  std::printf("iwarp-dctcp N=%d: %.3f Gb/s, Jain %.3f, mean queue %.1f KB (K %.1f KB)\n", n, sum, share.jain,
              q.mean() / 1e3, k_bytes / 1e3);
  EXPECT_GE(share.jain, 0.95);                // fair
  EXPECT_GE(sum, 0.95 * 10.0 * 1440 / 1538);  // >= 95% of the payload line rate
  EXPECT_GT(q.mean(), 0.5 * k_bytes);         // the queue sits around K ...
  EXPECT_LT(q.mean(), 1.5 * k_bytes);         // ... not at the buffer limit
  EXPECT_EQ(f.switches()[0]->counters().buffer_drops, 0u);
  EXPECT_EQ(f.check_invariants(), "");
}

INSTANTIATE_TEST_SUITE_P(Flows, IwarpDctcpTest, ::testing::Values(2, 10));

}  // namespace
}  // namespace rdmasim
