// An evaluation file (`rdmasim evaluate eval.yaml`): one cluster, the fabrics
// to compare on it, the workloads and conditions to measure them under, the
// seeds, and the weights of the decision. Loading validates everything up
// front, located at file:line:column, so a matrix never runs for minutes and
// then fails on a typo in its last cell.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/units.h"
#include "evaluate/tco.h"

namespace rdmasim {

// The machine every fabric is measured on. Only the fabric changes between
// compared cells: same servers, NICs, cables and switch tiers.
struct EvalCluster {
  enum class Shape : uint8_t { kRailOptimized, kLeafSpine, kFatTree };
  Shape shape = Shape::kRailOptimized;
  int servers = 4;
  int gpus_per_server = 8;  // one NIC per GPU
  Rate nic_rate = Rate::from_gbps(400);
  Time cable_delay = Time::from_ns(1000);
  double oversubscription = 1.0;  // rail-optimized and leaf-spine
  // Rail-optimized: servers under one rail leaf. 32, DGX SuperPOD's
  // scalable unit on 64-port NDR leaves (NVIDIA DGX SuperPOD reference
  // architecture: 8 SUs, 256 servers, take 64 leaves and 32 spines); a
  // cluster that fits one unit has one leaf per rail.
  int servers_per_leaf = 32;
  // Rail-optimized: ports per switch. 64: NVIDIA Quantum-2 QM9700 (64 NDR
  // ports) and the SuperPOD table, where 16+ units take a core tier.
  int switch_radix = 64;
  int k = 0;  // fat-tree radix, from the host count
  // Cable or optic classes (link.cable) of the host and switch-to-switch
  // links; empty: none named (priced as host_link / fabric_link).
  std::string host_cable;
  std::string fabric_cable;

  [[nodiscard]] int hosts() const { return servers * gpus_per_server; }
  // Rail-optimized: servers under each rail leaf, and the spines each leaf
  // links to (from the oversubscription, as make_cluster_topology's).
  [[nodiscard]] int leaf_servers() const { return servers > servers_per_leaf ? servers_per_leaf : servers; }
  [[nodiscard]] int rail_spines() const;
  // Rail-optimized: more rail leaves than a spine has ports, so the cluster
  // takes a core tier (make_servers' switch_radix).
  [[nodiscard]] bool needs_core_tier() const;
  [[nodiscard]] std::string shape_name() const;
};

// A fabric under test: a built-in profile and the scenario keys the
// evaluation sets on it (e.g. a tuned ECN threshold). `name` labels it in the
// report; two entries may share a profile under different names.
struct EvalFabric {
  std::string name;
  std::string profile;
  std::vector<std::pair<std::string, std::string>> set;  // dotted key, value as YAML text
  int line = 0;
};

// What is measured. `type` is the evaluation's name for it; `scenario_type`
// the scenario workload that runs it; `keys` the workload keys passed through
// to the scenario (validated by the scenario loader). A sweep (collective
// sizes, or any `sweep` key) makes one cell per point.
struct EvalWorkload {
  std::string name;
  std::string type;  // latency | bandwidth | incast | permutation | all-to-all | collective | training | fct
                     // | scenario
  std::string scenario_type;
  // type scenario: a scenario file of the user's, run whole (its topology,
  // workloads, faults) with each compared fabric in place of its own.
  std::string scenario_file;
  YAML::Node scenario;
  YAML::Node keys;        // map of pass-through keys (a copy owned here)
  std::string sweep_key;  // e.g. "size"; empty: one point
  std::vector<std::string> sweep_values;
  // The fabrics it runs on (empty: all). A workload only some fabrics can
  // run (SHARP on InfiniBand) is reported and answers claims, but no
  // criterion scores it: scores compare like with like.
  std::vector<std::string> fabrics;
  int line = 0;

  [[nodiscard]] bool runs_on(const std::string& fabric) const {
    return fabrics.empty() || std::find(fabrics.begin(), fabrics.end(), fabric) != fabrics.end();
  }
};

// The state the fabric is in while a workload runs: idle, beside background
// traffic, with a link going down, or with settings mis-set. `fabrics` limits
// the condition to the named fabrics (a misconfiguration that only exists on
// some, e.g. PFC off); empty: all.
struct EvalCondition {
  std::string name;
  // Background: Poisson flows from a flow-size CDF at this share of each NIC.
  double background_load = 0.0;
  std::string background_cdf;  // shipped data path
  // A link down at `down_at` (and up again at `up_at` when set), named as a
  // fault names it, or "auto": the first leaf's first uplink.
  std::optional<Time> down_at;
  std::optional<Time> up_at;
  std::string link = "auto";
  std::vector<std::pair<std::string, std::string>> set;  // scenario keys mis-set
  // The cluster's switch-to-switch links stretched to this length ("10km"),
  // as when the spines stand in another hall or site (docs/DISTANCE.md).
  std::string distance;
  // With distance: the class carrying the stretched links; empty: the
  // cluster's fabric_cable, whose reach must then cover the distance.
  std::string cable;
  // Injected misconfigurations (a scenario's misconfig: list, as written):
  // per switch, NIC or port, labelled in each cell's results.
  YAML::Node misconfig;
  std::vector<std::string> fabrics;
  std::vector<std::string> workloads;
  int line = 0;

