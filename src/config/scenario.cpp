#include "config/scenario.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "config/units_parse.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"
#include "topo/hpcc_format.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

LinkSpec read_link(const CfgNode& parent, std::string_view key, LinkSpec def) {
  auto n = parent.opt_child(key);
  if (!n) return def;
  LinkSpec l;
  l.rate = n->rate("rate", def.rate);
  l.delay = n->time("delay", def.delay);
  n->finish();
  return l;
}

}  // namespace

namespace {

void read_topology(const CfgNode& root, Scenario& s) {
  const CfgNode t = root.child("topology");
  TopologySpec& ts = s.topology;
  ts.line = t.line();
  ts.type = t.choice("type", {"star", "dumbbell", "leaf-spine", "fat-tree", "servers", "chain", "file"});
  ts.link = read_link(t, "link", s.fabric.link);
  if (ts.type == "star") {
    ts.hosts = static_cast<int>(t.integer("hosts", 2, 100000));
  } else if (ts.type == "dumbbell") {
    ts.left = static_cast<int>(t.integer("left", 1, 100000));
    ts.right = static_cast<int>(t.integer("right", 1, 100000));
    ts.fabric_link = read_link(t, "bottleneck", ts.link);
  } else if (ts.type == "leaf-spine") {
    ts.leaves = static_cast<int>(t.integer("leaves", 1, 4096));
    ts.hosts_per_leaf = static_cast<int>(t.integer("hosts_per_leaf", 1, 4096));
    ts.spines = static_cast<int>(t.integer("spines", 0, 0, 4096));
    ts.oversubscription = t.real("oversubscription", 1.0, 1.0, 1024.0);
    // The spine count either is given or follows from the ratio: both would
    // build one network and record another.
    if (t.has("spines") && t.has("oversubscription"))
      throw t.error("oversubscription",
                    "has no effect when spines is given (the ratio follows from it): give one of the two");
    ts.fabric_link = read_link(t, "fabric_link", ts.link);
  } else if (ts.type == "fat-tree") {
    ts.k = static_cast<int>(t.integer("k", 2, 64));
    if (ts.k % 2 != 0)
      throw t.error("k", "expected an even k (a k-ary fat-tree needs k/2 up and k/2 down ports)");
    ts.fabric_link = read_link(t, "fabric_link", ts.link);
  } else if (ts.type == "servers") {
    ts.servers = static_cast<int>(t.integer("servers", 1, 8192));
    ts.gpus_per_server = static_cast<int>(t.integer("gpus_per_server", 8, 1, 64));
    ts.spines = static_cast<int>(t.integer("spines", 0, 0, 4096));
    ts.fabric_link = read_link(t, "fabric_link", ts.link);
  } else if (ts.type == "chain") {
    ts.switches = static_cast<int>(t.integer("switches", 1, 0, 16));
  } else {
    ts.file = resolve_data_path(t, "file", t.str("file"));
  }
  // Refuse sizes that would exhaust memory before a single event runs.
  constexpr int64_t kMaxHosts = 131072;
  int64_t hosts = 0;
  const char* key = "type";
  if (ts.type == "leaf-spine") {
    hosts = int64_t{ts.leaves} * ts.hosts_per_leaf;
    key = "hosts_per_leaf";
  } else if (ts.type == "servers") {
    hosts = int64_t{ts.servers} * ts.gpus_per_server;
    key = "servers";
  } else if (ts.type == "fat-tree") {
    hosts = int64_t{ts.k} * ts.k * ts.k / 4;
    key = "k";
  }
  if (hosts > kMaxHosts)
    throw t.error(key, "expected at most " + std::to_string(kMaxHosts) + " hosts (this topology has " +
                           std::to_string(hosts) + ")");

  // Switch hardware; the profile supplies the defaults.
  if (auto n = t.opt_child("switch")) {
    read_switch_params(*n, s.fabric.sw);
    n->finish();
  }
  t.finish();
}

void read_fabric(const CfgNode& root, Scenario& s) {
  auto f = root.opt_child("fabric");
  const std::string profile_name = f ? f->str("profile", "ethernet-lossy") : "ethernet-lossy";
  try {
    s.fabric = find_profile(profile_name).config;
  } catch (const std::invalid_argument& e) {
    throw f->error("profile", e.what());
  }
  s.profile = profile_name;
  if (!f) return;
  read_fabric_params(*f, s.fabric);  // the keys its parts declare (fabric/schema.cpp)
  f->finish();
}

void read_workloads(const CfgNode& root, Scenario& s) {
  const auto items = root.list("workload");
  if (items.empty()) throw root.error("workload", "expected at least one workload");
  for (const CfgNode& w : items) {
    WorkloadSpec ws;
    ws.line = w.line();
    ws.type = w.choice("type", workload_type_names());
    find_workload_type(ws.type)->parse(w, s, ws);
    w.finish();
    s.workloads.push_back(ws);
  }
}

void read_faults(const CfgNode& root, Scenario& s) {
  for (const CfgNode& f : root.opt_list("faults")) {
    FaultSpec fs;
    fs.line = f.line();
    fs.at = f.time("at");
    const std::string link = f.str("link");
    const auto colon = link.rfind(':');
    int port = -1;
    try {
      if (colon != std::string::npos && colon > 0) port = std::stoi(link.substr(colon + 1));
      if (colon == std::string::npos || std::to_string(port) != link.substr(colon + 1)) port = -1;
    } catch (...) {
      port = -1;
    }
    if (port < 0) throw f.error("link", "expected 'node:port', e.g. agg0_0:2");
    fs.node = link.substr(0, colon);
    fs.port = port;
    fs.up = f.choice("action", {"down", "up"}) == "up";
    f.finish();
    s.faults.push_back(fs);
  }
}

}  // namespace

