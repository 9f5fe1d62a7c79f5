#include "evaluate/cells.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "collective/cluster.h"
#include "config/error.h"
#include "config/scenario.h"
#include "config/units_parse.h"

namespace rdmasim {
namespace {

// Stores `value` (YAML text: a scalar or a flow list) at a dotted key of
// maps, creating them on the way. The scenario loader checks the key.
void set_dotted(YAML::Node root, const std::string& dotted, const std::string& value) {
  YAML::Node cur = root;
  size_t start = 0;
  for (;;) {
    const size_t dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      cur[part] = YAML::Load(value);
      return;
    }
    if (!cur[part] || !cur[part].IsMap()) cur[part] = YAML::Node(YAML::NodeType::Map);
    cur.reset(cur[part]);
    start = dot + 1;
  }
}

YAML::Node link_node(Rate rate, Time delay) {
  YAML::Node l;
  l["rate"] = format_rate(rate);
  l["delay"] = format_time(delay);
  return l;
}

YAML::Node topology_node(const EvalCluster& c) {
  YAML::Node t;
  switch (c.shape) {
    case EvalCluster::Shape::kRailOptimized: {
      ClusterConfig cc;
      cc.servers = c.servers;
      cc.gpus_per_server = c.gpus_per_server;
      cc.topology = ClusterTopology::kRail;
      cc.oversubscription = c.oversubscription;
      cc.nic_link = cc.fabric_link = LinkSpec{c.nic_rate, c.cable_delay};
      t["type"] = "servers";
      t["servers"] = c.servers;
      t["gpus_per_server"] = c.gpus_per_server;
      t["spines"] = cluster_spines(cc);
      break;
    }
    case EvalCluster::Shape::kLeafSpine:
      // One leaf per server, as nccl-tests' leaf-spine cluster.
      t["type"] = "leaf-spine";
      t["leaves"] = c.servers;
      t["hosts_per_leaf"] = c.gpus_per_server;
      t["oversubscription"] = c.oversubscription;
      break;
    case EvalCluster::Shape::kFatTree:
      t["type"] = "fat-tree";
      t["k"] = c.k;
      break;
  }
  t["link"] = link_node(c.nic_rate, c.cable_delay);
  t["fabric_link"] = link_node(c.nic_rate, c.cable_delay);
  return t;
}

// "auto": the first leaf's first uplink, as faults name links (node:port,
// the port being the link's index among the node's links in link order).
std::string auto_link(const Scenario& s) {
  const Topology t = build_topology(s);
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind != TopoNodeKind::kSwitch || t.nodes[n].tier != 1) continue;
    int port = 0;
    for (const TopoLink& l : t.links) {
      if (l.a != static_cast<int>(n) && l.b != static_cast<int>(n)) continue;
      const int other = l.a == static_cast<int>(n) ? l.b : l.a;
      if (t.nodes[other].kind == TopoNodeKind::kSwitch) return t.nodes[n].name + ":" + std::to_string(port);
      ++port;
    }
  }
  return {};
}

std::string cell_id(const Evaluation& ev, const EvalCell& c) {
  const EvalWorkload& w = ev.workloads[c.workload];
  std::string wl = w.name;
  if (!w.sweep_key.empty()) wl += "-" + eval_point_label(w, c.point);
  return fmt::format("{}.{}.{}.s{}", ev.fabrics[c.fabric].name, wl, ev.conditions[c.condition].name, c.seed);
}

YAML::Node workload_node(const EvalWorkload& w, size_t point) {
  YAML::Node n;
  n["type"] = w.scenario_type;
  for (const auto& kv : w.keys) n[kv.first.Scalar()] = YAML::Clone(kv.second);
  if (!w.sweep_key.empty()) n[w.sweep_key] = w.sweep_values[point];
  return n;
}

