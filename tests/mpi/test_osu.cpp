// The MPI layer and the OSU benchmarks: the protocols' latency worked out
// from perftest runs on the same fabric, bytes conserved by the collective
// algorithms, OSU's table format against the real tool's output, and the
// workload's keys read strictly.
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "mpi/collectives.h"
#include "mpi/mpi_engine.h"
#include "mpi/osu.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "support/workload_errors.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

// ib-ndr with its host jitter off, so every iteration takes the same time.
FabricConfig quiet_fabric(const std::string& profile = "ib-ndr") {
  FabricConfig f = find_profile(profile).config;
  f.nic.jitter.enabled = false;
  return f;
}

OsuOptions osu(const std::string& bench, int64_t lo, int64_t hi, const FabricConfig& f) {
  OsuOptions o;
  o.fabric = f;
  o.link = f.link;
  o.params.benchmark = bench;
  o.params.min_size = lo;
  o.params.max_size = hi;
  o.params.iterations = 20;
  o.params.warmup = 2;
  o.params.mpi = mpi_defaults(f);
  return o;
}

double perftest_us(const std::string& test, int64_t size, const FabricConfig& f) {
  PerftestOptions p;
  p.test = test;
  p.size = size;
  p.iters = 20;
  p.fabric = f;
  p.link = f.link;
  const PerftestResult r = run_perftest(p);
  return r.latency_us.at(0);  // all equal without jitter
}

// Eager: the one-way time is a SEND of header + data (ib_send_lat of that
// size) plus the library's send and receive paths and the copies.
TEST(Osu, EagerLatencyIsTheSendPlusTheLibraryPaths) {
  const FabricConfig f = quiet_fabric();
  const MpiConfig m = mpi_defaults(f);
  for (const int64_t s : {int64_t{0}, int64_t{64}, int64_t{8192}, int64_t{16384}}) {
    SCOPED_TRACE(s);
    const OsuRun r = run_osu(osu("osu_latency", s, s, f));
    ASSERT_EQ(r.result.rows.size(), 1u);
    EXPECT_EQ(r.invariant_error, "");
    const bool bcopy = s <= m.bcopy_threshold.count();
    const Time copies = m.copy_rate.tx_time(Bytes(s)) * (bcopy ? 2 : 1);
    const double expected =
        perftest_us("send_lat", m.header.count() + s, f) + (m.send_overhead + m.recv_overhead + copies).us();
    EXPECT_NEAR(r.result.rows[0].value, expected, 0.002);
  }
}

// Rendezvous (get): RTS one way, the receiver's path, then an RDMA READ of
// the data (ib_read_lat of that size) completes the receive. The send path
// is set longer than the NIC's doorbell latency: a shorter one would let the
// RTS ride the doorbell of the FIN posted just before it on the same QP,
// and the sum below would overstate the time by the overlap.
TEST(Osu, RendezvousGetLatencyIsRtsPlusRead) {
  const FabricConfig f = quiet_fabric();
  ASSERT_LT(f.nic.tx_latency, Time::from_ns(400));
  for (const int64_t s : {int64_t{32768}, int64_t{1} << 20}) {
    SCOPED_TRACE(s);
    OsuOptions o = osu("osu_latency", s, s, f);
    o.params.mpi.send_overhead = Time::from_ns(400);
    const MpiConfig& m = o.params.mpi;
    const OsuRun r = run_osu(o);
    const double expected = perftest_us("send_lat", m.header.count(), f) + perftest_us("read_lat", s, f) +
                            (m.send_overhead + m.recv_overhead).us();
    EXPECT_NEAR(r.result.rows[0].value, expected, 0.002);
  }
}

// Rendezvous (put): RTS, CTS back, then the WRITE and the FIN behind it.
TEST(Osu, RendezvousPutLatencyIsRtsCtsAndTheWrite) {
  const FabricConfig f = quiet_fabric();
  OsuOptions o = osu("osu_latency", 1 << 20, 1 << 20, f);
  o.params.mpi.rendezvous = Rendezvous::kPut;
  const OsuRun r = run_osu(o);
  const MpiConfig& m = o.params.mpi;
  // Two control messages, then the data and FIN: the FIN lands one header's
  // serialization after the WRITE's last byte.
  const double hdr = perftest_us("send_lat", m.header.count(), f);
  const double write = perftest_us("write_lat", 1 << 20, f);
  const double expected = 2 * hdr + write + (m.send_overhead + m.recv_overhead).us();
  EXPECT_NEAR(r.result.rows[0].value, expected, 0.01);
  EXPECT_GT(r.result.rows[0].value, expected - 0.001);
}

