// Readers for the input files of the HPCC ns-3 simulator
// (alibaba-edu/High-Precision-Congestion-Control), so its published topologies
// and flow traces run here unchanged. Every problem is reported as an
// InputError with the file and 1-based line.
#pragma once

#include <string>
#include <vector>

#include "engine/units.h"
#include "topo/topology.h"
#include "workload/flow_spec.h"

namespace rdmasim {

// Topology as the file states it; turning it into a network (and checking
// that it is connected, hosts have one uplink, ...) is the builder's job,
// which is why each link remembers its line for later error messages.
struct EdgeListTopology {
  int num_nodes = 0;
  std::vector<int> switch_ids;  // in file order
  struct Link {
    int a = 0;
    int b = 0;
    Rate rate;
    Time delay;
    double error_rate = 0.0;
    int line = 0;
  };
  std::vector<Link> links;  // in file order
  std::string file;
};

// Format: `N S L`, then a line with the S switch ids (absent or empty when
// S == 0), then L lines `a b rate delay error_rate`, e.g.
// `0 320 100Gbps 1000ns 0.000000`. Rates take bps/Kbps/kbps/Mbps/Gbps/Tbps,
// delays ps/ns/us/ms/s, both with an optional decimal fraction that must
// come out to whole bits/s and whole picoseconds. Blank lines are ignored.
[[nodiscard]] EdgeListTopology load_edge_list_topology(const std::string& path);

// Format: flow count, then per flow `src dst priority dport size_bytes
// start_seconds`. start = start_seconds - time_offset_seconds, converted
// exactly to picoseconds from the decimal text (HPCC traces start at 2.0 s, so
// callers usually pass 2.0). Flows keep file order and get ids 0..n-1; starts
// must be non-decreasing (the HPCC simulator schedules flows in file order)
// and non-negative after the offset. Node ids are not range-checked here: the
// flow file does not know the topology. priority must be 0..7, dport 0..65535,
// size >= 1, src != dst. Blank lines are ignored.
// Throws std::invalid_argument if time_offset_seconds is not finite.
// The graph of an edge-list file. Endpoints are the non-switch node ids in
// ascending order (for the HPCC files, endpoint i is node i).
[[nodiscard]] Topology topology_from_edge_list(const EdgeListTopology& e);

[[nodiscard]] std::vector<FlowSpec> load_hpcc_flows(const std::string& path, double time_offset_seconds);

}  // namespace rdmasim
