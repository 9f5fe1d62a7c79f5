// What a TCP operator reads from an iWARP run: results.json "tcp", tcp.csv
// and tcp_timeseries.csv agree with each other and with the network's own
// packet ledger, so no counter is invented or lost between the layers.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"
#include "support/temp_file.h"

namespace rdmasim {
namespace {

std::vector<std::map<std::string, std::string>> parse_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> head;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::stringstream ss(l);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    return f;
  };
  std::getline(in, line);
  head = split(line);
  while (std::getline(in, line)) {
    const auto f = split(line);
    EXPECT_EQ(f.size(), head.size()) << line;
    std::map<std::string, std::string> r;
    for (size_t i = 0; i < head.size() && i < f.size(); ++i) r[head[i]] = f[i];
    rows.push_back(r);
  }
  return rows;
}

uint64_t u(const std::map<std::string, std::string>& r, const char* k) { return std::stoull(r.at(k)); }

TEST(IwarpOutputs, TcpCountersAgreeAcrossResultsCsvAndThePacketLedger) {
  Experiment e(load_scenario_text(R"(
seed: 4
duration: 1s
topology:
  type: star
  hosts: 9
  link: {rate: 100Gbps, delay: 1us}
  switch: {buffer: 150KiB}
fabric: {profile: iwarp-cubic, tcp: {sack: true, min_rto: 200us}}
workload: [{type: incast, senders: 8, receiver: 0, size: 2MiB, placement: sequential}]
output: {timeseries: {interval: 5us}}
)",
                                  "t.yaml"));
  e.run();
  ASSERT_EQ(e.completed(), 8u);
  ASSERT_EQ(e.invariant_error(), "");
  const auto j = results_json(e);
  const auto& tcp = j["tcp"];
  const auto& data = j["network"]["packets"]["data"];
  // Every data segment the transport counts is one the network created.
  EXPECT_EQ(tcp["segments_sent"].get<uint64_t>(), data["created"].get<uint64_t>());
  EXPECT_EQ(tcp["retransmitted_segments"].get<uint64_t>(),
            j["network"]["retransmitted_packets"].get<uint64_t>());
  EXPECT_GT(data["dropped"].get<uint64_t>(), 0u) << "the buffer is shallow enough to lose segments";
  EXPECT_GE(tcp["retransmitted_segments"].get<uint64_t>(), data["dropped"].get<uint64_t>());
  EXPECT_GT(tcp["sack_recoveries"].get<uint64_t>(), 0u);
  EXPECT_EQ(tcp["reno_recoveries"].get<uint64_t>(), 0u);

  const Transport::Table table = e.fabric().transport().connection_table();
  EXPECT_EQ(table.file, "tcp.csv");
  const auto rows = parse_csv(table.csv);
  ASSERT_EQ(rows.size(), 8u) << "one row per direction that sent data: Writes only go one way";
  uint64_t sent = 0, resent = 0, timeouts = 0, sack = 0;
  for (const auto& r : rows) {
    EXPECT_EQ(r.at("direction"), "requester");
    EXPECT_EQ(r.at("dst"), "0");
    // 2 MiB of Writes in 1440-byte segments, sent once each plus resends.
    EXPECT_EQ(u(r, "segments_sent") - u(r, "retransmitted_segments"), (2u << 20) / 1440 + 1);
    EXPECT_GT(std::stod(r.at("min_rtt_us")), 0.0);
    EXPECT_LE(std::stod(r.at("min_rtt_us")), std::stod(r.at("max_rtt_us")));
    sent += u(r, "segments_sent");
    resent += u(r, "retransmitted_segments");
    timeouts += u(r, "timeouts");
    sack += u(r, "sack_recoveries");
  }
  EXPECT_EQ(sent, tcp["segments_sent"].get<uint64_t>());
  EXPECT_EQ(resent, tcp["retransmitted_segments"].get<uint64_t>());
  EXPECT_EQ(timeouts, tcp["timeouts"].get<uint64_t>());
  EXPECT_EQ(sack, tcp["sack_recoveries"].get<uint64_t>());

  ASSERT_NE(e.transport_series(), nullptr);
  EXPECT_EQ(e.transport_series()->table().file, "tcp_timeseries.csv");
  const auto series = parse_csv(e.transport_series()->table().csv);
  ASSERT_FALSE(series.empty());
  bool recovering = false;
  uint64_t last_resent = 0;
  for (const auto& r : series) {
    recovering = recovering || r.at("in_recovery") == "1";
    last_resent = std::max(last_resent, u(r, "retransmitted_segments"));
    EXPECT_GT(u(r, "cwnd_bytes"), 0u);
  }
  EXPECT_TRUE(recovering) << "a 5 us poll sees connections in fast recovery";
  EXPECT_LE(last_resent, resent);
}

// tcp.csv is an iWARP output: a RoCE run writes none and results.json has no "tcp".
TEST(IwarpOutputs, OtherTransportsWriteNoTcpOutputs) {
  Experiment e(load_scenario_text(R"(
duration: 10ms
topology: {type: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn}
workload: [{type: incast, senders: 2, size: 100KiB}]
output: {timeseries: {interval: 5us}}
)",
                                  "t.yaml"));
  e.run();
  EXPECT_FALSE(results_json(e).contains("tcp"));
  EXPECT_TRUE(e.fabric().transport().connection_table().file.empty());
  EXPECT_EQ(e.transport_series(), nullptr);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Every workload type runs on both iWARP profiles, finishes, keeps the