// The eager/rendezvous switch shows as a step at the configured threshold:
// doubling the size across it costs a control round trip more than
// doubling it below it.
TEST(Osu, EagerRendezvousStepAtTheThreshold) {
  const FabricConfig f = quiet_fabric();
  auto step = [&](int64_t threshold) {
    OsuOptions o = osu("osu_latency", 2048, 4096, f);
    o.params.mpi.eager_threshold = Bytes(threshold);
    const OsuRun r = run_osu(o);
    return r.result.rows.at(1).value - r.result.rows.at(0).value;
  };
  const double across = step(2048);  // 2 KiB eager, 4 KiB rendezvous
  const double below = step(65536);  // both eager
  const double rts = perftest_us("send_lat", 32, f);
  EXPECT_GT(across - below, 0.5 * rts);
  EXPECT_LT(across - below, 2.5 * rts);
}

// osu_bw at 4 MiB reaches the link's payload rate and cannot pass it.
TEST(Osu, BandwidthReachesThePayloadRate) {
  const FabricConfig f = quiet_fabric();
  const OsuRun r = run_osu(osu("osu_bw", 4 << 20, 4 << 20, f));
  const double mtu = static_cast<double>(f.rc.mtu);
  const double payload_mbs = f.link.rate.gbps() * 1e3 / 8 * mtu / (mtu + f.framing.base_header);
  EXPECT_GT(r.result.rows[0].value, 0.97 * payload_mbs);
  EXPECT_LE(r.result.rows[0].value, payload_mbs);
  // Both directions at once: twice, within the same bound per direction.
  const OsuRun bi = run_osu(osu("osu_bibw", 4 << 20, 4 << 20, f));
  EXPECT_GT(bi.result.rows[0].value, 2 * 0.95 * payload_mbs);
  EXPECT_LE(bi.result.rows[0].value, 2 * payload_mbs);
}

// Small-message rate is paced by the send path: a window of W messages
// costs W send paths, then the 4-byte acknowledgement's round trip; and
// osu_mbw_mr's pairs add up.
TEST(Osu, MessageRateIsTheSendPath) {
  const FabricConfig f = quiet_fabric();
  OsuOptions o = osu("osu_mbw_mr", 1, 1, f);
  o.np = 4;
  const OsuRun r = run_osu(o);
  const MpiConfig& m = o.params.mpi;
  const double w = o.params.window;
  const double send_path = (m.send_overhead + m.copy_rate.tx_time(Bytes(1))).us();
  const double ack =
      2 * (perftest_us("send_lat", m.header.count() + 4, f) + (m.send_overhead + m.recv_overhead).us());
  const double per_pair_hi = 1e6 / send_path;
  const double per_pair_lo = 1e6 * w / (w * send_path + ack);
  EXPECT_LT(r.result.rows[0].msg_rate, 2 * per_pair_hi);
  EXPECT_GT(r.result.rows[0].msg_rate, 2 * per_pair_lo * 0.98);
}

// Bytes each algorithm moves, counted by the engine: one iteration, no
// warm-up (the barrier between iterations moves no data).
int64_t bytes_moved(OsuBench bench, int p, int64_t n, const MpiConfig& c) {
  Simulation sim(1);
  const FabricConfig cfg = quiet_fabric();
  Fabric f(sim, make_star(p, cfg.link), cfg);
  std::vector<int> hosts(static_cast<size_t>(p));
  std::iota(hosts.begin(), hosts.end(), 0);
  MpiEngine engine(sim, f.verbs(), hosts, c);
  MpiPhase ph;
  ph.size = n;
  ph.iterations = 1;
  for (int r = 0; r < p; ++r) {
    MpiBody b;
    if (bench == OsuBench::kAllreduce) append_allreduce(b, r, p, n, c);
    if (bench == OsuBench::kAlltoall) append_alltoall(b, r, p, n, c);
    if (bench == OsuBench::kBarrier) append_barrier(b, r, p);
    ph.body.push_back(std::move(b));
  }
  engine.start({ph});
  sim.run(Time::from_ms(100));
  EXPECT_TRUE(engine.done());
  EXPECT_EQ(f.check_invariants(), "");
  return engine.counters().payload_bytes;
}

