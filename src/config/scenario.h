// A scenario: everything one run needs, resolved from YAML with the fabric
// profile's defaults filled in. Loading validates every key; what is not
// understood is rejected, so no setting is ever silently ignored.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/cfg_node.h"
#include "config/params.h"
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

// A per-link setting (`links:`), applied in order over the topology (a
// file's own error rates first): random frame loss on the wire. `node`
// empty means every link; otherwise the link at "node:port", named as a
// fault names it. Loss is per frame each end sends: both ends, or only
// the named end (kOut) or only its peer (kIn).
struct LinkSettingSpec {
  enum class Direction : uint8_t { kBoth, kOut, kIn };
  std::string node;  // empty: every link
  int port = 0;
  double loss = 0.0;
  Direction direction = Direction::kBoth;
  int line = 0;
};

// output.pcap: which frames the run records into capture.pcap.
struct PcapSpec {
  bool enabled = false;  // the block is present
  // Ports whose transmitted frames are kept, as faults name link ends
  // (node, port index); empty: every port.
  std::vector<std::pair<std::string, int>> ports;
  Time start;  // first bit at or after this
  Time end;    // and before this; zero: the end of the run
  int64_t max_packets = 100000;
  int64_t snaplen = 65535;  // bytes kept per frame; the record keeps the full length
};

struct OutputSpec {
  std::string dir = "out";
  bool flows_csv = true;
  bool ports_csv = true;
  Time timeseries_interval;  // 0: no timeseries.csv
  Time timeseries_start;
  PcapSpec pcap;
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
  std::vector<LinkSettingSpec> links;
  OutputSpec output;
};

// Loads and validates a scenario file. `overrides` are `key=value` strings
// from --set, applied before validation. Throws InputError.
[[nodiscard]] Scenario load_scenario_file(const std::string& path,
                                          const std::vector<std::string>& overrides = {});
[[nodiscard]] Scenario load_scenario_text(const std::string& text, const std::string& pseudo_file,
                                          const std::vector<std::string>& overrides = {});
[[nodiscard]] Scenario load_scenario(const CfgNode& root);

// The scenario's keys as results.json echoes them and as the key reference
// (`rdmasim schema`) lists them, from the declarations the loader reads with.
[[nodiscard]] nlohmann::ordered_json topology_json(const TopologySpec& ts);
[[nodiscard]] nlohmann::ordered_json fault_json(const FaultSpec& f);
[[nodiscard]] nlohmann::ordered_json link_setting_json(const LinkSettingSpec& l);
[[nodiscard]] std::vector<KeyInfo> run_keys();  // name, seed, duration, output
[[nodiscard]] nlohmann::ordered_json run_defaults();
[[nodiscard]] std::vector<std::string> topology_type_names();
[[nodiscard]] std::vector<KeyInfo> topology_keys(const std::string& type);
// A topology of `type` given only its required keys (zero for those), on `link`.
[[nodiscard]] nlohmann::ordered_json topology_defaults(const std::string& type, const LinkSpec& link);
[[nodiscard]] std::vector<KeyInfo> fault_keys();
[[nodiscard]] std::vector<KeyInfo> link_setting_keys();
[[nodiscard]] nlohmann::ordered_json link_setting_defaults();

// Builds the topology a scenario describes. Throws InputError (located at the
// topology section) when it cannot be built or is not connected.
[[nodiscard]] Topology build_topology(const Scenario& s);

}  // namespace rdmasim
