#include "evaluate/evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "collective/cluster.h"
#include "config/cfg_node.h"
#include "config/error.h"
#include "config/join.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"
#include "mpi/osu.h"

namespace rdmasim {
namespace {

// name -> data/ file, each from the HPCC traffic generator's set (data/README.md).
const std::vector<std::pair<std::string, std::string>>& cdf_table() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"storage", "data/cdf/alistorage2019.txt"}, {"websearch", "data/cdf/websearch.txt"},
      {"hadoop", "data/cdf/fb_hadoop.txt"},       {"datamining", "data/cdf/vl2_datamining.txt"},
      {"rpc", "data/cdf/googlerpc2008.txt"},
  };
  return t;
}

// What each evaluation workload runs as, and the keys the evaluation itself
// reads (all other keys of the item pass through to the scenario workload).
struct WorkloadType {
  const char* type;
  const char* scenario_type;
  const char* what;
};
constexpr WorkloadType kWorkloadTypes[] = {
    {"latency", "perftest", "perftest write_lat (or `test:`) between two servers: p50/p99/p99.9 and jitter"},
    {"bandwidth", "perftest", "perftest write_bw (or `test:`) between two servers: Gb/s"},
    {"incast", "incast", "N senders to one receiver: completion time, goodput, drops"},
    {"permutation", "permutation", "every host sends to one other: completion time, goodput"},
    {"all-to-all", "all-to-all", "every host to every other: completion time"},
    {"collective", "collective", "an NCCL collective, one cell per size: busbw"},
    {"training", "training", "one training iteration of a model: iteration time, exposed communication"},
    {"fct", "cdf", "Poisson flows from a flow-size distribution: FCT slowdown by size"},
    {"mpi", "osu",
     "an OSU Micro-Benchmark over MPI (`benchmark:`): small/large-message latency or bandwidth"},
    {"halo", "halo3d",
     "an MPI stencil or solver step on a 3-D grid of ranks: time per step, communication share"},
    {"storage", "nvmeof", "NVMe-oF over RDMA as fio runs it: IOPS and completion-latency percentiles"},
    {"stream", "stream", "a real-time stream with a deadline: misses, p99 latency, jitter"},
    {"scenario", "",
     "a scenario file of your own, run whole with each fabric in place of its own: completion time"},
};

std::vector<std::string> workload_type_names() {
  std::vector<std::string> v;
  for (const auto& t : kWorkloadTypes) v.emplace_back(t.type);
  return v;
}

// Flattens a `set:` value into dotted keys: a nested map (`fabric: {ecn:
// {kmin: 100KB}}`, which is also what `fabrics.1.set.fabric.ecn.kmin=100KB`
// makes as an override) names the same key as `fabric.ecn.kmin`. A key given
// twice keeps its place and takes the later value.
void flatten_set(const std::string& key, const YAML::Node& v,
                 std::vector<std::pair<std::string, std::string>>& out) {
  if (v.IsMap()) {
    for (const auto& kv : v) flatten_set(key + "." + kv.first.as<std::string>(), kv.second, out);
    return;
  }
  YAML::Emitter em;
  em.SetSeqFormat(YAML::Flow);
  em << v;
  for (auto& [k, text] : out)
    if (k == key) {
      text = em.c_str();
      return;
    }
  out.emplace_back(key, em.c_str());
}

// A `set:` map of dotted scenario keys: values kept as YAML text (a scalar
// or a flow list) for the scenario loader to read as it reads --set.
std::vector<std::pair<std::string, std::string>> read_set(const CfgNode& parent, const YAML::Node& raw) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::optional<CfgNode> set = parent.opt_child("set");
  if (!set) return out;
  for (const std::string& top : set->keys()) {
    const size_t before = out.size();
    flatten_set(top, raw["set"][top], out);
    for (size_t i = before; i < out.size(); ++i) {
      const std::string& k = out[i].first;
      const bool fabric_key = k.rfind("fabric.", 0) == 0 || k.rfind("topology.switch.", 0) == 0;
      if (!fabric_key || k == "fabric.profile")
        throw set->error(top,
                         "only fabric settings may change between compared cells (fabric.* except "
                         "fabric.profile, topology.switch.*): the cluster and workloads stay the same");
    }
  }
  return out;
}