TEST(MpiCollectives, AlgorithmsMoveTheirTextbookBytes) {
  const MpiConfig c = mpi_defaults(find_profile("ib-ndr").config);
  const int64_t n = 4096;
  // Recursive doubling: log2 p exchanges of the whole vector per rank.
  EXPECT_EQ(bytes_moved(OsuBench::kAllreduce, 8, 1024, c), 8 * 3 * 1024);
  // Non-power-of-two (6 = 4 + 2): the two folded ranks send in and get the
  // result back, the four others exchange twice.
  EXPECT_EQ(bytes_moved(OsuBench::kAllreduce, 6, 1024, c), 2 * 1024 + 4 * 2 * 1024 + 2 * 1024);
  // Rabenseifner: reduce-scatter and allgather each move n (p-1)/p per rank.
  EXPECT_EQ(bytes_moved(OsuBench::kAllreduce, 8, 8 * n, c), 8 * 2 * 7 * n);
  // Alltoall, pairwise and all-at-once: every rank sends n to every other.
  EXPECT_EQ(bytes_moved(OsuBench::kAlltoall, 8, 65536, c), 8 * 7 * 65536);
  EXPECT_EQ(bytes_moved(OsuBench::kAlltoall, 5, 1024, c), 5 * 4 * 1024);
  // Bruck, 8 ranks: 3 rounds of the 4 blocks whose index has that bit set.
  EXPECT_EQ(bytes_moved(OsuBench::kAlltoall, 8, 64, c), 8 * 3 * 4 * 64);
  EXPECT_EQ(bytes_moved(OsuBench::kBarrier, 5, 0, c), 0);
}

// Dissemination barrier on an idle star: ceil(log2 p) rounds, each a header
// one way plus the two library paths.
TEST(MpiCollectives, BarrierIsItsRoundsOfOneWayLatency) {
  const FabricConfig f = quiet_fabric();
  for (const int p : {4, 5}) {
    SCOPED_TRACE(p);
    OsuOptions o = osu("osu_barrier", -1, -1, f);
    o.np = p;
    const OsuRun r = run_osu(o);
    const MpiConfig& m = o.params.mpi;
    const double round =
        perftest_us("send_lat", m.header.count(), f) + (m.send_overhead + m.recv_overhead).us();
    const int rounds = p == 4 ? 2 : 3;
    EXPECT_NEAR(r.result.rows.at(0).value, rounds * round, 0.002);
  }
}

