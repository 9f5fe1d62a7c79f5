// VALIDATION.md §B.6: the HPCC paper's WebSearch experiment. Poisson arrivals
// of WebSearch-sized flows between random hosts at a given load, under HPCC
// and under DCQCN with the HPCC simulator's settings (data/README.md), and the
// 95th-percentile FCT slowdown of short flows (< 10 KB, the smallest size bin
// of the project page's plots).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rdmasim {

struct B6Run {
  double p95_short = 0;  // 95th-percentile slowdown of completed flows < 10 KB
  size_t short_flows = 0;
  size_t completed = 0;
  size_t flows = 0;
  uint64_t lossless_drops = 0;
  uint64_t drops = 0;  // every class, every switch
  uint64_t retransmitted = 0;
  uint64_t pfc_xoff = 0;
  double p99_all = 0;      // 99th-percentile slowdown of every completed flow
  std::string invariants;  // empty when they held
};

// Published values (project page, approx): WebSearch 30%: HPCC 1.2, DCQCN 3.0,
// DCTCP 2.6; 50%: HPCC 1.5, DCQCN 4.7, DCTCP 3.8.
[[nodiscard]] double b6_published(const std::string& cc, int load_percent);

// The scenario as YAML: `full` = the HPCC paper's 320-host fat-tree (100G
// hosts, 400G fabric, 20 ms); otherwise a 64-host leaf-spine with the same
// ToR shape (16 x 100G down, 4 x 400G up) for 8 ms. cc: "hpcc", "dcqcn" or "dctcp".
[[nodiscard]] std::string b6_scenario_yaml(const std::string& cc, int load_percent, bool full, uint64_t seed);

// Pools the short flows of runs with seeds 1..seeds: one scaled-down run holds
// only ~100-170 short flows, too few for a stable 95th percentile under DCQCN.
// `overrides`: `key=value` as for --set (e.g. fabric.recovery=irn).
[[nodiscard]] B6Run run_b6(const std::string& cc, int load_percent, bool full, int seeds,
                           const std::vector<std::string>& overrides = {});
// Seeds the validate case pools: 3 scaled-down runs, or 1 full-size run.
[[nodiscard]] inline int b6_default_seeds(bool full) { return full ? 1 : 3; }

}  // namespace rdmasim
