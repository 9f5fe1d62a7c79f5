// The operator views: every counter they print is the simulator's own, under
// the name an operator reads on real gear, and they add up as the wire does
// (each PAUSE frame a switch sends is one a NIC receives).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "config/scenario.h"
#include "report/operator_views.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

// name -> sum over every port of the counter with that name.
std::map<std::string, uint64_t> totals(const std::string& text) {
  std::map<std::string, uint64_t> t;
  std::istringstream in(text);
  std::string line;
  const std::regex re(R"(^\s+(\w+): (\d+)$)");
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, re)) t[m[1]] += std::stoull(m[2]);
  return t;
}

TEST(OperatorViews, PfcPauseFramesSentByTheSwitchAreTheOnesTheNicsReceive) {
  Experiment e(load_scenario_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/pfc-incast.yaml"));
  e.run();
  const std::string text = operator_counters(e);
  const auto t = totals(text);
  uint64_t sent = 0, received = 0;
  for (const Switch* sw : e.fabric().switches())
    for (size_t i = 0; i < sw->num_ports(); ++i) {
      sent += sw->port(i).counters().pfc_tx_frames[3];
      received += sw->port(i).peer()->port(sw->port(i).peer_index()).counters().pfc_rx_frames[3];
    }
  ASSERT_GT(sent, 0u);
  EXPECT_EQ(received, sent);
  // Only the switch sends PAUSE in this incast, the NICs only receive it.
  EXPECT_EQ(t.at("tx_prio3_pause"), sent);
  EXPECT_EQ(t.at("rx_prio3_pause"), received);
  EXPECT_NE(text.find("nic h1:0 (to sw0, 100 Gb/s)"), std::string::npos);
  EXPECT_EQ(text.find("queue3_lossless_dropped_packets"), std::string::npos);  // lossless: none
}

TEST(OperatorViews, IbdiagnetWarnsOfTheDownedLinkAndCountsItsDiscards) {
  Experiment e(load_scenario_file(std::string(RDMASIM_SOURCE_DIR) + "/scenarios/ib-link-failure.yaml"));
  e.run();
  const std::string text = ibdiagnet_report(e);
  EXPECT_NE(text.find("-W- agg0_0/P2 (to core0): LinkDownedCounter = 1 (threshold 0)"), std::string::npos);
  EXPECT_NE(text.find("-W- core0/P0 (to agg0_0): LinkDownedCounter = 1 (threshold 0)"), std::string::npos);
  // PortXmitDiscards over all ports are the packets lost to the failed link,
  // each once (the credit layer's count of them is the same packets).
  uint64_t discards = 0;
  const std::regex re(R"(PortXmitDiscards = (\d+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    discards += std::stoull((*it)[1]);
  uint64_t fault = 0, credit_view = 0;
  const Network& net = e.fabric().net();
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i) {
      const Port& p = net.node(n).port(i);
      fault += p.counters().fault_drop_packets;
      credit_view += p.credit()->ctr.fault_drop_packets;
    }
  ASSERT_GT(fault, 0u);
  EXPECT_EQ(discards, fault);
  EXPECT_EQ(credit_view, fault);
  EXPECT_NE(text.find("-I- Summary:"), std::string::npos);
  // The hosts' RDMA counters add up to the transport's own: the gaps the
  // responders saw, the NAKs the requesters got back.
  const auto t = totals(operator_counters(e));
  const QpStats q = e.fabric().verbs().total_stats();
  ASSERT_GT(q.naks_received, 0u);
  EXPECT_EQ(t.at("packet_seq_err"), q.naks_received);
  EXPECT_EQ(t.at("out_of_sequence"), q.out_of_order_discards);
  EXPECT_EQ(t.at("rdma_retransmitted_packets"), q.retransmitted_packets);
}

}  // namespace
}  // namespace rdmasim
