#include "validate/hpcc_b6.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "config/scenario.h"
#include "config/shipped_path.h"
#include "metrics/distribution.h"
#include "run/experiment.h"

namespace rdmasim {

double b6_published(const std::string& cc, int load_percent) {
  if (cc == "hpcc") return load_percent == 30 ? 1.2 : 1.5;
  if (cc == "dctcp") return load_percent == 30 ? 2.6 : 3.8;
  return load_percent == 30 ? 3.0 : 4.7;
}

std::string b6_scenario_yaml(const std::string& cc, int load_percent, bool full, uint64_t seed) {
  std::string topo;
  if (full) {
    topo = fmt::format("topology:\n  type: file\n  file: {}\n  switch: {{buffer: 32MB}}\nduration: 20ms\n",
                       find_shipped("data/reference/hpcc_fattree320_topology.txt"));
  } else {
    topo =
        "topology:\n  type: leaf-spine\n  leaves: 4\n  hosts_per_leaf: 16\n  spines: 4\n"
        "  link: {rate: 100Gbps, delay: 1us}\n  fabric_link: {rate: 400Gbps, delay: 1us}\n"
        "  switch: {buffer: 32MB}\nduration: 8ms\n";
  }
  // Each algorithm as the HPCC simulator runs it: DCQCN is its Mellanox-style
  // CC_MODE 1 (data/README.md), DCTCP its run.py comparison settings.
  const char* profile = cc == "hpcc" ? "rocev2-hpcc" : cc == "dctcp" ? "rocev2-dctcp" : "rocev2-dcqcn-mlx";
  const std::string fabric = fmt::format("fabric:\n  profile: {}\n", profile);
  return fmt::format(
      "name: b6-websearch{}-{}\nseed: {}\n{}{}workload:\n  - type: cdf\n    cdf: {}\n    load: {}%\n"
      "    window: {}\n",
      load_percent, cc, seed, topo, fabric, find_shipped("data/cdf/websearch.txt"), load_percent,
      full ? "10ms" : "5ms");
}

B6Run run_b6(const std::string& cc, int load_percent, bool full, int seeds,
             const std::vector<std::string>& overrides) {
  B6Run r;
  std::vector<double> sd, all;
  for (int seed = 1; seed <= seeds; ++seed) {
    Experiment e(load_scenario_text(b6_scenario_yaml(cc, load_percent, full, static_cast<uint64_t>(seed)),
                                    "<validate B.6>", overrides));
    e.run();
    if (r.invariants.empty()) r.invariants = e.invariant_error();
    for (const auto& f : e.flows()) {
      ++r.flows;
      if (!f.finished()) continue;
      ++r.completed;
      const double x = static_cast<double>(f.fct().ps()) / static_cast<double>(f.ideal.ps());
      all.push_back(x);
      if (f.spec.size_bytes < 10'000) sd.push_back(x);
    }
    for (const Switch* s : e.fabric().switches()) {
      r.lossless_drops += s->counters().lossless_drops;
      r.drops += s->counters().buffer_drops;
      r.pfc_xoff += s->counters().pfc_xoff_sent;
    }
    r.retransmitted += e.fabric().verbs().total_stats().retransmitted_packets;
  }
  r.short_flows = sd.size();
  std::sort(sd.begin(), sd.end());
  std::sort(all.begin(), all.end());
  if (!sd.empty()) r.p95_short = percentile_sorted(sd, 0.95);
  if (!all.empty()) r.p99_all = percentile_sorted(all, 0.99);
  return r;
}

}  // namespace rdmasim
