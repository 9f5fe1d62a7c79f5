// A scenario: everything one run needs, resolved from YAML with the fabric
// profile's defaults filled in. Loading validates every key; what is not
// understood is rejected, so no setting is ever silently ignored.
#pragma once

#include <algorithm>
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
  std::string type = "star";  // star | dumbbell | leaf-spine | two-site | fat-tree | servers | chain | file
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
  int servers_per_leaf = 0;  // servers: per rail leaf (a scalable unit); 0: all on one leaf per rail
  int switch_radix = 0;      // servers: ports per switch (a core tier when spines run out); 0: no bound
  int switches = 1;          // chain: two hosts joined through this many switches in a row
  LinkSpec link;
  LinkSpec fabric_link;
  int wan_links = 1;  // two-site: long links between the sites, spine i to spine i
  LinkSpec wan_link;
  int routers = 0;   // two-site: routers per site the sites meet through (0: spines joined directly)
  std::string file;  // edge-list (HPCC ns-3 topology format)
  int line = 0;
};

// A scheduled fault (DESIGN.md §5): `link` names one end of a link as
// "node:port" (port index in the topology's link order at that node), or
// `node` names a whole switch or NIC, every link of which the fault hits.
struct FaultSpec {
  enum class Action : uint8_t {
    kDown,     // the link stops carrying frames; both ends see loss of signal
    kUp,       // it comes back (retrains)
    kDegrade,  // it keeps running at a lower speed (a 400G port falling to 200G)
    kFlap,     // down for `down_for` every `every`, `times` times
    kStuck,    // the NIC at this end stops draining: PFC XOFF toward its switch, refreshed
    kUnstuck,  // it drains again (XON)
  };
  Time at;
  std::string node;
  int port = -1;  // -1: the whole node
  Action action = Action::kDown;
  // down: a gray failure, the link drops everything without loss of signal,
  // so only BFD notices it (Ethernet fabrics).
  bool silent = false;
  Rate rate;  // degrade: the link's new speed
  Time down_for;
  Time every;
  int times = 0;
  int line = 0;
  [[nodiscard]] bool whole_node() const { return port < 0; }
};

// A per-link setting (`links:`), applied in order over the topology (a
// file's own error rates first): random frame loss or bit errors on the wire. `node`
// empty means every link; otherwise the link at "node:port", named as a
// fault names it. Loss is per frame each end sends: both ends, or only
// the named end (kOut) or only its peer (kIn).
struct LinkSettingSpec {
  enum class Direction : uint8_t { kBoth, kOut, kIn };
  std::string node;  // empty: every link
  int port = 0;
  double loss = 0.0;
  double ber = 0.0;      // bit-error rate, as well as or instead of loss
  double length_m = -1;  // the link's fibre, which sets its delay (build_topology); -1: the topology's
  std::string cable;     // with length_m: the class that carries it; empty: the link keeps its own
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
  Time incident_interval;  // runs with faults; 0: auto
  // The incident monitor's first bin: as set, or the duration / 1000, finer
  // when the first fault comes early so ten bins measure the rate before it,
  // but no finer than the duration / 20,000 (each bin samples every port)
  // unless that would leave fewer than two bins before the fault; whole ns,
  // >= 100 ns. Auto bins double every kIncidentBinsPerWidth samples
  // (incident_bins_double()), so a long horizon bounds the sampling cost
  // without coarsening the bins around an early fault.
  [[nodiscard]] Time incident_bin(Time duration, Time first_fault) const {
    if (incident_interval > Time::zero()) return incident_interval;
    const int64_t d = duration.ps() / 1000;     // ns
    const int64_t f = first_fault.ps() / 1000;  // ns
    const int64_t ns = std::max({int64_t{100}, std::min(d / 20000, f / 2), std::min(d / 1000, f / 10)});
    return Time::from_ns(ns);
  }
  static constexpr int kIncidentBinsPerWidth = 20000;
  [[nodiscard]] bool incident_bins_double() const { return incident_interval == Time::zero(); }
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

// 'node:port' as faults, links and misconfig name a link end, e.g. agg0_0:2:
// false unless `text` has that form.
[[nodiscard]] bool parse_node_port(const std::string& text, std::string& node, int& port);
// The topology node called `name` (-1 if none) and how many ports it has.
[[nodiscard]] std::pair<int, int> find_node(const Topology& t, const std::string& name);

// The classes `link.cable` accepts (docs/DISTANCE.md), in the schema's order,
// with how far each reaches.
struct CableClassInfo {
  std::string name;
  double reach_m = 0;
};
[[nodiscard]] std::vector<CableClassInfo> cable_classes();

// Builds the topology a scenario describes. Throws InputError (located at the
// topology section) when it cannot be built or is not connected.
[[nodiscard]] Topology build_topology(const Scenario& s);

}  // namespace rdmasim