std::string sanitized_name(const CfgNode& n, const std::string& key, const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      }))
    throw n.error(
        key, "expected a name of 1-64 letters, digits, '-', '_' or '.' (it names output folders), got '" +
                 name + "'");
  return name;
}

void read_cluster(const CfgNode& c, EvalCluster& cl) {
  const std::string shape =
      c.choice("topology", {"rail-optimized", "leaf-spine", "fat-tree"}, "rail-optimized");
  cl.shape = shape == "leaf-spine" ? EvalCluster::Shape::kLeafSpine
             : shape == "fat-tree" ? EvalCluster::Shape::kFatTree
                                   : EvalCluster::Shape::kRailOptimized;
  cl.servers = static_cast<int>(c.integer("servers", 1, 8192));
  cl.gpus_per_server = static_cast<int>(c.integer("gpus_per_server", 8, 1, 64));
  cl.nic_rate = c.rate("nic_rate", Rate::from_gbps(400));
  cl.cable_delay =
      c.time("cable_delay", Time::from_ns(150));  // as ClusterConfig: 30 m of fibre, an assumption
  std::vector<std::string> cables;
  for (const CableClassInfo& k : cable_classes()) cables.push_back(k.name);
  cl.host_cable = c.choice("host_cable", cables, "");
  cl.fabric_cable = c.choice("fabric_cable", cables, "");
  if (cl.shape != EvalCluster::Shape::kFatTree) {
    cl.oversubscription = c.real("oversubscription", 1.0, 1.0, 64.0);
  }
  if (cl.shape == EvalCluster::Shape::kRailOptimized) {
    cl.servers_per_leaf = static_cast<int>(c.integer("servers_per_leaf", 32, 1, 8192));
    cl.switch_radix = static_cast<int>(c.integer("switch_radix", 64, 4, 4096));
    if (cl.switch_radix % 2 != 0)
      throw c.error("switch_radix",
                    "expected an even port count (a spine gives half its ports to each side)");
    const int leaf_ports = cl.leaf_servers() + cl.rail_spines();
    if (leaf_ports > cl.switch_radix)
      throw c.error(
          "switch_radix",
          fmt::format("expected at least {} ports: a rail leaf has {} servers down and {} spines up "
                      "(fewer servers_per_leaf, or more oversubscription)",
                      leaf_ports, cl.leaf_servers(), cl.rail_spines()));
  }
  if (cl.hosts() < 2)
    throw c.error("servers", "an evaluation needs at least two NICs (servers x gpus_per_server)");
  if (cl.shape == EvalCluster::Shape::kFatTree) {
    // A k-ary fat-tree has exactly k^3/4 hosts: the cluster must fill one.
    int k = 2;
    while (k * k * k / 4 < cl.hosts()) k += 2;
    if (k * k * k / 4 != cl.hosts()) {
      const int below = (k - 2) * (k - 2) * (k - 2) / 4;
      throw c.error("servers",
                    fmt::format("a k-ary fat-tree has k^3/4 hosts; {} servers x {} GPUs = {} NICs "
                                "fills none (nearest: {} with k={}, {} with k={})",
                                cl.servers, cl.gpus_per_server, cl.hosts(), below, k - 2, k * k * k / 4, k));
    }
    cl.k = k;
  }
  c.finish();
}