// The scenario of a cell; `link` replaces "auto" once it is known.
std::string cell_scenario(const Evaluation& ev, const EvalCell& c, const std::string& id,
                          const std::string& link) {
  const EvalFabric& f = ev.fabrics[c.fabric];
  const EvalCondition& cond = ev.conditions[c.condition];
  YAML::Node root;
  root["name"] = id;
  root["seed"] = c.seed;
  root["duration"] = format_time(ev.duration);
  YAML::Node fabric;
  fabric["profile"] = f.profile;
  root["fabric"] = fabric;
  root["topology"] = topology_node(ev.cluster);
  for (const auto& [k, v] : f.set) set_dotted(root, k, v);
  for (const auto& [k, v] : cond.set) set_dotted(root, k, v);
  YAML::Node workloads(YAML::NodeType::Sequence);
  workloads.push_back(workload_node(ev.workloads[c.workload], c.point));
  if (cond.background_load > 0) {
    YAML::Node bg;
    bg["type"] = "background";
    bg["cdf"] = cond.background_cdf;
    bg["load"] = fmt::format("{}%", cond.background_load * 100);
    // Background keeps arriving while the measured workload runs; 5 ms covers
    // a latency test's 1000 round trips and a collective sweep point.
    bg["horizon"] = "5ms";
    workloads.push_back(bg);
  }
  root["workload"] = workloads;
  if (cond.down_at) {
    YAML::Node faults(YAML::NodeType::Sequence);
    YAML::Node down;
    down["at"] = format_time(*cond.down_at);
    down["link"] = link;
    down["action"] = "down";
    faults.push_back(down);
    if (cond.up_at) {
      YAML::Node up;
      up["at"] = format_time(*cond.up_at);
      up["link"] = link;
      up["action"] = "up";
      faults.push_back(up);
    }
    root["faults"] = faults;
  }
  YAML::Node out;
  out["flows_csv"] = ev.workloads[c.workload].type == "fct" || cond.background_load > 0;
  out["ports_csv"] = false;
  root["output"] = out;
  YAML::Emitter em;
  em.SetMapFormat(YAML::Block);
  em << root;
  return std::string("# rdmasim evaluate: cell ") + id + " of " + ev.name + "\n" + em.c_str() + "\n";
}

bool applies(const EvalCondition& c, const std::string& fabric, const std::string& workload) {
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  return has(c.fabrics, fabric) && has(c.workloads, workload);
}

}  // namespace

std::string eval_point_label(const EvalWorkload& w, size_t point) {
  if (w.sweep_key.empty()) return {};
  return w.sweep_values[point];
}

std::vector<EvalCell> eval_cells(const Evaluation& ev) {
  std::vector<EvalCell> cells;
  std::map<size_t, std::string> links;  // condition -> resolved link (the topology is the same for all)
  for (size_t f = 0; f < ev.fabrics.size(); ++f)
    for (size_t w = 0; w < ev.workloads.size(); ++w) {
      const size_t points = std::max<size_t>(1, ev.workloads[w].sweep_values.size());
      for (size_t p = 0; p < points; ++p)
        for (size_t c = 0; c < ev.conditions.size(); ++c) {
          const EvalCondition& cond = ev.conditions[c];
          if (!applies(cond, ev.fabrics[f].name, ev.workloads[w].name)) continue;
          for (uint64_t seed : ev.seeds) {
            EvalCell cell{f, w, p, c, seed, {}, {}};
            cell.id = cell_id(ev, cell);
            std::string link = cond.link;
            if (cond.down_at && link == "auto") {
              if (!links.contains(c)) {
                EvalCondition plain;  // the topology alone: no faults to resolve yet
                Evaluation probe = ev;
                probe.conditions = {plain};
                EvalCell pc = cell;
                pc.condition = 0;
                const Scenario s =
                    load_scenario_text(cell_scenario(probe, pc, cell.id, ""), "<" + cell.id + ">");
                links[c] = auto_link(s);
                if (links[c].empty())
                  throw InputError(ev.file, cond.line, 0, "link_down.link",
                                   "link: auto needs a switch-to-switch link; this cluster has none");
              }
              link = links[c];
            }
            cell.scenario = cell_scenario(ev, cell, cell.id, link);
            cells.push_back(std::move(cell));
          }
        }
    }
  return cells;
}

void check_cells(const Evaluation& ev, const std::vector<EvalCell>& cells) {
  for (const EvalCell& c : cells) {
    try {
      (void)load_scenario_text(c.scenario, "<cell " + c.id + ">");
    } catch (const InputError& e) {
      // Place the problem at the evaluation entry it comes from.
      const std::string& key = e.key();
      const EvalCondition& cond = ev.conditions[c.condition];
      const EvalFabric& fab = ev.fabrics[c.fabric];
      const auto in_set = [&](const std::vector<std::pair<std::string, std::string>>& set) {
        return std::any_of(set.begin(), set.end(),
                           [&](const auto& kv) { return key.rfind(kv.first, 0) == 0; });
      };
      int line = ev.workloads[c.workload].line;
      std::string where = "workloads: " + ev.workloads[c.workload].name;
      if (in_set(cond.set) || key.rfind("workload[1]", 0) == 0 || key.rfind("faults", 0) == 0) {
        line = cond.line;
        where = "conditions: " + cond.name;
      } else if (in_set(fab.set) || key.rfind("fabric", 0) == 0 || key.rfind("topology.switch", 0) == 0) {
        line = fab.line;
        where = "fabrics: " + fab.name;
      }
      throw InputError(ev.file, line, 0, where,
                       "in cell " + c.id + ": " + (key.empty() ? "" : "'" + key + "': ") + e.message());
    }
  }
}

}  // namespace rdmasim
