// End-to-end runs of scenario workloads: every flow is accounted for, and the
// simple cases match their analytical completion times.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "config/scenario.h"
#include "config/shipped_path.h"
#include "report/results.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

TEST(Experiment, IdealIncastFinishesAtReceiverLineRate) {
  // 4 x 1 MB into one 100G port on an unlimited buffer: the last byte lands
  // when 4 MB of wire traffic has crossed the receiver's link.
  Experiment e(load_scenario_text(R"(
duration: 10ms
topology: {type: star, hosts: 5, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: ideal}
workload: [{type: incast, senders: 4, size: 1000000B, placement: sequential}]
)",
                                  "t.yaml"));
  e.run();
  ASSERT_EQ(e.completed(), 4u);
  EXPECT_EQ(e.invariant_error(), "");
  Time last;
  for (const auto& f : e.flows()) last = std::max(last, f.end);
  // 1000 packets per flow of 1082 wire bytes (+16 B RETH on the first).
  const double bytes = 4.0 * (1000 * 1082 + 16);
  const double drain_s = bytes * 8 / 100e9;
  EXPECT_GT(last.sec(), drain_s);
  EXPECT_LT(last.sec(), drain_s + 5e-6);  // plus a few hops of latency
  EXPECT_EQ(results_json(e)["network"]["switch_buffer_drops"], 0);
}

TEST(Experiment, CdfWorkloadOffersTheRequestedLoad) {
  Experiment e(load_scenario_text(R"(
duration: 100ms
topology: {type: star, hosts: 8, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: ideal}
workload: [{type: cdf, cdf: data/cdf/websearch.txt, load: 40%, window: 20ms}]
)",
                                  "t.yaml"));
  double bytes = 0;
  for (const auto& f : e.flows()) bytes += static_cast<double>(f.spec.size_bytes);
  // Few, heavy-tailed flows in 20 ms: the generator's precision is tested on
  // its own (test_poisson_flows); here the load only has to be the right one.
  const double offered = bytes * 8 / (8 * 100e9 * 0.02);
  EXPECT_NEAR(offered, 0.40, 0.15);
  e.run();
  EXPECT_EQ(e.completed(), e.flows().size());
  EXPECT_EQ(e.invariant_error(), "");
  // Slowdown is never below 1: nothing beats the flow alone on its path.
  for (const auto& f : e.flows()) EXPECT_GE(f.fct().ps(), f.ideal.ps());
}