EvalFabric read_fabric(const CfgNode& n, const YAML::Node& raw, const std::vector<std::string>& profiles) {
  EvalFabric f;
  f.line = n.line();
  if (n.is_scalar()) {
    f.profile = n.scalar();
  } else {
    f.profile = n.choice("profile", profiles, "");
    if (f.profile.empty())
      throw n.error("profile", "required: a built-in fabric profile (" + join_names(profiles) + ")");
    f.name = n.str("name", "");
    f.set = read_set(n, raw);
    n.finish();
  }
  if (std::find(profiles.begin(), profiles.end(), f.profile) == profiles.end())
    throw n.error("", "unknown fabric profile '" + f.profile + "' (known: " + join_names(profiles) + ")");
  if (f.name.empty()) f.name = f.profile;
  f.name = sanitized_name(n, "name", f.name);
  return f;
}

// `{type: scenario, file: my.yaml}`: the file, relative to the evaluation's
// folder, read now so that a missing or broken file is reported here. Its
// fabric, name, seed, duration and output are the evaluation's to set.
void read_scenario_workload(const CfgNode& n, EvalWorkload& w) {
  for (const std::string& k : n.keys())
    if (k != "type" && k != "name" && k != "file" && k != "fabrics")
      throw n.error(k, "a scenario workload takes file (and name, fabrics); its workloads are in the file");
  const std::string file = n.str("file");
  namespace fs = std::filesystem;
  fs::path path(file);
  if (path.is_relative()) path = fs::path(n.file()).parent_path() / path;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw n.error("file", "cannot read the scenario file '" + path.string() + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    w.scenario = YAML::Load(ss.str());
  } catch (const YAML::Exception& e) {
    throw n.error("file", "'" + path.string() + "' is not YAML: " + e.what());
  }
  if (!w.scenario.IsMap()) throw n.error("file", "'" + path.string() + "' is not a scenario (a map)");
  if (!w.scenario["workload"] && !w.scenario["flows"])
    throw n.error("file", "'" + path.string() + "' has no workload to measure");
  w.scenario_file = path.lexically_normal().string();
  w.scenario_type = "scenario";
}

EvalWorkload read_workload(const CfgNode& n, const YAML::Node& raw, const EvalCluster& cl) {
  EvalWorkload w;
  w.line = n.line();
  if (n.is_scalar()) {  // `- latency`: a workload with nothing to set
    const std::string type = n.scalar();
    const std::vector<std::string> names = workload_type_names();
    if (std::find(names.begin(), names.end(), type) == names.end())
      throw n.error("", "unknown workload type '" + type + "' (known: " + join_names(names) + ")");
    YAML::Node map;
    map["type"] = type;
    EvalWorkload short_form = read_workload(CfgNode::load_string("type: " + type, n.file()), map, cl);
    short_form.line = n.line();
    return short_form;
  }
  if (!n.has("type")) throw n.error("type", "required: one of " + join_names(workload_type_names()));
  const std::string type = n.choice("type", workload_type_names(), "");
  w.type = type;
  for (const auto& t : kWorkloadTypes)
    if (type == t.type) w.scenario_type = t.scenario_type;
  w.name = sanitized_name(n, "name", n.str("name", type));
  for (const CfgNode& f : n.opt_list("fabrics")) w.fabrics.push_back(f.scalar());
  if (type == "scenario") {
    read_scenario_workload(n, w);
    return w;
  }
  // Every other key is the scenario workload's: mark them read here, the
  // scenario loader checks them (the evaluation reports its errors here).
  for (const std::string& k : n.keys()) {
    if (k == "type" || k == "name" || k == "sizes" || k == "fabrics") continue;
    if (k == "start") throw n.error(k, "an evaluation starts every workload at 0 (no `start`)");
    w.keys[k] = YAML::Clone(raw[k]);
  }
  if (n.has("sizes")) {
    if (n.has("size")) throw n.error("sizes", "give `size` (one point) or `sizes` (a sweep), not both");
    w.sweep_key = "size";
    for (const CfgNode& item : n.list("sizes")) w.sweep_values.push_back(item.scalar());
    if (w.sweep_values.empty()) throw n.error("sizes", "expected at least one size");
  }
  if (w.type == "latency") {
    if (!w.keys["test"]) w.keys["test"] = "write_lat";
    if (!w.keys["dst"]) w.keys["dst"] = cl.servers > 1 ? cl.gpus_per_server : 1;
  } else if (w.type == "bandwidth") {
    if (!w.keys["test"]) w.keys["test"] = "write_bw";
    if (!w.keys["dst"]) w.keys["dst"] = cl.servers > 1 ? cl.gpus_per_server : 1;
  } else if (w.type == "mpi") {
    // Point to point between two servers unless placed; collectives on every host.
    const std::string bench = w.keys["benchmark"] ? w.keys["benchmark"].Scalar() : "";
    const bool two = bench == "osu_latency" || bench == "osu_bw" || bench == "osu_bibw";
    if (two && !w.keys["hosts"] && cl.servers > 1) {
      w.keys["hosts"].push_back(0);
      w.keys["hosts"].push_back(cl.gpus_per_server);
    }
  } else if (w.type == "stream") {
    if (!w.keys["src"]) w.keys["src"] = 0;
    if (!w.keys["dst"]) w.keys["dst"] = cl.servers > 1 ? cl.gpus_per_server : 1;
  } else if (w.type == "fct") {
    const std::string cdf = n.str("cdf");
    const std::string path = eval_cdf_path(cdf);
    if (path.empty())
      throw n.error("cdf", "unknown flow-size distribution '" + cdf +
                               "' (known: " + join_names(eval_cdf_names()) + ")");
    w.keys["cdf"] = path;
  }
  return w;
}

