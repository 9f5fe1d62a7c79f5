// SHARP's packet-level data path (sharp/sharp_data_path.h): an operation's
// time is the tree's pipeline worked out hop by hop, the per-host window
// paces it exactly, its packets share the NICs and the links with RC
// traffic (or, on a class of its own with priority, do not), and every
// packet and credit is accounted for.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "sharp/sharp_data_path.h"

namespace rdmasim {
namespace {

const LinkSpec kHostLink{Rate::from_gbps(100), Time::from_ns(1000)};

// Store-and-forward switches with a known pipeline and NIC latencies, so
// that a packet's path can be worked out by hand.
FabricConfig known_latencies() {
  FabricConfig f = find_profile("ideal").config;
  f.rc.mtu = 4096;
  f.sharp.enabled = true;
  f.sw.cut_through = false;
  f.sw.latency = Time::from_ns(200);
  f.nic.tx_latency = Time::from_ns(300);
  f.nic.rx_latency = Time::from_ns(400);
  return f;
}

// Records when the operation it is handed to completes.
struct Done final : EventHandler {
  Simulation* sim = nullptr;
  std::optional<Time> at;
  void on_event(uint32_t /*kind*/, uint64_t /*arg*/) override { at = sim->now(); }
};

struct Bed {
  Simulation sim{1};
  Fabric fab;
  SharpManager groups;
  SharpGroup g;
  Done done;
  Bed(const FabricConfig& cfg, Topology t)
      : fab(sim, std::move(t), cfg), groups(fab.topology(), fab.config().sharp) {
    std::vector<int> all(fab.num_hosts());
    for (int i = 0; i < fab.num_hosts(); ++i) all[i] = i;
    g = *groups.allocate(all);
    done.sim = &sim;
  }
  // Runs one operation over every host alone and returns its duration.
  Time run(int64_t bytes) {
    const Time t0 = sim.now();
    fab.sharp()->start(g, g.hosts, bytes, &done, 0, 0);
    while (!done.at) {
      if (sim.pending_events() == 0) throw std::logic_error("operation did not complete");
      sim.run(sim.now() + Time::from_us(50));
    }
    return *done.at - t0;
  }
};

// Two leaves, one host each, one spine: up host -> leaf -> spine, down
// spine -> leaf -> host. Every hop is the sender's serialization and the
// cable, then the receiver's pipeline; each of the two reducing switches
// adds its aggregation unit's time for the payload at 95% of the port
// rate and its latency; the leaves replicate the result as it passes.
TEST(SharpDataPath, OnePacketTakesTheTreesPipeline) {
  const FabricConfig cfg = known_latencies();
  Bed b(cfg, make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
  ASSERT_EQ(b.g.switches.size(), 3u);
  const uint32_t payload = 4096;
  const Time ser = kHostLink.rate.tx_time(Bytes(cfg.framing.data_wire(payload, true)));
  const Time alu = Rate::from_bps(95'000'000'000).tx_time(Bytes(payload));
  const Time expected = cfg.nic.tx_latency + (ser + kHostLink.delay) * 4 + cfg.sw.latency * 3 +
                        cfg.nic.rx_latency + (alu + cfg.sharp.switch_latency) * 2;
  EXPECT_EQ(b.run(payload), expected);
  EXPECT_EQ(b.fab.sharp()->counters().reductions, 3u);  // two leaves, then the spine
  EXPECT_EQ(b.fab.sharp()->counters().results, 2u);
  EXPECT_EQ(b.fab.check_invariants(), "");
  EXPECT_EQ(b.fab.sharp()->active(), 0u);
}

// With a core tier (6 leaves of one host, in 3 pods of 2 under 4-port
// switches) hosts of different pods meet at a core: up host -> leaf -> pod
// spine -> core, and down again. Six hops, five switch pipelines, and three
// reducing switches one above the other, each adding its aggregation time.
TEST(SharpDataPath, OnePacketTakesAThreeLevelTreesPipeline) {
  const FabricConfig cfg = known_latencies();
  Bed b(cfg, make_servers(6, 1, 1, kHostLink, kHostLink, 1, 4));
  // The group over every host: 6 leaves, 3 pod spines, one core.
  ASSERT_EQ(b.g.switches.size(), 10u);
  EXPECT_EQ(b.fab.topology().nodes[b.g.root].tier, 3);
  const uint32_t payload = 4096;
  const Time ser = kHostLink.rate.tx_time(Bytes(cfg.framing.data_wire(payload, true)));
  const Time alu = Rate::from_bps(95'000'000'000).tx_time(Bytes(payload));
  const Time expected = cfg.nic.tx_latency + (ser + kHostLink.delay) * 6 + cfg.sw.latency * 5 +
                        cfg.nic.rx_latency + (alu + cfg.sharp.switch_latency) * 3;
  // Hosts 0 and 2: pods 0 and 1.
  const Time t0 = b.sim.now();
  b.fab.sharp()->start(b.g, {0, 2}, payload, &b.done, 0, 0);
  while (!b.done.at) b.sim.run(b.sim.now() + Time::from_us(50));
  EXPECT_EQ(*b.done.at - t0, expected);
  EXPECT_EQ(b.fab.sharp()->counters().reductions, 5u);  // two leaves, two spines, the core
  EXPECT_EQ(b.fab.sharp()->counters().results, 2u);
  EXPECT_EQ(b.fab.check_invariants(), "");
  EXPECT_EQ(b.fab.sharp()->active(), 0u);
  // Over every host, a long operation still streams at the aggregation rate.
  Bed all(cfg, make_servers(6, 1, 1, kHostLink, kHostLink, 1, 4));
  const int64_t bytes = int64_t{16} << 20;
  const double rate = static_cast<double>(bytes) * 8 / all.run(bytes).sec();
  EXPECT_NEAR(rate / 95e9, 1.0, 0.02) << rate / 1e9 << " Gb/s";
  EXPECT_EQ(all.fab.sharp()->counters().results, 6u * 4096);
  EXPECT_EQ(all.fab.check_invariants(), "");
}

// With a window of one packet each chunk waits for the previous result:
// the first pays the doorbell, every later one leaves the instant the
// result before it lands, so n chunks take T1 + (n-1) x (T1 - tx latency).
TEST(SharpDataPath, TheWindowPacesTheStreamExactly) {
  FabricConfig cfg = known_latencies();
  cfg.sharp.window_bytes = 4096;
  Bed one(cfg, make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
  const Time t1 = one.run(4096);
  Bed eight(cfg, make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
  EXPECT_EQ(eight.fab.sharp()->window_packets(), 1u);
  EXPECT_EQ(eight.run(8 * 4096), t1 + (t1 - cfg.nic.tx_latency) * 7);
}

// A long operation with the default window streams at the aggregation
// unit's rate, 95% of the link, on 8 hosts behind two leaves.
TEST(SharpDataPath, ALongOperationStreamsAtTheAggregationRate) {
  Bed b(known_latencies(), make_leaf_spine(2, 4, 1, 1.0, kHostLink, kHostLink));
  const int64_t bytes = int64_t{64} << 20;
  const Time t = b.run(bytes);
  const double rate = static_cast<double>(bytes) * 8 / t.sec();
  EXPECT_NEAR(rate / 95e9, 1.0, 0.01) << rate / 1e9 << " Gb/s";
  EXPECT_EQ(b.fab.check_invariants(), "");
  const PacketLedger& led = b.fab.net().ledger();
  const int t_sharp = static_cast<int>(PktType::kSharp);
  EXPECT_EQ(led.live[t_sharp], 0u);
  // Each host's 16,384 packets come back once to each of the 8 hosts.
  EXPECT_EQ(b.fab.sharp()->counters().packets_sent, 8u * 16384);
  EXPECT_EQ(b.fab.sharp()->counters().results, 8u * 16384);
}

struct Sink final : CompletionSink {
  std::optional<Time> done;
  void on_complete(const Completion& c) override { done = c.completed; }
};

// The host's SHARP stream and a bulk WRITE from the same NIC take turns in
// its round robin and share host 0's uplink and host 1's downlink: while
// they overlap each gets half, so the operation takes about twice as long,
// and so does the WRITE's share of the link.
TEST(SharpDataPath, SharesTheNicAndTheLinksWithOtherTraffic) {
  const int64_t bytes = int64_t{16} << 20;
  Bed alone(known_latencies(), make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
  const Time t_alone = alone.run(bytes);
  Bed busy(known_latencies(), make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
  Sink sink;
  busy.fab.verbs().create_qp(0, 1, &sink).post_write(bytes * 4, 1);
  const Time t_busy = busy.run(bytes);
  EXPECT_NEAR(t_busy.sec() / t_alone.sec(), 2.0, 0.15)
      << t_alone.us() << " us alone, " << t_busy.us() << " us beside a WRITE";
  while (!sink.done) busy.sim.run(busy.sim.now() + Time::from_us(100));
  EXPECT_EQ(busy.fab.check_invariants(), "");
}

// On a class of its own that the links serve first, SHARP's stream no longer
// shares the NIC and the links with the WRITE (the NIC arbitrates between
// classes as its link layer does): it takes as long as alone, and the WRITE
// still completes on what is left. Ethernet: TC7, strict in fabric.scheduler's
// default; InfiniBand: SL1 on VL1, the only VL of the high-priority table,
// with no high-priority limit.
TEST(SharpDataPath, OnAClassOfItsOwnWithPriorityItIsShieldedFromOtherTraffic) {
  const int64_t bytes = int64_t{16} << 20;
  FabricConfig eth = known_latencies();
  eth.sharp.traffic_class = 7;
  FabricConfig ib = find_profile("ib-ndr").config;
  ib.nic.jitter.enabled = false;
  ib.sharp.traffic_class = 1;
  ib.ib.credit.vlarb_high = {{1, 4}};
  ib.ib.credit.vlarb_low = {{0, 4}};
  ib.ib.credit.high_limit = 255;
  for (const FabricConfig& cfg : {eth, ib}) {
    Bed alone(cfg, make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
    const Time t_alone = alone.run(bytes);
    Bed busy(cfg, make_leaf_spine(2, 1, 1, 1.0, kHostLink, kHostLink));
    Sink sink;
    busy.fab.verbs().create_qp(0, 1, &sink).post_write(bytes * 4, 1);
    const Time t_busy = busy.run(bytes);
    EXPECT_NEAR(t_busy.sec() / t_alone.sec(), 1.0, 0.01)
        << cfg.name << ": " << t_alone.us() << " us alone, " << t_busy.us() << " us beside a WRITE";
    while (!sink.done) busy.sim.run(busy.sim.now() + Time::from_us(100));
    EXPECT_EQ(busy.fab.check_invariants(), "");
  }
}

// On InfiniBand the results take the downstream credits like any packet:
// no VL buffer overruns, and every credit comes back.
TEST(SharpDataPath, KeepsInfinibandCreditsWhole) {
  FabricConfig cfg = find_profile("ib-ndr").config;
  cfg.nic.jitter.enabled = false;
  Bed b(cfg, make_leaf_spine(2, 4, 1, 1.0, {Rate::from_gbps(400), Time::from_ns(150)},
                             {Rate::from_gbps(400), Time::from_ns(150)}));
  const Time t = b.run(int64_t{32} << 20);
  EXPECT_GT(static_cast<double>(int64_t{32} << 20) * 8 / t.sec(), 0.9 * 400e9 * 0.95);
  EXPECT_EQ(b.fab.check_invariants(), "");
  for (const Switch* sw : b.fab.switches())
    for (size_t i = 0; i < sw->num_ports(); ++i) {
      if (const CreditState* c = sw->port(i).credit()) {
        EXPECT_EQ(c->ctr.buffer_overruns, 0u) << sw->name();
      }
    }
}

// NVIDIA SHARP stops a job whose tree uses a link that fails (SHARP 3.2.0
// release notes): the operation stops when the subnet manager has heard of
// it, its hosts send nothing more, what was in flight is discarded with
// every packet and credit accounted for, and the stop is logged.
TEST(SharpDataPath, AFailedTreeLinkStopsTheJobWhenTheManagerHearsOfIt) {
  FabricConfig cfg = find_profile("ib-ndr").config;
  cfg.nic.jitter.enabled = false;
  Bed b(cfg, make_leaf_spine(2, 2, 1, 1.0, {Rate::from_gbps(400), Time::from_ns(150)},
                             {Rate::from_gbps(400), Time::from_ns(150)}));
  // leaf0's uplink: ports 0-1 face its hosts, port 2 the spine.
  const int leaf0 = b.fab.num_hosts();  // the builder numbers hosts first, then leaves
  b.fab.schedule_link_state(Time::from_us(10), leaf0, 2, false);
  b.fab.sharp()->start(b.g, b.g.hosts, int64_t{64} << 20, &b.done, 0, 0);  // ~1.4 ms alone
  b.sim.run(Time::from_us(10) + cfg.ib.sm.detection_delay);
  const uint64_t sent_at_stop = b.fab.sharp()->counters().packets_sent;
  b.sim.run(Time::from_ms(20));
  EXPECT_FALSE(b.done.at.has_value());
  ASSERT_EQ(b.fab.sharp()->stops().size(), 1u);
  const SharpDataPath::Stop& s = b.fab.sharp()->stops().front();
  EXPECT_EQ(s.at, Time::from_us(10) + cfg.ib.sm.detection_delay);
  EXPECT_EQ(s.link, b.fab.topology().nodes[leaf0].name + ":2");
  EXPECT_EQ(b.fab.sharp()->stopped(&b.done), &s);
  EXPECT_EQ(b.fab.sharp()->counters().packets_sent, sent_at_stop);  // nothing sent after the stop
  EXPECT_LT(sent_at_stop, 4u * ((64u << 20) / cfg.rc.mtu));
  bool logged = false;
  for (const RecoveryEvent& e : b.fab.recovery_log())
    logged = logged || (e.what == "sharp_job_stopped" && e.at == s.at && e.link == s.link);
  EXPECT_TRUE(logged);
  EXPECT_EQ(b.fab.check_invariants(), "");
  EXPECT_EQ(b.sim.pending_events(), 0u);  // nothing left running
}

// An operation that starts on a tree whose link is down is stopped as one
// that was running: when the manager hears of the failure, or at once if it
// already has.
TEST(SharpDataPath, AnOperationStartedOverADownLinkStopsToo) {
  FabricConfig cfg = find_profile("ib-ndr").config;
  cfg.nic.jitter.enabled = false;
  const LinkSpec l{Rate::from_gbps(400), Time::from_ns(150)};
  Bed b(cfg, make_leaf_spine(2, 2, 1, 1.0, l, l));
  const int leaf0 = b.fab.num_hosts();
  const Time heard = Time::from_us(10) + cfg.ib.sm.detection_delay;
  b.fab.schedule_link_state(Time::from_us(10), leaf0 + 1, 2, false);  // leaf1's uplink
  b.sim.run(Time::from_us(20));
  b.fab.sharp()->start(b.g, b.g.hosts, int64_t{1} << 20, &b.done, 0, 0);  // before the report
  Done late;
  late.sim = &b.sim;
  b.sim.run(heard + Time::from_us(50));
  b.fab.sharp()->start(b.g, b.g.hosts, int64_t{1} << 20, &late, 0, 0);  // after it
  b.sim.run(Time::from_ms(10));
  EXPECT_FALSE(b.done.at.has_value());
  EXPECT_FALSE(late.at.has_value());
  ASSERT_NE(b.fab.sharp()->stopped(&b.done), nullptr);
  ASSERT_NE(b.fab.sharp()->stopped(&late), nullptr);
  EXPECT_EQ(b.fab.sharp()->stopped(&b.done)->at, heard);
  EXPECT_EQ(b.fab.sharp()->stopped(&late)->at, heard + Time::from_us(50));
  EXPECT_EQ(b.fab.check_invariants(), "");
}

// An operation the failure does not touch (a tree elsewhere, or one that
// finished first) completes as if nothing had happened.
TEST(SharpDataPath, AFailureOffTheTreeOrAfterTheOperationStopsNothing) {
  FabricConfig cfg = find_profile("ib-ndr").config;
  cfg.nic.jitter.enabled = false;
  const LinkSpec l{Rate::from_gbps(400), Time::from_ns(150)};
  Bed alone(cfg, make_leaf_spine(2, 2, 1, 1.0, l, l));
  const Time t = alone.run(int64_t{1} << 20);
  Bed b(cfg, make_leaf_spine(2, 2, 1, 1.0, l, l));
  const int leaf0 = b.fab.num_hosts();  // the builder numbers hosts first, then leaves
  b.fab.schedule_link_state(t + Time::from_ns(1), leaf0, 2, false);  // just after it completes
  EXPECT_EQ(b.run(int64_t{1} << 20), t);
  b.sim.run(Time::from_ms(5));
  EXPECT_TRUE(b.fab.sharp()->stops().empty());
  // Two hosts of one leaf: their tree is that leaf alone, off the uplink.
  SharpManager groups(b.fab.topology(), b.fab.config().sharp);
  std::optional<SharpGroup> g = groups.allocate({0, 1});
  ASSERT_TRUE(g.has_value());
  Done done;
  done.sim = &b.sim;
  const Time t0 = b.sim.now();
  b.fab.sharp()->start(*g, {0, 1}, int64_t{1} << 20, &done, 0, 0);
  b.sim.run(t0 + Time::from_ms(5));
  ASSERT_TRUE(done.at.has_value());
  EXPECT_TRUE(b.fab.sharp()->stops().empty());
}

}  // namespace
}  // namespace rdmasim
