// Connection state a collective holds (CollectiveWorkload's qps_per_nic_max,
// which evaluate's scale claims read): the communicator's own count agrees
// with the transport's QP table, and a ring takes exactly two QPs per NIC
// per channel (one to the next rank, one from the previous).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "config/scenario.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

TEST(ConnectionState, ARingHoldsTwoQpsPerNicPerChannel) {
  for (const char* profile : {"ib-ndr", "rocev2-dcqcn", "iwarp-dctcp"}) {
    SCOPED_TRACE(profile);
    const std::string text = std::string("name: conns\nduration: 20ms\ntopology: {type: star, hosts: 8}\n") +
                             "fabric: {profile: " + profile +
                             "}\nworkload:\n  - {type: collective, op: all_reduce, algo: ring, size: 1MiB}\n";
    Experiment e(load_scenario_text(text, "conns.yaml"));
    e.run();
    nlohmann::ordered_json out;
    e.workloads().at(0)->report(out);
    ASSERT_TRUE(out["finished"].get<bool>());
    // The transport's table: every QP's context at both of its ends.
    const Verbs v = e.fabric().verbs();
    std::map<int, int> per_nic;
    for (QpId q = 0; q < v.num_qps(); ++q) {
      ++per_nic[v.qp(q).src()];
      ++per_nic[v.qp(q).dst()];
    }
    int most = 0;
    for (const auto& [nic, n] : per_nic) most = std::max(most, n);
    EXPECT_EQ(out["qps_per_nic_max"].get<int>(), most);
    EXPECT_EQ(most, 2 * out["channels"].get<int>());
    EXPECT_EQ(per_nic.size(), 8u);
  }
}

}  // namespace
}  // namespace rdmasim