EvalCondition read_condition(const CfgNode& n, const YAML::Node& raw) {
  EvalCondition c;
  c.line = n.line();
  if (n.is_scalar()) {
    if (n.scalar() != "baseline")
      throw n.error(
          "",
          "a condition is `baseline` or a map with name and background / incast / link_down / set / "
          "misconfig");
    c.name = "baseline";
    return c;
  }
  c.name = sanitized_name(n, "name", n.str("name"));
  if (const auto bg = n.opt_child("background")) {
    c.background_load = bg->fraction("load");
    if (c.background_load <= 0) throw bg->error("load", "expected a load above 0");
    const std::string cdf = bg->str("cdf", "storage");
    c.background_cdf = eval_cdf_path(cdf);
    if (c.background_cdf.empty())
      throw bg->error("cdf", "unknown flow-size distribution '" + cdf +
                                 "' (known: " + join_names(eval_cdf_names()) + ")");
    bg->finish();
  }
  if (const auto ic = n.opt_child("incast")) {
    c.incast_senders = static_cast<int>(ic->integer("senders", 1, 1 << 20));
    c.incast_size = format_bytes(ic->bytes("size"));
    c.incast_elsewhere = ic->choice("into", {"receiver", "elsewhere"}, "receiver") == "elsewhere";
    ic->finish();
  }
  if (const auto ld = n.opt_child("link_down")) {
    c.down_at = ld->time("at");
    if (ld->has("up_at")) {
      c.up_at = ld->time("up_at");
      if (*c.up_at <= *c.down_at) throw ld->error("up_at", "expected a time after `at`");
    }
    c.link = ld->str("link", "auto");
    ld->finish();
  }
  if (n.has("distance")) {
    c.distance = n.str("distance");
    if (!(c.distance.ends_with("km") || c.distance.ends_with("m")))
      throw n.error("distance", "expected a length with its unit, e.g. 10km (got \"" + c.distance + "\")");
    std::vector<std::string> cables;
    for (const CableClassInfo& k : cable_classes()) cables.push_back(k.name);
    c.cable = n.choice("cable", cables, "");
  } else if (n.has("cable")) {
    throw n.error("cable", "has no effect without a distance: it names what carries the stretched links");
  }
  c.set = read_set(n, raw);
  // Checked where every scenario key is, when each cell loads (check_cells).
  if (!n.opt_list("misconfig").empty()) c.misconfig = YAML::Clone(raw["misconfig"]);
  for (const CfgNode& f : n.opt_list("fabrics")) c.fabrics.push_back(f.scalar());
  for (const CfgNode& w : n.opt_list("workloads")) c.workloads.push_back(w.scalar());
  n.finish();
  if (c.is_baseline() && c.name != "baseline")
    throw n.error("",
                  "condition '" + c.name +
                      "' changes nothing: give background, incast, link_down, distance, set or misconfig");
  return c;
}

