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