TEST(Experiment, FlowsFileRunsTheSharedBenchInput) {
  Experiment e(load_scenario_text(R"(
duration: 1ms
topology: {type: file, file: data/bench/fattree_k8_128hosts_topology.txt}
fabric: {profile: ideal}
workload: [{type: flows-file, file: data/bench/websearch_128hosts_load30_5ms_flows.txt, time_offset: 2s}]
)",
                                  "t.yaml"));
  EXPECT_EQ(e.flows().size(), 1261u);
  EXPECT_EQ(e.flows()[0].spec.start, Time::from_ps(962'000));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  EXPECT_GT(e.completed(), 10u);
  // Paths in a k=8 fat-tree are 2, 4 or 6 links.
  for (const auto& f : e.flows())
    if (f.started) {
      EXPECT_TRUE(f.links == 2 || f.links == 4 || f.links == 6) << f.links;
    }
}

TEST(Experiment, UnfinishedFlowsHaveEmptyFctInCsv) {
  Experiment e(load_scenario_text(R"(
duration: 3us
topology: {type: star, hosts: 3}
workload: [{type: incast, senders: 2, size: 1MiB}]
)",
                                  "t.yaml"));
  e.run();
  EXPECT_EQ(e.completed(), 0u);
  const std::string csv = flows_csv(e);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,op,workload,path_links,"
            "retransmitted_packets");
  EXPECT_NE(csv.find(",1048576,0.000,,"), std::string::npos) << csv;
  // Conservation holds mid-flight too: packets are still in the network.
  EXPECT_EQ(e.invariant_error(), "");
  EXPECT_GT(results_json(e)["network"]["packets"]["data"]["in_flight"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

TEST(Experiment, IrnWithAutoBdpWindowMatchesLosslessOnAnIncast) {
  const char* yaml = R"(
duration: 50ms
topology: {type: star, hosts: 17, link: {rate: 100Gbps, delay: 1us}, switch: {buffer: 1MiB}}
fabric: {recovery: RECOVERY}
workload: [{type: incast, senders: 16, size: 1MiB}]
)";
  auto run = [&](const std::string& recovery, const std::string& extra) {
    std::string y = yaml;
    y.replace(y.find("RECOVERY"), 8, recovery + extra);
    Experiment e(load_scenario_text(y, "t.yaml"));
    e.run();
    EXPECT_EQ(e.invariant_error(), "");
    Time last;
    for (const auto& f : e.flows()) last = std::max(last, f.end);
    return std::make_pair(last, results_json(e)["network"]["switch_buffer_drops"].get<uint64_t>());
  };
  const auto irn = run("irn", ", irn_window: auto");
  const auto pfc = run("go-back-n, pfc: {enabled: true}", "");
  const auto gbn = run("go-back-n", "");
  EXPECT_EQ(irn.second, 0u);  // 16 x one BDP fits the buffer
  EXPECT_EQ(irn.first, pfc.first);
  EXPECT_GT(gbn.second, 0u);
  EXPECT_GT(gbn.first, irn.first);
}

TEST(Experiment, IrnWindowMustBeAutoOrACount) {
  try {
    (void)load_scenario_text(R"(
topology: {type: star, hosts: 3}
fabric: {recovery: irn, irn_window: lots}
workload: [{type: incast, senders: 2, size: 1MiB}]
)",
                             "t.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:3:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'fabric.irn_window': expected 'auto'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

TEST(Experiment, StripingAFlowOverSeveralQpsSpreadsItOverEcmpPaths) {
  // A permutation on a k=8 fat-tree: with one QP per flow, ECMP hashing puts
  // several flows on one core link while others idle; 8 QPs per flow (as
  // NCCL uses) spread the load and bring the slowest flow in sooner.
  auto slowest = [](int qps) {
    Experiment e(load_scenario_text(R"(
duration: 50ms
topology: {type: fat-tree, k: 8, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: ideal}
workload: [{type: permutation, size: 1MiB, qps: QPS}]
)",
                                    "t.yaml", {"workload[0].qps=" + std::to_string(qps)}));
    e.run();
    EXPECT_EQ(e.completed(), 128u);
    EXPECT_EQ(e.invariant_error(), "");
    Time worst;
    for (const auto& f : e.flows()) worst = std::max(worst, f.fct());
    return std::make_pair(worst, e.flows()[0].ideal);
  };
  const auto one = slowest(1);
  const auto eight = slowest(8);
  EXPECT_LT(eight.first.sec(), 0.8 * one.first.sec());
  // Neither beats the host link: a flow alone takes its ideal time.
  EXPECT_GE(eight.first, eight.second);
  std::printf("permutation k=8, slowest flow: 1 QP %.0f us, 8 QPs %.0f us (alone: %.0f us)\n", one.first.us(),
              eight.first.us(), one.second.us());
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

TEST(Experiment, TimeseriesRecordsQueueDepthAndPauses) {
  Experiment e(load_scenario_text(R"(
duration: 10ms
topology: {type: star, hosts: 9, link: {rate: 100Gbps, delay: 1us}, switch: {buffer: 2MiB}}
fabric: {pfc: {enabled: true}}
workload: [{type: incast, senders: 8, size: 1MiB, placement: sequential}]
output: {timeseries: {interval: 10us}}
)",
                                  "t.yaml"));
  e.run();
  ASSERT_NE(e.timeseries(), nullptr);
  const std::string csv = e.timeseries()->csv();
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time_ns,node,port,tc,queue_bytes,paused");
  // The switch port toward host 0 (sw0 port 0) holds a queue of class 3 ...
  EXPECT_NE(csv.find(",sw0,0,3,"), std::string::npos);
  // ... and senders' NIC ports are paused at some sample.
  size_t paused_rows = 0;
  for (size_t pos = csv.find(",1\n"); pos != std::string::npos; pos = csv.find(",1\n", pos + 1))
    ++paused_rows;
  EXPECT_GT(paused_rows, 0u);
  // Sampled every 10 us until the incast completes (~740 us).
  EXPECT_GT(e.timeseries()->samples(), 60u);
  EXPECT_LT(e.timeseries()->samples(), 100u);
}

// A link error rate from an HPCC topology file (column 5) corrupts that share
// of the frames crossing the link: the count is binomial around p x frames,
// go-back-N still completes every flow, and every loss is accounted for.
// Hosts 0 and 1 through switch 2 in an HPCC topology file under `dir`; only
// the first link is noisy (p = 0.01).
std::filesystem::path noisy_link_topology(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  auto topo = dir / "topo.txt";
  std::ofstream(topo) << "3 1 2\n2\n0 2 100Gbps 1000ns 0.01\n1 2 100Gbps 1000ns 0\n";
  return topo;
}

TEST(Experiment, LinkErrorRateCorruptsThatShareOfFrames) {
  const auto dir = std::filesystem::temp_directory_path() / "rdmasim-test-bit-errors";
  const auto topo = noisy_link_topology(dir);
  Experiment e(load_scenario_text("duration: 50ms\ntopology: {type: file, file: " + topo.string() +
                                      "}\nfabric: {profile: ethernet-lossy}\n"
                                      "workload: [{type: flow, src: 0, dst: 1, size: 4MB}]\n",
                                  "t.yaml"));
  e.run();
  ASSERT_EQ(e.completed(), 1u);
  EXPECT_EQ(e.invariant_error(), "");
  uint64_t frames = 0, corrupted = 0, clean_link_corrupted = 0;
  const Network& net = e.fabric().net();
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i) {
      const Port& p = net.node(n).port(i);
      // Port order follows link order: the noisy link is port 0 of host 0 and of the switch.
      const bool noisy = (n == 0 && i == 0) || (n == 2 && i == 0);
      if (noisy) {
        frames += p.counters().tx_packets;
        corrupted += p.counters().corrupt_drop_packets;
      } else {
        clean_link_corrupted += p.counters().corrupt_drop_packets;
      }
    }
  EXPECT_EQ(clean_link_corrupted, 0u);
  const double mean = 0.01 * static_cast<double>(frames);
  const double sigma = std::sqrt(mean * 0.99);
  EXPECT_GT(frames, 4000u);
  EXPECT_NEAR(static_cast<double>(corrupted), mean, 4 * sigma) << frames << " frames";
  const auto j = results_json(e);
  EXPECT_EQ(j["network"]["corruption_drops"].get<uint64_t>(), corrupted);
  EXPECT_GT(j["network"]["retransmitted_packets"].get<uint64_t>(), 0u);
  std::filesystem::remove_all(dir);
}

TEST(Experiment, LinkErrorRateIsRefusedOnInfiniBand) {
  const auto dir = std::filesystem::temp_directory_path() / "rdmasim-test-bit-errors-ib";
  const auto topo = noisy_link_topology(dir);
  try {
    (void)load_scenario_text(
        "topology: {type: file, file: " + topo.string() +
            "}\nfabric: {profile: ib-ndr}\nworkload: [{type: flow, src: 0, dst: 1, size: 4MB}]\n",
        "t.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& err) {
    EXPECT_EQ(err.key(), "topology.file");
    EXPECT_NE(err.message().find("not modelled on InfiniBand"), std::string::npos) << err.message();
  }
  std::filesystem::remove_all(dir);
}

// A stop asked for while the run is being built ends the setup: nothing runs.
TEST(Experiment, SetupHonoursAnInterrupt) {
  const Scenario s = load_scenario_text(
      "topology: {type: star, hosts: 4}\nworkload: [{type: permutation, size: 4KB}]\n", "t.yaml");
  std::atomic<bool> stop{true};
  EXPECT_THROW(Experiment(s, 0, &stop), SetupInterrupted);
  stop = false;
  Experiment e(s, 0, &stop);
  e.run();
  EXPECT_EQ(e.completed(), 4u);
}

// A collective's run ends when its work does: after its last transfer lands
// and the ACKs it left on the wires arrive, not at the runner's next poll of
// the workload (up to 20 us later), whose idle time diluted every port's
// utilisation. DCQCN's timers keep ticking after the data: they are not work.
TEST(Experiment, ACollectiveRunEndsWhenItsWorkDoes) {
  Experiment e(load_scenario_file(find_shipped("scenarios/nccl-allreduce-ring-rocev2-dcqcn-mlx.yaml")));
  e.run();
  ASSERT_EQ(e.invariant_error(), "");
  const auto j = results_json(e);
  const auto& w = j["workload_results"][0];
  ASSERT_TRUE(w["finished"].get<bool>());
  const double work_end_us = w["start_ns"].get<double>() / 1e3 + w["time_us"].get<double>();
  const double end_us = e.sim().now().ps() / 1e6;
  EXPECT_GE(end_us, work_end_us);
  // The last ACK's way back: two hops of 150 ns and a switch, not a slice.
  EXPECT_LT(end_us, work_end_us + 2.0) << "work " << work_end_us << " us";
  // Nothing of the work is left in flight: every port's counters balance.
  for (const auto& [type, counts] : j["network"]["packets"].items())
    EXPECT_EQ(counts["in_flight"].get<uint64_t>(), 0u) << type;
}

}  // namespace
}  // namespace rdmasim