template <class T>
void check_unique(const CfgNode& list_owner, const char* key, const std::vector<T>& items) {
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i)
    if (!seen.insert(items[i].name).second)
      throw InputError(list_owner.file(), items[i].line, 0, std::string(key) + "[" + std::to_string(i) + "]",
                       "duplicate name '" + items[i].name + "': give each a distinct `name`");
}

// A sweep's `workloads:` list: names of this evaluation's workloads, at least
// one. Sweeps run at baseline, so the evaluation must have that condition.
std::vector<std::string> sweep_workloads(const CfgNode& sweep, const Evaluation& ev,
                                         const std::string& what) {
  std::vector<std::string> names;
  for (const CfgNode& w : sweep.list("workloads")) {
    const std::string name = w.scalar();
    const auto it = std::find_if(ev.workloads.begin(), ev.workloads.end(),
                                 [&](const EvalWorkload& x) { return x.name == name; });
    if (it == ev.workloads.end()) throw w.error("", "no workload named '" + name + "' in this evaluation");
    if (what == "scale" && it->type == "scenario")
      throw w.error("",
                    "'" + name + "' is a scenario of its own topology: the scale sweep resizes the cluster");
    if (what == "tuning" && !it->fabrics.empty())
      throw w.error("", "'" + name +
                            "' runs on some fabrics only: the tuning sweep counts knobs over the same "
                            "workloads for every fabric");
    names.push_back(name);
  }
  if (names.empty())
    throw sweep.error("workloads", "expected at least one workload for the " + what + " sweep");
  if (std::none_of(ev.conditions.begin(), ev.conditions.end(),
                   [](const EvalCondition& c) { return c.is_baseline(); }))
    throw sweep.error("", "the " + what + " sweep runs at baseline: add the condition `baseline`");
  return names;
}

