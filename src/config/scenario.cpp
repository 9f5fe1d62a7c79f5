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

constexpr int64_t kMaxHosts = 131072;  // beyond this a build exhausts memory before a single event runs

template <class V>
void visit_link(V& v, LinkSpec& l) {
  v.rate({"rate", "line rate of each link"}, l.rate);
  v.time({"delay", "one-way propagation delay of each link"}, l.delay);
}

// topology: the keys of the chosen type, then its links. topology.switch
// belongs to the fabric's switch part (read_switch_params).
template <class V>
void visit_topology(V& v, TopologySpec& ts) {
  v.choice(Key{"type", "how the hosts and switches are wired", kRequired}, ts.type,
           {"star", "dumbbell", "leaf-spine", "fat-tree", "servers", "chain", "file"});
  const std::string& t = ts.type;
  if (t == "star") {
    v.count(Key{"hosts", "hosts on the one switch", kRequired}, ts.hosts, 2, 100000);
  } else if (t == "dumbbell") {
    v.count(Key{"left", "hosts on the left switch", kRequired}, ts.left, 1, 100000);
    v.count(Key{"right", "hosts on the right switch", kRequired}, ts.right, 1, 100000);
  } else if (t == "leaf-spine") {
    v.count(Key{"leaves", "leaf (top-of-rack) switches", kRequired}, ts.leaves, 1, 4096);
    v.count(Key{"hosts_per_leaf", "hosts under each leaf", kRequired}, ts.hosts_per_leaf, 1, 4096);
    v.count_or({"spines", "spine switches, each linked to every leaf; auto: from oversubscription"},
               ts.spines, "auto", 1, 4096);
    // The spine count either is given or follows from the ratio: both would
    // build one network and record another.
    if (ts.spines == 0)
      v.real({"oversubscription", "leaf downlink to uplink capacity ratio that sets the spine count"},
             ts.oversubscription, 1.0, 1024.0);
    else
      v.refuse("oversubscription",
               "has no effect when spines is given (the ratio follows from it): give one of the two");
  } else if (t == "fat-tree") {
    v.count(Key{"k", "switch radix of a k-ary fat-tree (k^3/4 hosts, 5k^2/4 switches)", kRequired}, ts.k, 2,
            64);
    v.check(ts.k % 2 == 0, "k", "expected an even k (a k-ary fat-tree needs k/2 up and k/2 down ports)");
  } else if (t == "servers") {
    v.count(Key{"servers", "GPU servers, one NIC per GPU, NIC g on rail leaf g", kRequired}, ts.servers, 1,
            8192);
    v.count({"gpus_per_server", "GPUs (and rails) per server"}, ts.gpus_per_server, 1, 64);
    v.count({"spines", "spines joining the rails; 0: rails are not joined"}, ts.spines, 0, 4096);
  } else if (t == "chain") {
    v.count({"switches", "switches in a row between the two hosts"}, ts.switches, 0, 16);
  } else {
    v.path(
        Key{"file", "topology in HPCC's ns-3 format (nodes, switch ids, then one link per line)", kRequired},
        ts.file);
  }
  // Refuse sizes that would exhaust memory before a single event runs.
  int64_t hosts = 0;
  const char* at = "type";
  if (t == "leaf-spine") {
    hosts = int64_t{ts.leaves} * ts.hosts_per_leaf;
    at = "hosts_per_leaf";
  } else if (t == "servers") {
    hosts = int64_t{ts.servers} * ts.gpus_per_server;
    at = "servers";
  } else if (t == "fat-tree") {
    hosts = int64_t{ts.k} * ts.k * ts.k / 4;
    at = "k";
  }
  v.check(hosts <= kMaxHosts, at,
          "expected at most " + std::to_string(kMaxHosts) + " hosts (this topology has " +
              std::to_string(hosts) + ")");
  if (t == "file") {
    v.refuse("link", "has no effect: a topology file gives every link its own rate and delay");
    return;
  }
  v.block({"link", "host links (the fabric profile's by default)"}, [&](auto& b) { visit_link(b, ts.link); });
  if constexpr (V::kReads) ts.fabric_link = ts.link;
  if (t == "dumbbell")
    v.block({"bottleneck", "the link between the two switches (default: as link)"},
            [&](auto& b) { visit_link(b, ts.fabric_link); });
  else if (t == "leaf-spine" || t == "fat-tree" || t == "servers")
    v.block({"fabric_link", "switch-to-switch links (default: as link)"},
            [&](auto& b) { visit_link(b, ts.fabric_link); });
}

// faults[i]: 'node:port' as written, e.g. agg0_0:2.
struct FaultLinkCodec {
  static void read(const CfgNode& n, const char* key, FaultSpec& f) {
    const std::string link = n.str(key);
    const auto colon = link.rfind(':');
    int port = -1;
    try {
      if (colon != std::string::npos && colon > 0) port = std::stoi(link.substr(colon + 1));
      if (colon == std::string::npos || std::to_string(port) != link.substr(colon + 1)) port = -1;
    } catch (...) {
      port = -1;
    }
    if (port < 0) throw n.error(key, "expected 'node:port', e.g. agg0_0:2");
    f.node = link.substr(0, colon);
    f.port = port;
  }
  static nlohmann::ordered_json echo(const FaultSpec& f) { return f.node + ":" + std::to_string(f.port); }
  static std::string form() { return "node:port, e.g. agg0_0:2"; }
};

template <class V>
void visit_fault(V& v, FaultSpec& f) {
  v.time(Key{"at", "when the link changes state", kRequired}, f.at);
  v.custom(Key{"link", "one end of the link: a topology node and its port index (in link order)", kRequired},
           f, FaultLinkCodec{});
  v.choice(Key{"action", "take the link down or bring it back up", kRequired}, f.up,
           {{"down", false}, {"up", true}});
}

