#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "config/error.h"
#include "support/temp_file.h"
#include "topo/hpcc_format.h"

namespace rdmasim {
namespace {

using testing::TempFile;

struct BadFile {
  const char* name;
  const char* contents;
  int line;
  const char* key;
};

template <typename Load>
void expect_errors(const BadFile* begin, const BadFile* end, Load load) {
  for (const BadFile* c = begin; c != end; ++c) {
    SCOPED_TRACE(c->name);
    TempFile f(c->contents);
    try {
      load(f.path());
      ADD_FAILURE() << "expected InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), f.path());
      EXPECT_EQ(e.line(), c->line) << e.what();
      EXPECT_EQ(e.key(), c->key) << e.what();
      EXPECT_FALSE(e.message().empty());
    }
  }
}

TEST(HpccTopology, LoadsFattree320Reference) {
  const auto t = load_edge_list_topology("data/reference/hpcc_fattree320_topology.txt");
  EXPECT_EQ(t.file, "data/reference/hpcc_fattree320_topology.txt");
  EXPECT_EQ(t.num_nodes, 376);
  ASSERT_EQ(t.switch_ids.size(), 56u);
  EXPECT_EQ(t.switch_ids.front(), 320);
  EXPECT_EQ(t.switch_ids.back(), 375);
  ASSERT_EQ(t.links.size(), 480u);
  std::map<int64_t, int> by_rate;
  for (const auto& l : t.links) {
    ++by_rate[l.rate.bps()];
    EXPECT_EQ(l.delay, Time::from_ns(1000));
    EXPECT_EQ(l.error_rate, 0.0);
  }
  EXPECT_EQ(by_rate.size(), 2u);
  EXPECT_EQ(by_rate[Rate::from_gbps(100).bps()], 320);
  EXPECT_EQ(by_rate[Rate::from_gbps(400).bps()], 160);
  EXPECT_EQ(t.links.front().a, 0);
  EXPECT_EQ(t.links.front().b, 320);
  EXPECT_EQ(t.links.front().line, 3);
  EXPECT_EQ(t.links.back().a, 359);
  EXPECT_EQ(t.links.back().b, 375);
  EXPECT_EQ(t.links.back().line, 482);
}

TEST(HpccTopology, LoadsBenchFattreeK8) {
  const auto t = load_edge_list_topology("data/bench/fattree_k8_128hosts_topology.txt");
  EXPECT_EQ(t.num_nodes, 208);
  ASSERT_EQ(t.switch_ids.size(), 80u);
  const std::set<int> sw(t.switch_ids.begin(), t.switch_ids.end());
  EXPECT_EQ(*sw.begin(), 128);
  EXPECT_EQ(*sw.rbegin(), 207);
  ASSERT_EQ(t.links.size(), 384u);
  for (const auto& l : t.links) {
    EXPECT_EQ(l.rate, Rate::from_gbps(100));
    EXPECT_EQ(l.delay, Time::from_us(1));
  }
}

TEST(HpccTopology, ParsesUnitsExactly) {
  TempFile f(
      "4 0 7\n"
      "0 1 10Mbps 1us 0\n"
      "1 2 1Kbps 2ms 0.5\n"
      "2 3 2.5Gbps 1.5ns 1\n"
      "3 0 800bps 500ps 0.000001\n"
      "0 2 1Tbps 0ns 0\n"
      "1 3 3kbps 1s 0\n"
      "0 3 100Gbps 0.000001ms 0\n");
  const auto t = load_edge_list_topology(f.path());
  EXPECT_TRUE(t.switch_ids.empty());
  ASSERT_EQ(t.links.size(), 7u);
  EXPECT_EQ(t.links[0].rate.bps(), 10'000'000);
  EXPECT_EQ(t.links[0].delay.ps(), 1'000'000);
  EXPECT_EQ(t.links[1].rate.bps(), 1'000);
  EXPECT_EQ(t.links[1].delay.ps(), 2'000'000'000);
  EXPECT_DOUBLE_EQ(t.links[1].error_rate, 0.5);
  EXPECT_EQ(t.links[2].rate.bps(), 2'500'000'000);
  EXPECT_EQ(t.links[2].delay.ps(), 1'500);
  EXPECT_EQ(t.links[3].rate.bps(), 800);
  EXPECT_EQ(t.links[3].delay.ps(), 500);
  EXPECT_EQ(t.links[4].rate.bps(), 1'000'000'000'000);
  EXPECT_EQ(t.links[4].delay.ps(), 0);
  EXPECT_EQ(t.links[5].rate.bps(), 3'000);
  EXPECT_EQ(t.links[5].delay.ps(), 1'000'000'000'000);
  EXPECT_EQ(t.links[6].delay.ps(), 1'000);
  EXPECT_EQ(t.links[6].line, 8);
}

TEST(HpccTopology, NoSwitchesWithEmptySecondLine) {
  TempFile f("2 0 1\n\n0 1 100Gbps 1000ns 0\n\n");
  const auto t = load_edge_list_topology(f.path());
  EXPECT_TRUE(t.switch_ids.empty());
  ASSERT_EQ(t.links.size(), 1u);
  EXPECT_EQ(t.links[0].line, 3);
}

TEST(HpccTopology, MalformedFilesReportLine) {
  const BadFile cases[] = {
      {"empty", "", 1, ""},
      {"header two columns", "3 1\n2\n", 1, ""},
      {"header garbage", "three 1 2\n", 1, "nodes"},
      {"zero nodes", "0 0 0\n", 1, "nodes"},
      {"more switches than nodes", "2 3 0\n0 1 2\n", 1, "switches"},
      {"negative links", "2 0 -1\n", 1, "links"},
      {"switch line missing", "3 1 0\n", 1, "switches"},
      {"too few switch ids", "4 2 0\n3\n", 2, "switches"},
      {"too many switch ids", "4 1 0\n2 3\n", 2, "switches"},
      {"switch id out of range", "4 1 0\n4\n", 2, "switches"},
      {"switch id garbage", "4 1 0\nx\n", 2, "switches"},
      {"duplicate switch id", "4 2 0\n3 3\n", 2, "switches"},
      {"link lines missing", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n", 1, "links"},
      {"extra link line", "3 1 1\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n", 4, ""},
      {"link four columns", "3 1 1\n2\n0 2 100Gbps 1000ns\n", 3, ""},
      {"link six columns", "3 1 1\n2\n0 2 100Gbps 1000ns 0 9\n", 3, ""},
      {"node a out of range", "3 1 1\n2\n3 2 100Gbps 1000ns 0\n", 3, "a"},
      {"node b negative", "3 1 1\n2\n0 -2 100Gbps 1000ns 0\n", 3, "b"},
      {"self link", "3 1 1\n2\n2 2 100Gbps 1000ns 0\n", 3, "b"},
      {"rate without unit", "3 1 1\n2\n0 2 100 1000ns 0\n", 3, "rate"},
      {"rate bad unit", "3 1 1\n2\n0 2 100Gbs 1000ns 0\n", 3, "rate"},
      {"rate bytes unit", "3 1 1\n2\n0 2 100GBps 1000ns 0\n", 3, "rate"},
      {"rate no number", "3 1 1\n2\n0 2 Gbps 1000ns 0\n", 3, "rate"},
      {"rate zero", "3 1 1\n2\n0 2 0Gbps 1000ns 0\n", 3, "rate"},
      {"rate negative", "3 1 1\n2\n0 2 -5Gbps 1000ns 0\n", 3, "rate"},
      {"rate fractional bits", "3 1 1\n2\n0 2 1.5bps 1000ns 0\n", 3, "rate"},
      {"delay without unit", "3 1 1\n2\n0 2 100Gbps 1000 0\n", 3, "delay"},
      {"delay bad unit", "3 1 1\n2\n0 2 100Gbps 1000xs 0\n", 3, "delay"},
      {"delay below 1 ps", "3 1 1\n2\n0 2 100Gbps 0.5ps 0\n", 3, "delay"},
      {"delay two dots", "3 1 1\n2\n0 2 100Gbps 1.0.0ns 0\n", 3, "delay"},
      {"error rate garbage", "3 1 1\n2\n0 2 100Gbps 1000ns abc\n", 3, "error_rate"},
      {"error rate above 1", "3 1 1\n2\n0 2 100Gbps 1000ns 1.5\n", 3, "error_rate"},
      // A tiny file claiming a billion nodes is refused before they are allocated.
      {"more nodes than links can join", "1000000000 0 1\n0 1 100Gbps 1000ns 0\n", 1, "nodes"},
      {"line numbers count blank lines", "3 1 2\n\n2\n\n0 2 100Gbps 1000ns 0\n1 1 100Gbps 1000ns 0\n", 6,
       "b"},
  };
  expect_errors(std::begin(cases), std::end(cases),
                [](const std::string& p) { (void)load_edge_list_topology(p); });
}

TEST(HpccTopology, MissingFileIsInputError) {
  EXPECT_THROW((void)load_edge_list_topology("data/reference/nope.txt"), InputError);
}

TEST(HpccFlows, LoadsBenchFlows) {
  const auto flows = load_hpcc_flows("data/bench/websearch_128hosts_load30_5ms_flows.txt", 2.0);
  ASSERT_EQ(flows.size(), 1261u);
  int64_t total = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ(flows[i].id, static_cast<int64_t>(i));
    EXPECT_NE(flows[i].src, flows[i].dst);
    EXPECT_GE(flows[i].src, 0);
    EXPECT_LT(flows[i].src, 128);
    EXPECT_LT(flows[i].dst, 128);
    EXPECT_EQ(flows[i].priority, 3);
    EXPECT_EQ(flows[i].dport, 100);
    if (i > 0) {
      EXPECT_LE(flows[i - 1].start, flows[i].start);
    }
    total += flows[i].size_bytes;
  }
  EXPECT_EQ(total, 2'094'061'576);  // data/README.md: 2.094 GB
  const FlowSpec first{0, 13, 79, 3, 100, 38884, Time::from_ps(962'000)};
  EXPECT_EQ(flows.front(), first);
  EXPECT_EQ(flows.back().start, Time::from_ps(4'904'513'000));  // 2.004904513 s
}

TEST(HpccFlows, StartTimesAreExactPicoseconds) {
  TempFile f(
      "4 \n"
      "0 1 3 100 10 2.000000000001\n"
      "1 0 0 0 1 2.5\n"
      "2 3 7 65535 5 3\n"
      "3 2 3 100 5 3.0000000000010\n");
  const auto flows = load_hpcc_flows(f.path(), 2.0);
  ASSERT_EQ(flows.size(), 4u);
  EXPECT_EQ(flows[0].start.ps(), 1);
  EXPECT_EQ(flows[1].start.ps(), 500'000'000'000);
  EXPECT_EQ(flows[2].start.ps(), 1'000'000'000'000);
  EXPECT_EQ(flows[3].start.ps(), 1'000'000'000'001);
  EXPECT_EQ(flows[2].priority, 7);
  EXPECT_EQ(flows[2].dport, 65535);
  const auto abs = load_hpcc_flows(f.path(), 0.0);
  EXPECT_EQ(abs[0].start.ps(), 2'000'000'000'001);
}

TEST(HpccFlows, EmptyListIsValid) {
  TempFile f("0\n");
  EXPECT_TRUE(load_hpcc_flows(f.path(), 0.0).empty());
}

TEST(HpccFlows, NonFiniteOffsetIsRejected) {
  EXPECT_THROW((void)load_hpcc_flows("data/bench/websearch_128hosts_load30_5ms_flows.txt",
                                     std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
}

TEST(HpccFlows, MalformedFilesReportLine) {
  const BadFile cases[] = {
      {"empty", "", 1, ""},
      {"count garbage", "lots\n", 1, "flow_count"},
      {"count negative", "-1\n", 1, "flow_count"},
      {"count two columns", "1 2\n0 1 3 100 10 2.0\n", 1, ""},
      {"flow lines missing", "2\n0 1 3 100 10 2.0\n", 1, "flow_count"},
      {"extra flow line", "1\n0 1 3 100 10 2.0\n1 0 3 100 10 2.0\n", 3, ""},
      {"five columns", "1\n0 1 3 100 10\n", 2, ""},
      {"src garbage", "1\nx 1 3 100 10 2.0\n", 2, "src"},
      {"dst negative", "1\n0 -1 3 100 10 2.0\n", 2, "dst"},
      {"src equals dst", "1\n4 4 3 100 10 2.0\n", 2, "dst"},
      {"priority too high", "1\n0 1 8 100 10 2.0\n", 2, "priority"},
      {"dport too high", "1\n0 1 3 70000 10 2.0\n", 2, "dport"},
      {"size zero", "1\n0 1 3 100 0 2.0\n", 2, "size_bytes"},
      {"size fractional", "1\n0 1 3 100 1.5 2.0\n", 2, "size_bytes"},
      {"start garbage", "1\n0 1 3 100 10 soon\n", 2, "start_seconds"},
      {"start exponent", "1\n0 1 3 100 10 2e0\n", 2, "start_seconds"},
      {"start negative", "1\n0 1 3 100 10 -2.0\n", 2, "start_seconds"},
      {"start below 1 ps", "1\n0 1 3 100 10 2.0000000000001\n", 2, "start_seconds"},
      {"start before offset", "1\n0 1 3 100 10 1.999999999999\n", 2, "start_seconds"},
      {"starts decrease", "3\n0 1 3 100 10 2.1\n0 1 3 100 10 2.2\n0 1 3 100 10 2.15\n", 4, "start_seconds"},
      {"line numbers count blank lines", "2\n\n0 1 3 100 10 2.0\n\n0 0 3 100 10 2.0\n", 5, "dst"},
  };
  expect_errors(std::begin(cases), std::end(cases),
                [](const std::string& p) { (void)load_hpcc_flows(p, 2.0); });
}

TEST(HpccFlows, MissingFileIsInputError) {
  EXPECT_THROW((void)load_hpcc_flows("data/bench/nope.txt", 2.0), InputError);
}

}  // namespace
}  // namespace rdmasim