Evaluation load(const CfgNode& root, const YAML::Node& doc, const std::string& file) {
  Evaluation ev;
  ev.file = file;
  ev.name = sanitized_name(root, "name", root.str("name", "evaluation"));
  if (root.has("seeds")) {
    ev.seeds.clear();
    for (const CfgNode& s : root.list("seeds")) {
      const std::string t = s.scalar();
      char* end = nullptr;
      const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
      if (t.empty() || *end != '\0' || t[0] == '-') throw s.error("", "expected a seed (integer >= 0)");
      if (std::find(ev.seeds.begin(), ev.seeds.end(), v) != ev.seeds.end())
        throw s.error("", "duplicate seed");
      ev.seeds.push_back(v);
    }
    if (ev.seeds.empty()) throw root.error("seeds", "expected at least one seed");
  }
  ev.duration = root.time("duration", ev.duration);
  read_cluster(root.child("cluster"), ev.cluster);

  const std::vector<std::string> profiles = profile_names();
  const auto fabrics = root.list("fabrics");
  for (size_t i = 0; i < fabrics.size(); ++i)
    ev.fabrics.push_back(read_fabric(fabrics[i], doc["fabrics"][i], profiles));
  if (ev.fabrics.empty()) throw root.error("fabrics", "expected at least one fabric");
  check_unique(root, "fabrics", ev.fabrics);

  const auto workloads = root.list("workloads");
  for (size_t i = 0; i < workloads.size(); ++i) {
    ev.workloads.push_back(read_workload(workloads[i], doc["workloads"][i], ev.cluster));
  }
  if (ev.workloads.empty()) throw root.error("workloads", "expected at least one workload");
  check_unique(root, "workloads", ev.workloads);
  for (size_t i = 0; i < ev.workloads.size(); ++i)
    for (const auto& f : ev.workloads[i].fabrics)
      if (std::none_of(ev.fabrics.begin(), ev.fabrics.end(),
                       [&](const EvalFabric& x) { return x.name == f; }))
        throw InputError(file, ev.workloads[i].line, 0, "workloads[" + std::to_string(i) + "].fabrics",
                         "no fabric named '" + f + "' in this evaluation");

  if (root.has("conditions")) {
    const auto conds = root.list("conditions");
    for (size_t i = 0; i < conds.size(); ++i)
      ev.conditions.push_back(read_condition(conds[i], doc["conditions"][i]));
  } else {
    EvalCondition baseline;
    baseline.name = "baseline";
    ev.conditions.push_back(baseline);
  }
  if (ev.conditions.empty()) throw root.error("conditions", "expected at least one condition");
  check_unique(root, "conditions", ev.conditions);
  for (size_t i = 0; i < ev.conditions.size(); ++i) {
    const EvalCondition& c = ev.conditions[i];
    for (const auto& f : c.fabrics)
      if (std::none_of(ev.fabrics.begin(), ev.fabrics.end(),
                       [&](const EvalFabric& x) { return x.name == f; }))
        throw InputError(file, c.line, 0, "conditions[" + std::to_string(i) + "].fabrics",
                         "no fabric named '" + f + "' in this evaluation");
    for (const auto& w : c.workloads)
      if (std::none_of(ev.workloads.begin(), ev.workloads.end(),
                       [&](const EvalWorkload& x) { return x.name == w; }))
        throw InputError(file, c.line, 0, "conditions[" + std::to_string(i) + "].workloads",
                         "no workload named '" + w + "' in this evaluation");
    // An incast elsewhere needs the measured source and destination: a perftest's.
    const int hosts = ev.cluster.servers * ev.cluster.gpus_per_server;
    if (c.incast_elsewhere && c.incast_senders > hosts - 2)
      throw InputError(file, c.line, 0, "conditions[" + std::to_string(i) + "].incast.senders",
                       fmt::format("expected at most {} senders into another host: the cluster has {} hosts, "
                                   "less the measured destination and the incast's receiver",
                                   hosts - 2, hosts));
    if (c.incast_elsewhere)
      for (const EvalWorkload& w : ev.workloads)
        if (w.scenario_type != "perftest" &&
            (c.workloads.empty() ||
             std::find(c.workloads.begin(), c.workloads.end(), w.name) != c.workloads.end()))
          throw InputError(
              file, c.line, 0, "conditions[" + std::to_string(i) + "].incast.into",
              "`elsewhere` puts the measured workload's source among the incast's senders, which "
              "only latency and bandwidth workloads name; workload '" +
                  w.name + "' is a " + w.type + ": list the perftest workloads under `workloads:`");
    // A distance stretches the evaluation's cluster; a scenario workload brings its own topology.
    if (!c.distance.empty())
      for (const EvalWorkload& w : ev.workloads)
        if (w.type == "scenario" && (c.workloads.empty() || std::find(c.workloads.begin(), c.workloads.end(),
                                                                      w.name) != c.workloads.end()))
          throw InputError(
              file, c.line, 0, "conditions[" + std::to_string(i) + "].distance",
              "workload '" + w.name +
                  "' runs its own scenario's topology, which a distance cannot stretch: list the "
                  "cluster's workloads under the condition's `workloads:`");
  }

  if (const auto tn = root.opt_child("tuning")) {
    ev.tuning.line = tn->line();
    ev.tuning.workloads = sweep_workloads(*tn, ev, "tuning");
    ev.tuning.threshold = tn->fraction("threshold", 0.10);
    if (ev.tuning.threshold <= 0) throw tn->error("threshold", "expected a share above 0, e.g. 10%");
    for (const CfgNode& k : tn->opt_list("keys")) {
      const std::string key = k.scalar();
      if (key.rfind("fabric.", 0) != 0 || key == "fabric.profile")
        throw k.error("", "expected a fabric setting (fabric.*, not fabric.profile)");
      ev.tuning.keys.push_back(key);
    }
    tn->finish();
  }

  if (const auto an = root.opt_child("assumptions")) {
    ev.assumptions.line = an->line();
    ev.assumptions.workloads = sweep_workloads(*an, ev, "assumption");
    an->finish();
  }

  if (const auto sn = root.opt_child("scale")) {
    ev.scale.line = sn->line();
    if (ev.cluster.shape == EvalCluster::Shape::kFatTree)
      throw sn->error(
          "", "a fat-tree's size is fixed by its radix: scale a rail-optimized or leaf-spine cluster");
    for (const CfgNode& n : sn->list("servers")) {
      const std::string t = n.scalar();
      char* end = nullptr;
      const long v = std::strtol(t.c_str(), &end, 10);
      if (t.empty() || *end != '\0' || v < 1 || v > 8192)
        throw n.error("", "expected a server count 1..8192");
      if (v == ev.cluster.servers) continue;  // the cluster itself is the first point
      if (std::find(ev.scale.servers.begin(), ev.scale.servers.end(), v) != ev.scale.servers.end())
        throw n.error("", "duplicate server count");
      if (v * ev.cluster.gpus_per_server < 2) throw n.error("", "a cluster needs at least two NICs");
      ev.scale.servers.push_back(static_cast<int>(v));
    }
    std::sort(ev.scale.servers.begin(), ev.scale.servers.end());
    if (ev.scale.servers.empty())
      throw sn->error("servers", "expected other server counts than the cluster's");
    ev.scale.workloads = sweep_workloads(*sn, ev, "scale");
    sn->finish();
  }

  // Classes the evaluation's links may take, each priced once.
  std::vector<std::string> cables;
  const auto priced = [&](const std::string& c) {
    if (!c.empty() && std::find(cables.begin(), cables.end(), c) == cables.end()) cables.push_back(c);
  };
  priced(ev.cluster.host_cable);
  priced(ev.cluster.fabric_cable);
  for (const EvalCondition& c : ev.conditions) priced(c.cable);
  const std::optional<CfgNode> cost = root.opt_child("cost");
  for (const EvalFabric& f : ev.fabrics) {
    const CostFamily family = cost_family_of(f.profile);
    ev.cost.push_back(cost ? load_cost_inputs(*cost, family, cables) : default_cost_inputs(family, cables));
  }

  // Weights: every criterion named must be known and measured by some workload.
  if (const auto wn = root.opt_child("weights")) {
    double sum = 0;
    for (const std::string& k : wn->keys()) {
      const auto& crit = eval_criteria();
      if (std::none_of(crit.begin(), crit.end(), [&](const auto& c) { return c.first == k; })) {
        std::vector<std::string> names;
        names.reserve(crit.size());
        for (const auto& c : crit) names.push_back(c.first);
        throw wn->error(k, "unknown criterion (known: " + join_names(names) + ")");
      }
      const double w = wn->real(k, 0.0, 1e6);
      ev.weights.weight.emplace_back(k, w);
      sum += w;
    }
    if (!(sum > 0)) throw root.error("weights", "expected weights that sum to a positive number");
  } else {
    for (const auto& c : eval_criteria()) ev.weights.weight.emplace_back(c.first, 1.0);
  }
  root.finish();
  return ev;
}

}  // namespace