// invariants (TCP's conservation per connection among them) and moved data
// over TCP; Reads included where the type offers them.
struct WorkloadCase {
  const char* name;
  const char* topology;
  const char* workload;
};

class IwarpWorkloads : public ::testing::TestWithParam<std::tuple<const char*, WorkloadCase>> {};

TEST_P(IwarpWorkloads, RunToCompletion) {
  const auto& [profile, w] = GetParam();
  // HPCC's flow-file format: a count, then src dst priority dport size start_s.
  const testing::TempFile flows(
      "3\n1 0 3 100 100000 0.000001\n2 0 3 100 200000 0.000002\n3 1 3 100 5000 0.00001\n");
  std::string workload = w.workload;
  if (const auto at = workload.find("{FLOWS}"); at != std::string::npos)
    workload.replace(at, 7, flows.path());
  const std::string yaml = std::string("duration: 1s\ntopology: ") + w.topology +
                           "\nfabric: {profile: " + profile + "}\nworkload: [" + workload + "]\n";
  Experiment e(load_scenario_text(yaml, std::string(RDMASIM_SOURCE_DIR) + "/scenarios/t.yaml"));
  e.run();
  EXPECT_EQ(e.invariant_error(), "");
  const auto j = results_json(e);
  EXPECT_EQ(j["run"]["all_flows_completed"], true) << yaml;
  EXPECT_GT(j["tcp"]["segments_sent"].get<uint64_t>(), 0u);
  if (j.contains("workload_results"))
    for (const auto& r : j["workload_results"])
      if (r.contains("finished")) {
        EXPECT_EQ(r["finished"], true) << r.dump();
      }
}

INSTANTIATE_TEST_SUITE_P(
    Types, IwarpWorkloads,
    ::testing::Combine(
        ::testing::Values("iwarp-cubic", "iwarp-dctcp"),
        ::testing::Values(
            WorkloadCase{"perftest", "{type: chain, switches: 1}",
                         "{type: perftest, test: read_lat, iters: 100}"},
            WorkloadCase{"incast", "{type: star, hosts: 9, link: {rate: 100Gbps, delay: 1us}}",
                         "{type: incast, senders: 8, size: 1MiB, op: read}"},
            WorkloadCase{"permutation", "{type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}",
                         "{type: permutation, size: 1MiB}"},
            WorkloadCase{"cdf", "{type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}",
                         "{type: cdf, cdf: ../data/cdf/websearch.txt, load: 30%, window: 1ms}"},
            WorkloadCase{"flows-file", "{type: star, hosts: 4, link: {rate: 100Gbps, delay: 1us}}",
                         "{type: flows-file, file: {FLOWS}}"},
            WorkloadCase{"collective",
                         "{type: leaf-spine, leaves: 2, hosts_per_leaf: 4, spines: 2, link: {rate: "
                         "100Gbps, delay: 1us}}",
                         "{type: collective, op: all_reduce, algo: ring, size: 1MiB}"},
            WorkloadCase{"training",
                         "{type: servers, servers: 2, gpus_per_server: 8, spines: 2, link: {rate: "
                         "400Gbps, delay: 1us}}",
                         "{type: training, model: gpt3-xl, tp: 2, pp: 2, dp: 4}"})),
    [](const auto& info) {
      std::string n = std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param).name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Under random loss of 1 in 100 frames, SACK recovery (RFC 6675) repairs
// what NewReno's one-hole-per-round-trip recovery leaves to the timer: the
// same flow, same losses, far fewer retransmission timeouts, and no more
// segments resent than were lost plus the timeouts' go-back.
TEST(IwarpSack, RandomLossNeedsFarFewerTimeoutsThanNewReno) {
  auto run = [](bool sack) {
    Experiment e(load_scenario_text(std::string(R"(
duration: 10s
topology: {type: chain, switches: 1, link: {rate: 100Gbps, delay: 50us}}
fabric: {profile: iwarp-cubic, cc: newreno, tcp: {min_rto: 1ms, sack: )") +
                                        (sack ? "true" : "false") + R"(}}
links: [{link: "sw0:1", loss: 1e-2}]
workload: [{type: flow, src: 0, dst: 1, size: 200MB}]
)",
                                    "t.yaml"));
    e.run();
    EXPECT_EQ(e.completed(), 1u);
    EXPECT_EQ(e.invariant_error(), "");
    return results_json(e);
  };
  const auto reno = run(false), sack = run(true);
  EXPECT_GT(sack["tcp"]["sack_recoveries"].get<uint64_t>(), 1000u);
  EXPECT_EQ(sack["tcp"]["reno_recoveries"].get<uint64_t>(), 0u);
  EXPECT_LT(3 * sack["tcp"]["timeouts"].get<uint64_t>(), reno["tcp"]["timeouts"].get<uint64_t>());
  EXPECT_LT(sack["tcp"]["retransmitted_segments"].get<uint64_t>(),
            reno["tcp"]["retransmitted_segments"].get<uint64_t>());
}

}  // namespace
}  // namespace rdmasim
