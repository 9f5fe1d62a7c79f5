// ports.csv's utilisation: the fraction of the run a port spent sending,
// which a run cut off by its duration must not push past 1 (a frame counts
// its whole serialisation when it starts).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "report/results.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

// The utilisation column of `node`'s port `port`.
double utilisation(const std::string& csv, const std::string& node, int port) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header: utilisation is the 13th column
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream row(line);
    for (std::string x; std::getline(row, x, ',');) f.push_back(x);
    if (f.size() > 12 && f[0] == node && f[1] == std::to_string(port)) return std::stod(f[12]);
  }
  ADD_FAILURE() << "no row for " << node << ":" << port;
  return -1;
}

TEST(PortsCsv, AnUnfinishedRunsBusyPortIsAtMostFullyUtilised) {
  // At 1 Gb/s a 4 KiB frame takes about 33 us: the run stops at 50 us, half
  // way through the host's second frame (its whole serialisation counted,
  // the port read 1.34).
  Experiment e(load_scenario_text(R"(name: cut
duration: 50us
topology: {type: star, hosts: 2, link: {rate: 1Gbps, delay: 500ns}}
fabric: {profile: ethernet-lossy, mtu: 4096B}
workload: [{type: flow, src: 0, dst: 1, size: 64MiB}]
)",
                                  "<t>"));
  e.run();
  ASSERT_EQ(e.completed(), 0u);
  const std::string csv = ports_csv(e);
  const double host = utilisation(csv, "h0", 0);
  EXPECT_LE(host, 1.0);
  // Sending from its first packet (a few hundred ns in) to the end.
  EXPECT_GT(host, 0.99);
  EXPECT_LE(utilisation(csv, "sw0", 1), 1.0);
}

}  // namespace
}  // namespace rdmasim