int EvalCluster::rail_spines() const {
  ClusterConfig cc;
  cc.servers = servers;
  cc.gpus_per_server = gpus_per_server;
  cc.topology = ClusterTopology::kRail;
  cc.oversubscription = oversubscription;
  cc.nic_link = cc.fabric_link = LinkSpec{nic_rate, cable_delay};
  if (servers > servers_per_leaf) cc.servers_per_leaf = servers_per_leaf;
  return cluster_spines(cc);
}

bool EvalCluster::needs_core_tier() const {
  const int units = (servers + leaf_servers() - 1) / leaf_servers();
  return shape == Shape::kRailOptimized && gpus_per_server * units > switch_radix;
}

std::string EvalCluster::shape_name() const {
  switch (shape) {
    case Shape::kRailOptimized:
      return "rail-optimized";
    case Shape::kLeafSpine:
      return "leaf-spine";
    case Shape::kFatTree:
      return "fat-tree";
  }
  return "?";
}

const std::vector<std::pair<std::string, std::string>>& eval_criteria() {
  static const std::vector<std::pair<std::string, std::string>> c = {
      {"latency", "unloaded small-message latency (latency workloads, baseline: p50)"},
      {"tail_latency", "small-message p99.9 under the loaded conditions (latency workloads)"},
      {"bandwidth", "point-to-point bandwidth (bandwidth workloads, baseline)"},
      {"incast", "incast completion time (incast workloads)"},
      {"permutation", "permutation completion time (permutation and all-to-all workloads)"},
      {"collective", "collective busbw averaged over sizes (collective workloads)"},
      {"training", "training iteration time (training workloads)"},
      {"fct", "p99 FCT slowdown (fct workloads)"},
      {"scenario", "completion time of the user's own scenarios (scenario workloads)"},
      {"mpi_latency",
       "MPI small-message latency (mpi workloads of a latency benchmark: osu_latency, osu_allreduce, "
       "osu_alltoall, osu_barrier; the smallest message)"},
      {"mpi_bandwidth", "MPI bandwidth (mpi workloads of osu_bw, osu_bibw, osu_mbw_mr; the largest message)"},
      {"mpi_step", "MPI application step time (halo workloads: a halo exchange or solver step)"},
      {"storage", "NVMe-oF p99 completion latency (storage workloads)"},
      {"stream", "real-time stream p99 message latency (stream workloads)"},
      {"congestion",
       "worst slowdown of a workload beside traffic (background load or an incast, nothing else changed) "
       "against its baseline"},
      {"resilience",
       "worst slowdown of a workload under a failure, a mis-setting or distance (the other non-baseline "
       "conditions) against its baseline"},
      {"cost", "total cost of ownership of the cluster's fabric over the cost model's years"},
      {"tuning",
       "settings whose mis-setting (x0.5, x2, flipped) costs more than the threshold (tuning sweep)"},
  };
  return c;
}