std::string read_data(const std::string& name) {
  std::ifstream in(std::string(RDMASIM_SOURCE_DIR) + "/tests/data/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The real tool's output (tests/data/osu-5.6.3-samples.md) through the parser.
TEST(OsuFormat, ParsesTheRealToolsOutput) {
  const OsuTable lat = parse_osu_table(read_data("osu-5.6.3-latency.txt"));
  EXPECT_EQ(lat.title, "OSU MPI Latency Test v5.6.3");
  EXPECT_EQ(lat.columns, (std::vector<std::string>{"Size", "Latency (us)"}));
  ASSERT_EQ(lat.rows.size(), 24u);
  EXPECT_EQ(lat.rows[0], (std::vector<double>{0, 0.20}));
  EXPECT_EQ(lat.rows[23], (std::vector<double>{4194304, 525.00}));
  const OsuTable bw = parse_osu_table(read_data("osu-5.6.3-bw.txt"));
  EXPECT_EQ(bw.columns, (std::vector<std::string>{"Size", "Bandwidth (MB/s)"}));
  EXPECT_EQ(bw.rows.size(), 23u);
  const OsuTable mr = parse_osu_table(read_data("osu-5.6.3-mbw_mr.txt"));
  EXPECT_EQ(mr.columns, (std::vector<std::string>{"Size", "MB/s", "Messages/s"}));
  EXPECT_EQ(mr.rows[0], (std::vector<double>{1, 8.35, 8346864.13}));
  const OsuTable ar = parse_osu_table(read_data("osu-5.6.3-allreduce.txt"));
  EXPECT_EQ(ar.title, "OSU MPI Allreduce Latency Test v5.6.3");
  EXPECT_EQ(ar.columns, (std::vector<std::string>{"Size", "Avg Latency(us)"}));
  EXPECT_EQ(ar.rows.size(), 19u);
  const OsuTable bar = parse_osu_table(read_data("osu-5.6.3-barrier.txt"));
  EXPECT_EQ(bar.columns, (std::vector<std::string>{"Avg Latency(us)"}));
  EXPECT_EQ(bar.rows, (std::vector<std::vector<double>>{{1.57}}));
  EXPECT_THROW((void)parse_osu_table("# OSU MPI Latency Test\n# Size  Latency (us)\n1 x\n"),
               std::invalid_argument);
  EXPECT_THROW((void)parse_osu_table("1 2\n"), std::invalid_argument);
}

// Our tables have the real tool's layout: same title, header and row widths.
TEST(OsuFormat, PrintsTheRealToolsLayout) {
  const FabricConfig f = quiet_fabric();
  auto layout_of = [](const std::string& text) {
    // Each line's length and where its fields start: the columns line up.
    std::vector<size_t> lengths;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
      if (!line.starts_with("# OSU")) lengths.push_back(line.size());
    return lengths;
  };
  const std::string ours = format_osu(run_osu(osu("osu_latency", 0, 4, f)).result, false);
  const std::string real = read_data("osu-5.6.3-latency.txt");
  const std::vector<size_t> a = layout_of(ours), b = layout_of(real);
  ASSERT_EQ(a.size(), 5u);  // header + 0, 1, 2, 4
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << i;
  const OsuTable t = parse_osu_table(ours);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"Size", "Latency (us)"}));
  OsuOptions bar = osu("osu_barrier", -1, -1, f);
  bar.np = 4;
  const std::string b_ours = format_osu(run_osu(bar).result, false);
  const std::string b_real = read_data("osu-5.6.3-barrier.txt");
  EXPECT_EQ(layout_of(b_ours), layout_of(b_real));
  EXPECT_TRUE(b_ours.starts_with("\n# OSU MPI Barrier Latency Test"));
}

std::string osu_error(const std::string& item) { return testing::workload_error_key(item); }

TEST(OsuWorkload, RefusesWhatHasNoEffectOrCannotRun) {
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_latency, window: 8}"), "workload[0].window");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_latency, ranks: 4}"), "workload[0].ranks");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_barrier, max_size: 1KiB}"), "workload[0].max_size");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_bw, min_size: 2KiB, max_size: 1KiB}"),
            "workload[0].max_size");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_mbw_mr, ranks: 3}"), "workload[0].ranks");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_allreduce, ranks: 8}"), "workload[0].ranks");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_allreduce, hosts: [0, 1, 1]}"), "workload[0].hosts");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_latency, hosts: [0, 9]}"), "workload[0].hosts");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_latency, iterations: 0}"), "workload[0].iterations");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_latency, mpi: {copy_rate: 0Gbps}}"),
            "workload[0].mpi.copy_rate");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_latency, mpi: {eager: 1KiB}}"), "workload[0].mpi.eager");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_alltoall, mpi: {alltoall_medium: 16B}}"),
            "workload[0].mpi");
  EXPECT_EQ(osu_error("{type: osu, benchmark: osu_ping}"), "workload[0].benchmark");
}

// The YAML workload and `rdmasim osu` give the same table.
TEST(OsuWorkload, YamlGivesTheCommandLinesNumbers) {
  Experiment e(load_scenario_text(
      "name: t\nduration: 1s\ntopology: {type: star, hosts: 2}\nfabric: {profile: ib-ndr}\nworkload:\n"
      "  - {type: osu, benchmark: osu_latency, min_size: 1B, max_size: 64KiB, iterations: 20, warmup: 2}\n",
      "t.yaml"));
  e.run();
  ASSERT_TRUE(e.workloads().at(0)->finished());
  const OsuResult yaml = osu_workload_result(*e.workloads()[0]);
  OsuOptions o = osu("osu_latency", 1, 65536, find_profile("ib-ndr").config);
  const OsuRun cli = run_osu(o);
  EXPECT_EQ(format_osu(yaml, false), format_osu(cli.result, false));
  EXPECT_GT(yaml.counters.eager_messages, 0u);
  EXPECT_GT(yaml.counters.rendezvous_messages, 0u);
}

}  // namespace
}  // namespace rdmasim