  // An incast beside the measured workload: this many senders, each sending
  // `incast_size`, into the host the measured workload receives on.
  int incast_senders = 0;
  std::string incast_size;
  // Into another host instead, with the measured workload's source among
  // the senders: the measured traffic never enters the congested port, so
  // what slows it is the back-pressure (PFC pauses, IB credits) the incast
  // spreads onto the links they share: head-of-line blocking. Perftest
  // workloads only (their source and destination are known).
  bool incast_elsewhere = false;

  // Traffic beside the measured workload (background or an incast).
  [[nodiscard]] bool is_loaded() const { return background_load > 0 || incast_senders > 0; }
  // Traffic beside the measured workload and nothing else changed: the
  // congestion criterion's conditions (resilience takes the others).
  [[nodiscard]] bool is_traffic_only() const {
    return is_loaded() && !down_at && set.empty() && !misconfig.IsSequence() && distance.empty();
  }
  [[nodiscard]] bool is_baseline() const {
    return !is_loaded() && !down_at && set.empty() && !misconfig.IsSequence() && distance.empty();
  }
};

// The tuning-effort sweep: each setting a fabric's profile uses, one at a
// time, at x0.5 and x2 (numbers, sizes, times, rates) or flipped
// (true/false), on these workloads at baseline. A setting whose mis-setting
// costs more than `threshold` on some workload's key metric is a knob an
// operator has to get right.
struct EvalTuning {
  std::vector<std::string> workloads;  // names; empty: no sweep
  double threshold = 0.10;
  std::vector<std::string> keys;  // fabric keys to try; empty: every one the profile uses
  int line = 0;
};

// The assumption sweep: each default a fabric's profile labels an assumption
// (no published source), moved to x0.5 and x2 one at a time, on these
// workloads at baseline; each figure they measure gets the range it spans.
struct EvalAssumptions {
  std::vector<std::string> workloads;  // names; empty: no sweep
  int line = 0;
};

// The scale sweep: the same cluster with other server counts (the cluster's
// own is the first point), for these workloads at baseline: how each fabric's
// key metric moves as the cluster grows.
struct EvalScale {
  std::vector<int> servers;            // the other sizes, ascending
  std::vector<std::string> workloads;  // names; empty: no sweep
  int line = 0;
};

// The decision's criteria, each weighted by the file (0 leaves one out).
struct EvalWeights {
  std::vector<std::pair<std::string, double>> weight;  // criterion -> weight, in file order
};

struct Evaluation {
  std::string name;
  std::string file;
  std::string text;                    // the file as read (echoed into evaluation.json)
  std::vector<std::string> overrides;  // applied over `text` (echoed too)
  std::vector<uint64_t> seeds{1};
  Time duration = Time::from_ms(1000);  // simulated-time limit of each cell
  EvalCluster cluster;
  std::vector<EvalFabric> fabrics;
  std::vector<EvalWorkload> workloads;
  std::vector<EvalCondition> conditions;
  EvalWeights weights;
  EvalTuning tuning;
  EvalAssumptions assumptions;
  EvalScale scale;
  // Per fabric: the prices, power and staffing its cost model uses (the
  // file's `cost:` section over the cited defaults of its family).
  std::vector<CostInputs> cost;
};

// The criteria a weight may name, each with what measures it.
[[nodiscard]] const std::vector<std::pair<std::string, std::string>>& eval_criteria();

// Throws InputError located in the file for anything it cannot run.
// `overrides` ("key=value", list items by index: fabrics.1.set.fabric.ecn.kmin=100KB,
// cluster.servers=8) are applied to the file before it is read, as `run --set` does.
[[nodiscard]] Evaluation load_evaluation_file(const std::string& path,
                                              const std::vector<std::string>& overrides = {});
[[nodiscard]] Evaluation load_evaluation_text(const std::string& text, const std::string& pseudo_file,
                                              const std::vector<std::string>& overrides = {});
// Whether `path` holds an evaluation (a top-level `fabrics:` list) rather
// than a scenario. Throws InputError when it is not a YAML map.
[[nodiscard]] bool is_evaluation_file(const std::string& path);

// Shipped flow-size distributions by the names an evaluation uses
// (storage, websearch, hadoop, datamining, rpc), as data/ paths.
[[nodiscard]] std::string eval_cdf_path(const std::string& name);
[[nodiscard]] std::vector<std::string> eval_cdf_names();

// An mpi workload whose OSU benchmark measures bandwidth (osu_bw, osu_bibw,
// osu_mbw_mr): its figures are MB/s, and it has no latency to show.
[[nodiscard]] bool is_osu_bandwidth(const EvalWorkload& w);

}  // namespace rdmasim