Scenario load_scenario(const CfgNode& root) {
  Scenario s;
  s.file = root.file();
  s.name = root.str("name", fs::path(root.file()).stem().string());
  // The name becomes a folder under the output directory and a JSON string:
  // a path separator, "..", or a byte JSON cannot hold would write elsewhere
  // or fail after the whole simulation.
  const bool safe_chars = std::all_of(s.name.begin(), s.name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' || ch == '+';
  });
  if (s.name.empty() || s.name.size() > 128 || !safe_chars || s.name == "." || s.name == "..")
    throw root.error("name",
                     "expected a name of 1-128 letters, digits, '-', '_', '.' or '+' (it names the "
                     "output folder), got '" +
                         s.name + "'");
  s.seed = static_cast<uint64_t>(root.integer("seed", 1, 0, INT64_MAX));
  s.duration = root.time("duration", Time::from_ms(10));
  if (s.duration <= Time::zero()) throw root.error("duration", "expected a positive simulated duration");
  read_fabric(root, s);  // first: the profile provides topology.switch defaults
  read_topology(root, s);
  read_workloads(root, s);
  read_faults(root, s);
  if (auto o = root.opt_child("output")) {
    s.output.dir = o->str("dir", "out/" + s.name);
    s.output.flows_csv = o->boolean("flows_csv", true);
    s.output.ports_csv = o->boolean("ports_csv", true);
    if (auto ts = o->opt_child("timeseries")) {
      s.output.timeseries_interval = ts->time("interval");
      if (s.output.timeseries_interval < Time::from_ns(10))
        throw ts->error("interval", "expected a sampling interval of at least 10ns");
      s.output.timeseries_start = ts->time("start", Time::zero());
      ts->finish();
    }
    o->finish();
  } else {
    s.output.dir = "out/" + s.name;
  }
  root.finish();
  // Semantic checks that need the topology.
  const Topology t = build_topology(s);
  if (!s.faults.empty()) {
    const auto faults = root.list("faults");
    std::vector<int> degree(t.nodes.size(), 0);
    for (const auto& l : t.links) {
      ++degree[l.a];
      ++degree[l.b];
    }
    for (size_t i = 0; i < s.faults.size(); ++i) {
      const FaultSpec& fs = s.faults[i];
      int id = -1;
      for (size_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].name == fs.node) id = static_cast<int>(n);
      if (id < 0) throw faults[i].error("link", "no node named '" + fs.node + "' in the topology");
      if (fs.port >= degree[id])
        throw faults[i].error("link",
                              "expected a port of '" + fs.node + "' below " + std::to_string(degree[id]));
    }
  }
  const auto items = root.list("workload");
  for (size_t i = 0; i < s.workloads.size(); ++i)
    find_workload_type(s.workloads[i].type)->check(items[i], s.workloads[i], t, s);
  return s;
}

namespace {

void apply_overrides(CfgNode& root, const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("<--set>", 0, 0, o, "expected key=value, e.g. --set topology.k=8");
    apply_override(root, o.substr(0, eq), o.substr(eq + 1));
  }
}

}  // namespace

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  CfgNode root = CfgNode::load_file(path);
  apply_overrides(root, overrides);
  return load_scenario(root);
}

Scenario load_scenario_text(const std::string& text, const std::string& pseudo_file,
                            const std::vector<std::string>& overrides) {
  CfgNode root = CfgNode::load_string(text, pseudo_file);
  apply_overrides(root, overrides);
  return load_scenario(root);
}

Topology build_topology(const Scenario& s) {
  const TopologySpec& ts = s.topology;
  Topology t;
  try {
    if (ts.type == "star")
      t = make_star(ts.hosts, ts.link);
    else if (ts.type == "dumbbell")
      t = make_dumbbell(ts.left, ts.right, ts.link, ts.fabric_link);
    else if (ts.type == "leaf-spine")
      t = make_leaf_spine(ts.leaves, ts.hosts_per_leaf, ts.spines, ts.oversubscription, ts.link,
                          ts.fabric_link);
    else if (ts.type == "fat-tree")
      t = make_fat_tree(ts.k, ts.link, ts.fabric_link);
    else if (ts.type == "servers")
      t = make_servers(ts.servers, ts.gpus_per_server, ts.spines, ts.link, ts.fabric_link);
    else if (ts.type == "chain")
      t = make_chain(ts.switches, ts.link);
    else
      t = topology_from_edge_list(load_edge_list_topology(ts.file));
  } catch (const std::invalid_argument& e) {
    throw InputError(s.file, ts.line, 0, "topology", e.what());
  }
  const std::string why = check_connected(t);
  if (!why.empty()) throw InputError(s.file, ts.line, 0, "topology", why);
  return t;
}

}  // namespace rdmasim