template <class V>
void visit_output(V& v, OutputSpec& o) {
  v.text({"dir", "folder the run writes to (default out/<name>; `run -o` overrides)"}, o.dir);
  v.flag({"flows_csv", "write flows.csv, one line per flow"}, o.flows_csv);
  v.flag({"ports_csv", "write ports.csv, one line per switch port"}, o.ports_csv);
  v.block({"timeseries", "sample every port's queue and rate into timeseries.csv"}, [&](auto& b) {
    b.time(Key{"interval", "sampling interval", kRequired}, o.timeseries_interval);
    b.check(o.timeseries_interval >= Time::from_ns(10), "interval",
            "expected a sampling interval of at least 10ns");
    b.time({"start", "first sample"}, o.timeseries_start);
  });
}

// The scenario's own keys (topology, fabric, workload and faults are visited by their parts).
template <class V>
void visit_run(V& v, Scenario& s) {
  v.text({"name", "names the run and its output folder (default: the file's stem)"}, s.name);
  // The name becomes a folder under the output directory and a JSON string:
  // a path separator, "..", or a byte JSON cannot hold would write elsewhere
  // or fail after the whole simulation.
  const bool safe_chars = std::all_of(s.name.begin(), s.name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' || ch == '+';
  });
  v.check(
      !s.name.empty() && s.name.size() <= 128 && safe_chars && s.name != "." && s.name != "..", "name",
      "expected a name of 1-128 letters, digits, '-', '_', '.' or '+' (it names the output folder), got '" +
          s.name + "'");
  v.count({"seed", "seeds every random stream; the same seed gives the same bytes"}, s.seed, 0, INT64_MAX);
  v.time({"duration", "simulated time the run may take; flows unfinished by then are reported as such"},
         s.duration);
  v.check(s.duration > Time::zero(), "duration", "expected a positive simulated duration");
}

void read_topology(const CfgNode& root, Scenario& s) {
  const CfgNode t = root.child("topology");
  TopologySpec& ts = s.topology;
  ts.line = t.line();
  ts.link = s.fabric.link;
  ts.spines = 0;
  ParamReader r(t);
  visit_topology(r, ts);
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
    ParamReader r(f);
    visit_fault(r, fs);
    f.finish();
    s.faults.push_back(fs);
  }
}

template <class V>
std::vector<KeyInfo> schema_of(V visit) {
  ParamSchema schema;
  visit(schema);
  return schema.keys;
}

}  // namespace

Scenario load_scenario(const CfgNode& root) {
  Scenario s;
  s.file = root.file();
  s.name = fs::path(root.file()).stem().string();
  ParamReader r(root);
  visit_run(r, s);
  read_fabric(root, s);  // first: the profile provides topology.switch defaults
  read_topology(root, s);
  read_workloads(root, s);
  read_faults(root, s);
  s.output.dir = "out/" + s.name;
  r.block("output", [&](ParamReader& b) { visit_output(b, s.output); });
  root.finish();
  // Semantic checks that need the topology.
  const Topology t = build_topology(s);
  // A corrupted frame on a credit link would also lose its credits: IB's
  // FCTBS/ABR resynchronisation that recovers them is not modelled.
  if (s.fabric.ib.enabled)
    for (const TopoLink& l : t.links)
      if (l.error_rate > 0.0)
        throw root.child("topology")
            .error(
                "file",
                "link error rates (column 5) are not modelled on InfiniBand (credits lost with a corrupted "
                "packet are not resynchronised): expected 0, or an Ethernet profile");
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

namespace {

// The echo of `x` (a copy: the visits take mutable references; echo only reads).
template <class T, class Visit>
nlohmann::ordered_json echo_of(T x, Visit visit) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  ParamEcho e(j);
  visit(e, x);
  return j;
}

}  // namespace

nlohmann::ordered_json topology_json(const TopologySpec& ts) {
  return echo_of(ts, [](ParamEcho& e, TopologySpec& t) { visit_topology(e, t); });
}

nlohmann::ordered_json fault_json(const FaultSpec& f) {
  return echo_of(f, [](ParamEcho& e, FaultSpec& x) { visit_fault(e, x); });
}

std::vector<KeyInfo> run_keys() {
  Scenario s;
  s.name = "x";
  return schema_of([&](ParamSchema& v) {
    visit_run(v, s);
    v.block({"output", "what the run writes besides results.json"},
            [&](ParamSchema& b) { visit_output(b, s.output); });
  });
}

nlohmann::ordered_json run_defaults() {
  Scenario s;
  s.name = "<file stem>";
  s.output.dir = "out/<name>";
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  ParamEcho e(j);
  visit_run(e, s);
  e.block("output", [&](ParamEcho& b) { visit_output(b, s.output); });
  return j;
}

std::vector<std::string> topology_type_names() {
  return {"star", "dumbbell", "leaf-spine", "fat-tree", "servers", "chain", "file"};
}

std::vector<KeyInfo> topology_keys(const std::string& type) {
  TopologySpec ts;
  ts.type = type;
  ts.spines = 0;
  return schema_of([&](ParamSchema& v) { visit_topology(v, ts); });
}

nlohmann::ordered_json topology_defaults(const std::string& type, const LinkSpec& link) {
  TopologySpec ts;
  ts.type = type;
  ts.spines = 0;
  ts.link = link;
  ts.fabric_link = link;
  return topology_json(ts);
}

std::vector<KeyInfo> fault_keys() {
  FaultSpec f;
  return schema_of([&](ParamSchema& v) { visit_fault(v, f); });
}

}  // namespace rdmasim
