// A scenario: everything one run needs, resolved from YAML with the fabric
// profile's defaults filled in. Loading validates every key; what is not
// understood is rejected, so no setting is ever silently ignored.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/cfg_node.h"
#include "engine/units.h"
#include "fabric/fabric.h"
#include "topo/topology.h"
#include "workload/workload.h"

namespace rdmasim {

struct TopologySpec {
  std::string type = "star";  // star | dumbbell | leaf-spine | fat-tree | servers | chain | file
  int hosts = 2;
  int left = 1;
  int right = 1;
  int leaves = 2;
  int hosts_per_leaf = 2;
  int spines = 0;
  double oversubscription = 1.0;
  int k = 4;
  int servers = 2;
  int gpus_per_server = 8;
  int switches = 1;  // chain: two hosts joined through this many switches in a row
  LinkSpec link;
  LinkSpec fabric_link;
  std::string file;  // edge-list (HPCC ns-3 topology format)
  int line = 0;
};

// A scheduled link-state change (DESIGN.md §5): `link` names one end as
// "node:port" (port index in the topology's link order at that node).
struct FaultSpec {
  Time at;
  std::string node;
  int port = 0;
  bool up = false;
  int line = 0;
};

struct OutputSpec {
  std::string dir = "out";
  bool flows_csv = true;
  bool ports_csv = true;
  Time timeseries_interval;  // 0: no timeseries.csv
  Time timeseries_start;
};

struct Scenario {
  std::string name;
  std::string file;
  uint64_t seed = 1;
  Time duration = Time::from_ms(10);
  std::string profile = "ethernet-lossy";
  TopologySpec topology;
  FabricConfig fabric;
  std::vector<WorkloadSpec> workloads;
  std::vector<FaultSpec> faults;
  OutputSpec output;
};

// Loads and validates a scenario file. `overrides` are `key=value` strings
// from --set, applied before validation. Throws InputError.
[[nodiscard]] Scenario load_scenario_file(const std::string& path,
                                          const std::vector<std::string>& overrides = {});
[[nodiscard]] Scenario load_scenario_text(const std::string& text, const std::string& pseudo_file,
                                          const std::vector<std::string>& overrides = {});
[[nodiscard]] Scenario load_scenario(const CfgNode& root);

// Builds the topology a scenario describes. Throws InputError (located at the
// topology section) when it cannot be built or is not connected.
[[nodiscard]] Topology build_topology(const Scenario& s);

}  // namespace rdmasim