std::string eval_cdf_path(const std::string& name) {
  for (const auto& [n, p] : cdf_table())
    if (n == name) return p;
  return {};
}

std::vector<std::string> eval_cdf_names() {
  std::vector<std::string> v;
  v.reserve(cdf_table().size());
  for (const auto& [n, p] : cdf_table()) v.push_back(n);
  return v;
}

bool is_osu_bandwidth(const EvalWorkload& w) {
  if (w.type != "mpi" || !w.keys["benchmark"]) return false;
  try {
    // The same test the osu workload makes when it writes its rows as
    // bandwidth_MBps rather than latency_us.
    return osu_windowed(osu_bench(w.keys["benchmark"].Scalar()));
  } catch (const std::invalid_argument&) {
    return false;  // the scenario loader refuses it, at the workload
  }
}

Evaluation load_evaluation_text(const std::string& text, const std::string& pseudo_file,
                                const std::vector<std::string>& overrides) {
  CfgNode root = CfgNode::load_string(text, pseudo_file);
  apply_overrides(root, overrides);
  Evaluation ev = load(root, root.yaml(), pseudo_file);
  ev.text = text;
  ev.overrides = overrides;
  return ev;
}

Evaluation load_evaluation_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", "cannot read the evaluation file");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_evaluation_text(ss.str(), path, overrides);
}

bool is_evaluation_file(const std::string& path) {
  const CfgNode root = CfgNode::load_file(path);
  return root.has("fabrics");
}

}  // namespace rdmasim
