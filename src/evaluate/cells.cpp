#include "evaluate/cells.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <limits>
#include <map>

#include "config/error.h"
#include "config/parse_int.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "report/results.h"

namespace rdmasim {
namespace {

// The first line of a cell's scenario names the cell and its evaluation.
constexpr const char* kCellHeader = "# rdmasim evaluate: cell ";

// Stores `value` (YAML text: a scalar or a flow list) at a dotted key of
// maps, creating them on the way. The scenario loader checks the key.
void set_dotted(const YAML::Node& root, const std::string& dotted, const std::string& value) {
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

YAML::Node link_node(Rate rate, Time delay, const std::string& cable) {
  YAML::Node l;
  l["rate"] = format_rate(rate);
  l["delay"] = format_time(delay);
  if (!cable.empty()) l["cable"] = cable;
  return l;
}

YAML::Node topology_node(const EvalCluster& c) {
  YAML::Node t;
  switch (c.shape) {
    case EvalCluster::Shape::kRailOptimized: {
      t["type"] = "servers";
      t["servers"] = c.servers;
      t["gpus_per_server"] = c.gpus_per_server;
      t["spines"] = c.rail_spines();
      // Beyond one scalable unit, a leaf per rail and unit; beyond a spine's
      // ports, a core tier. Each is said only then, so a cluster that needs
      // neither keeps the scenario it always had.
      if (c.servers > c.servers_per_leaf) t["servers_per_leaf"] = c.servers_per_leaf;
      if (c.needs_core_tier()) t["switch_radix"] = c.switch_radix;
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
  t["link"] = link_node(c.nic_rate, c.cable_delay, c.host_cable);
  t["fabric_link"] = link_node(c.nic_rate, c.cable_delay, c.fabric_cable);
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
  if (c.servers > 0)
    return fmt::format("{}.{}.scale-{}servers.s{}", ev.fabrics[c.fabric].name, wl, c.servers, c.seed);
  if (!c.knob.empty())
    return fmt::format("{}.{}.{}-{}-{}.s{}", ev.fabrics[c.fabric].name, wl, c.assumption ? "assume" : "tune",
                       c.knob.substr(c.knob.find('.') + 1), c.knob_change, c.seed);
  return fmt::format("{}.{}.{}.s{}", ev.fabrics[c.fabric].name, wl, ev.conditions[c.condition].name, c.seed);
}

// Settings that describe the hardware or the fabric's identity, not a knob
// an operator sets: the tuning sweep leaves them alone.
bool hardware_key(const std::string& k) {
  static const char* const kHardware[] = {"fabric.profile",
                                          "fabric.framing",
                                          "fabric.nic_tx_latency",
                                          "fabric.nic_rx_latency",
                                          "fabric.ib.sm_detection_delay",
                                          "fabric.ib.sm_compute_time",
                                          "fabric.data_tc",
                                          "fabric.ack_tc"};
  // The hosts' latency variability is the servers', not a fabric setting.
  return std::find(std::begin(kHardware), std::end(kHardware), k) != std::end(kHardware) ||
         k.rfind("fabric.nic_jitter.", 0) == 0;
}

// The simulator's own diagnosis, not the fabric's: moving it changes when a
// run is declared deadlocked, not how the fabric behaves. Neither sweep moves it.
bool diagnostic_key(const std::string& k) { return k == "fabric.pfc.deadlock_detection"; }

void flatten_scalars(const nlohmann::ordered_json& j, const std::string& prefix,
                     std::vector<std::pair<std::string, std::string>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "profile_defaults") continue;
    const std::string key = prefix + it.key();
    if (it->is_object()) {
      flatten_scalars(*it, key + ".", out);
    } else if (it->is_string()) {
      out.emplace_back(key, it->get<std::string>());
    } else if (it->is_boolean() || it->is_number()) {
      out.emplace_back(key, it->dump());
    }
  }
}

// The mis-set values of one setting: {change, value}. Values a profile
// cannot take are dropped later, when the loader refuses them.
std::vector<std::pair<std::string, std::string>> variants(const std::string& v) {
  if (v == "true") return {{"flipped", "false"}};
  if (v == "false") return {{"flipped", "true"}};
  char* end = nullptr;
  const double num = std::strtod(v.c_str(), &end);
  if (!v.empty() && *end == '\0') {
    if (num <= 0) return {};
    if (v.find_first_of(".eE") == std::string::npos)
      return {{"x0.5", std::to_string(std::max<long long>(1, std::llround(num) / 2))},
              {"x2", std::to_string(std::llround(num) * 2)}};
    return {{"x0.5", fmt::format("{}", num / 2)}, {"x2", fmt::format("{}", num * 2)}};
  }
  // Half and double of a quantity in its own integer unit (ps, B, bps).
  const auto halves = [](int64_t n, const auto& format) -> std::vector<std::pair<std::string, std::string>> {
    if (n <= 0) return {};
    return {{"x0.5", format(std::max<int64_t>(1, n / 2))}, {"x2", format(n * 2)}};
  };
  try {
    return halves(parse_time(v).ps(), [](int64_t n) { return format_time(Time::from_ps(n)); });
  } catch (const std::invalid_argument&) {
  }
  try {
    return halves(parse_bytes(v).count(), [](int64_t n) { return format_bytes(Bytes(n)); });
  } catch (const std::invalid_argument&) {
  }
  try {
    return halves(parse_rate(v).bps(), [](int64_t n) { return format_rate(Rate::from_bps(n)); });
  } catch (const std::invalid_argument&) {
  }
  return {};  // a choice (auto, dynamic, go-back-n): no scale to move along
}

YAML::Node workload_node(const EvalWorkload& w, size_t point) {
  YAML::Node n;
  n["type"] = w.scenario_type;
  for (const auto& kv : w.keys) n[kv.first.Scalar()] = YAML::Clone(kv.second);
  if (!w.sweep_key.empty()) n[w.sweep_key] = w.sweep_values[point];
  return n;
}

// The host the measured workload's traffic arrives at, as a scenario host
// index: where an incast beside it must converge to meet it. `hosts` is the
// cell's host count. Workloads whose every host receives (collectives,
// permutation, all-to-all, training, halo, fct) take host 0, one of them.
std::string receiving_host(const EvalWorkload& m, int hosts) {
  // A key the workload does not give is an invalid node here (keys is
  // const): test it before asking its type.
  const auto item = [](const YAML::Node& list, size_t i, int def) {
    return list && list.IsSequence() && i < list.size() ? list[i].Scalar() : std::to_string(def);
  };
  if (m.scenario_type == "perftest" || m.scenario_type == "stream")
    return m.keys["dst"] ? m.keys["dst"].Scalar() : std::string("0");
  if (m.scenario_type == "incast") return m.keys["receiver"] ? m.keys["receiver"].Scalar() : std::string("0");
  if (m.scenario_type == "osu" && m.keys["benchmark"]) {
    const std::string bench = m.keys["benchmark"].Scalar();
    // Rank 0 sends and rank 1 receives (osu_latency's ping, osu_bw's
    // window; osu_bibw both ways): rank 1's host, not host 0, which is rank
    // 0's and sees only the replies.
    if (bench == "osu_latency" || bench == "osu_bw" || bench == "osu_bibw")
      return item(m.keys["hosts"], 1, 1);
    if (bench == "osu_mbw_mr") {
      // Ranks below half the ranks send to the rank half the ranks above:
      // the first pair's receiver.
      int ranks = hosts;
      if (m.keys["hosts"] && m.keys["hosts"].IsSequence())
        ranks = static_cast<int>(m.keys["hosts"].size());
      else if (m.keys["ranks"])
        ranks = parse_int(m.keys["ranks"].Scalar()).value_or(hosts);  // "all", or refused at the workload
      return item(m.keys["hosts"], static_cast<size_t>(ranks / 2), ranks / 2);
    }
    return "0";  // a collective: every rank receives
  }
  if (m.scenario_type == "nvmeof") {
    // Reads carry the data from the target to the initiator, writes the
    // other way; a mix counts as the direction most of its data takes.
    const std::string rw = m.keys["rw"] ? m.keys["rw"].Scalar() : std::string("randread");
    double reads = rw == "randread" ? 1.0 : rw == "randwrite" ? 0.0 : 0.5;
    if (rw == "randrw" && m.keys["rwmixread"]) {
      try {
        reads = parse_fraction_or_percent(m.keys["rwmixread"].Scalar());
      } catch (const std::invalid_argument&) {
        // the scenario loader refuses it, at the workload
      }
    }
    return reads >= 0.5 ? item(m.keys["initiators"], 0, 0) : item(m.keys["targets"], 0, hosts - 1);
  }
  return "0";
}

// The scenario of a cell; `link` replaces "auto" once it is known.
std::string cell_scenario(const Evaluation& ev, const EvalCell& c, const std::string& id,
                          const std::string& link) {
  const EvalFabric& f = ev.fabrics[c.fabric];
  const EvalCondition& cond = ev.conditions[c.condition];
  const EvalWorkload& measured = ev.workloads[c.workload];
  const bool own = measured.type == "scenario";
  // A user's scenario keeps everything but what the evaluation sets: the
  // fabric (the point of comparing), name, seed, duration and outputs.
  YAML::Node root;
  root["name"] = id;
  root["seed"] = c.seed;
  root["duration"] = format_time(ev.duration);
  YAML::Node fabric;
  fabric["profile"] = f.profile;
  root["fabric"] = fabric;
  if (own) {
    for (const auto& kv : measured.scenario) {
      const std::string k = kv.first.as<std::string>();
      if (k != "name" && k != "seed" && k != "duration" && k != "fabric" && k != "output")
        root[k] = YAML::Clone(kv.second);
    }
  } else {
    EvalCluster cluster = ev.cluster;
    if (c.servers > 0) cluster.servers = c.servers;
    root["topology"] = topology_node(cluster);
    if (!cond.distance.empty()) {
      YAML::Node l;
      l["rate"] = format_rate(cluster.nic_rate);
      l["length"] = cond.distance;
      const std::string& cable = cond.cable.empty() ? cluster.fabric_cable : cond.cable;
      if (!cable.empty()) l["cable"] = cable;
      root["topology"]["fabric_link"] = l;
    }
  }
  for (const auto& [k, v] : f.set) set_dotted(root, k, v);
  for (const auto& [k, v] : cond.set) set_dotted(root, k, v);
  if (!c.knob.empty()) set_dotted(root, c.knob, c.knob_value);
  YAML::Node workloads(YAML::NodeType::Sequence);
  if (!own) {
    workloads.push_back(workload_node(measured, c.point));
  } else if (root["workload"].IsSequence()) {
    for (const auto& item : root["workload"]) workloads.push_back(item);
  } else if (root["workload"]) {
    workloads.push_back(root["workload"]);  // one workload written as a map
  }
  if (cond.background_load > 0) {
    YAML::Node bg;
    bg["type"] = "background";
    bg["cdf"] = cond.background_cdf;
    bg["load"] = fmt::format("{}%", cond.background_load * 100);
    // Background keeps arriving for as long as the measured workload runs
    // (a training iteration's communication starts tens of ms in): the
    // cell's duration; arrivals are drawn as the run reaches them, and the
    // run ends with the measured workload.
    bg["horizon"] = format_time(ev.duration);
    workloads.push_back(bg);
  }
  if (cond.incast_senders > 0 && cond.incast_elsewhere) {
    // Into the host as far past the measured destination as it is past the
    // source, from the measured source, then the hosts as far apart again,
    // then the hosts after the receiver: one flow each, all starting
    // together. On a rail-optimized cluster the first are the source's rail,
    // so the leaf they share pauses the source's own link.
    const int hosts = ev.cluster.gpus_per_server * (c.servers > 0 ? c.servers : ev.cluster.servers);
    const int src = measured.keys["src"] ? measured.keys["src"].as<int>() : 0;
    const int dst = measured.keys["dst"].as<int>();
    int receiver = ((2 * dst - src) % hosts + hosts) % hosts;
    while (receiver == src || receiver == dst) receiver = (receiver + 1) % hosts;
    std::vector<int> senders = {src};
    const auto add = [&](int h) {
      if (static_cast<int>(senders.size()) < cond.incast_senders && h != dst && h != receiver &&
          std::find(senders.begin(), senders.end(), h) == senders.end())
        senders.push_back(h);
    };
    const int step = ((dst - src) % hosts + hosts) % hosts;
    for (int k = 1; k < hosts; ++k) add((receiver + k * step) % hosts);
    for (int i = 1; i < hosts; ++i) add((receiver + i) % hosts);
    for (int s : senders) {
      YAML::Node fl;
      fl["type"] = "flow";
      fl["src"] = s;
      fl["dst"] = receiver;
      fl["size"] = cond.incast_size;
      workloads.push_back(fl);
    }
  } else if (cond.incast_senders > 0) {
    // Into the host the measured workload receives on, so it shares the
    // congested port.
    YAML::Node in;
    in["type"] = "incast";
    in["senders"] = cond.incast_senders;
    in["size"] = cond.incast_size;
    in["receiver"] = receiving_host(
        measured, ev.cluster.gpus_per_server * (c.servers > 0 ? c.servers : ev.cluster.servers));
    workloads.push_back(in);
  }
  if (workloads.size() > 0) root["workload"] = workloads;
  if (cond.misconfig.IsSequence()) {
    YAML::Node mis =
        root["misconfig"].IsSequence() ? root["misconfig"] : YAML::Node(YAML::NodeType::Sequence);
    for (const auto& item : cond.misconfig) mis.push_back(YAML::Clone(item));
    root["misconfig"] = mis;
  }
  if (cond.down_at) {
    // After the scenario's own faults, if it has any.
    YAML::Node faults = root["faults"].IsSequence() ? root["faults"] : YAML::Node(YAML::NodeType::Sequence);
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
  out["flows_csv"] = measured.type == "fct" || cond.is_loaded();
  out["ports_csv"] = false;
  root["output"] = out;
  YAML::Emitter em;
  em.SetMapFormat(YAML::Block);
  em << root;
  return kCellHeader + id + " of " + ev.name + "\n" + em.c_str() + "\n";
}

bool applies(const EvalCondition& c, const std::string& fabric, const std::string& workload) {
  const auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  return has(c.fabrics, fabric) && has(c.workloads, workload);
}

// The resolved settings of fabric `f` (its first workload at baseline) and
// the keys its profile labels assumptions. False when its cells do not load:
// check_cells reports that at the fabric's entry.
bool fabric_settings(const Evaluation& ev, size_t f, size_t base,
                     std::vector<std::pair<std::string, std::string>>& settings,
                     std::vector<std::string>& assumed,
                     std::map<std::string, std::pair<std::string, std::string>>* ranges = nullptr) {
  EvalCell probe{f, 0, 0, base, ev.seeds.front(), {}, {}, {}, {}, {}};
  probe.id = cell_id(ev, probe);
  Scenario s;
  try {
    s = load_scenario_text(cell_scenario(ev, probe, probe.id, ""), "<" + probe.id + ">");
  } catch (const InputError&) {
    return false;
  }
  const nlohmann::ordered_json j = scenario_json(s);
  flatten_scalars(j["fabric"], "fabric.", settings);
  if (j["topology"].contains("switch"))
    flatten_scalars(j["topology"]["switch"], "topology.switch.", settings);
  for (const auto& d : j["fabric"].value("profile_defaults", nlohmann::ordered_json::array()))
    if (d.value("source", "").rfind("assumption", 0) == 0) {
      assumed.push_back(d.value("key", ""));
      if (ranges != nullptr && d.contains("range"))
        (*ranges)[d.value("key", "")] = {d["range"].value("low", ""), d["range"].value("high", "")};
    }
  // A value the evaluation file sets is the user's, not an unsourced default.
  for (const auto& set : ev.fabrics[f].set) std::erase(assumed, set.first);
  return true;
}

// One sweep's cells: per fabric, each setting `pick` accepts moved to each of
// its variants(), on the sweep's workloads at baseline with the first seed
// (every sweep point when `all_points`). Values the scenario loader refuses
// for that profile (e.g. an MTU above its maximum) are not cells. Returns the
// settings picked; `probes_failed` tells whether a fabric could not be read.
using SettingPick =
    std::function<bool(size_t fabric, const std::string& key, const std::vector<std::string>& assumed)>;
std::vector<std::string> append_sweep(const Evaluation& ev, std::vector<EvalCell>& cells,
                                      const std::vector<std::string>& workloads, bool assumption,
                                      bool all_points, const SettingPick& pick, bool& probes_failed) {
  std::vector<std::string> picked;
  if (workloads.empty()) return picked;
  size_t base = 0;
  while (!ev.conditions[base].is_baseline()) ++base;
  for (size_t f = 0; f < ev.fabrics.size(); ++f) {
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<std::string> assumed;
    std::map<std::string, std::pair<std::string, std::string>> ranges;
    if (!fabric_settings(ev, f, base, settings, assumed, &ranges)) {
      probes_failed = true;
      continue;
    }
    for (const auto& [key, value] : settings) {
      if (!pick(f, key, assumed)) continue;
      picked.push_back(key);
      // An assumption moves to the bounds its profile states, else x0.5/x2.
      const auto range = ranges.find(key);
      const auto moves =
          assumption && range != ranges.end()
              ? std::vector<std::pair<std::string, std::string>>{{"low", range->second.first},
                                                                 {"high", range->second.second}}
              : variants(value);
      for (const auto& [change, moved] : moves)
        for (size_t w = 0; w < ev.workloads.size(); ++w) {
          const EvalWorkload& wl = ev.workloads[w];
          if (std::find(workloads.begin(), workloads.end(), wl.name) == workloads.end() ||
              !wl.runs_on(ev.fabrics[f].name))
            continue;
          const size_t points = all_points ? std::max<size_t>(1, wl.sweep_values.size()) : 1;
          for (size_t p = 0; p < points; ++p) {
            EvalCell cell{f, w, p, base, ev.seeds.front(), key, moved, change, {}, {}, assumption};
            cell.id = cell_id(ev, cell);
            cell.scenario = cell_scenario(ev, cell, cell.id, "");
            try {
              (void)load_scenario_text(cell.scenario, "<" + cell.id + ">");
            } catch (const InputError&) {
              continue;
            }
            cells.push_back(std::move(cell));
          }
        }
    }
  }
  return picked;
}

// The tuning sweep: every setting an operator sets (not the hardware's), or
// the file's list of them.
void append_tuning_cells(const Evaluation& ev, std::vector<EvalCell>& cells) {
  const auto& keys = ev.tuning.keys;
  bool probes_failed = false;
  const std::vector<std::string> used = append_sweep(
      ev, cells, ev.tuning.workloads, false, false,
      [&](size_t, const std::string& key, const std::vector<std::string>&) {
        return key.rfind("fabric.", 0) == 0 && !hardware_key(key) && !diagnostic_key(key) &&
               (keys.empty() || std::find(keys.begin(), keys.end(), key) != keys.end());
      },
      probes_failed);
  for (const std::string& k : keys)
    if (!probes_failed && std::find(used.begin(), used.end(), k) == used.end())
      throw InputError(
          ev.file, ev.tuning.line, 0, "tuning.keys",
          "'" + k + "' is a setting none of the compared fabrics uses (rdmasim schema lists them)");
}

// The assumption sweep: every default the profile labels an assumption,
// unless the evaluation sets that value itself.
void append_assumption_cells(const Evaluation& ev, std::vector<EvalCell>& cells) {
  bool probes_failed = false;
  (void)append_sweep(
      ev, cells, ev.assumptions.workloads, true, true,
      [&](size_t f, const std::string& key, const std::vector<std::string>& assumed) {
        const auto& set = ev.fabrics[f].set;
        return !diagnostic_key(key) && std::find(assumed.begin(), assumed.end(), key) != assumed.end() &&
               std::none_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == key; });
      },
      probes_failed);
}

// The scale sweep's cells: each other server count, on the scale workloads
// (every sweep point) at baseline with the first seed.
void append_scale_cells(const Evaluation& ev, std::vector<EvalCell>& cells) {
  if (ev.scale.workloads.empty()) return;
  size_t base = 0;
  while (!ev.conditions[base].is_baseline()) ++base;
  for (size_t f = 0; f < ev.fabrics.size(); ++f)
    for (size_t w = 0; w < ev.workloads.size(); ++w) {
      const EvalWorkload& wl = ev.workloads[w];
      if (std::find(ev.scale.workloads.begin(), ev.scale.workloads.end(), wl.name) ==
              ev.scale.workloads.end() ||
          !wl.runs_on(ev.fabrics[f].name))
        continue;
      for (size_t p = 0; p < std::max<size_t>(1, wl.sweep_values.size()); ++p)
        for (int n : ev.scale.servers) {
          EvalCell cell{f, w, p, base, ev.seeds.front(), {}, {}, {}, {}, {}, false, n};
          cell.id = cell_id(ev, cell);
          cell.scenario = cell_scenario(ev, cell, cell.id, "");
          cells.push_back(
              std::move(cell));  // check_cells reports one that does not load (e.g. an incast too wide)
        }
    }
}

}  // namespace

std::string cell_scenario_evaluation(const std::string& scenario) {
  const std::string header = kCellHeader;
  if (scenario.rfind(header, 0) != 0) return {};
  const std::string line = scenario.substr(0, scenario.find('\n'));
  // A cell id has no spaces: the name follows its " of ".
  const size_t of = line.find(" of ", header.size());
  return of == std::string::npos ? std::string() : line.substr(of + 4);
}

std::string eval_point_label(const EvalWorkload& w, size_t point) {
  if (w.sweep_key.empty()) return {};
  return w.sweep_values[point];
}

std::vector<EvalCell> eval_cells(const Evaluation& ev) {
  std::vector<EvalCell> cells;
  // (condition, topology) -> resolved link: the cluster's topology, or a
  // scenario workload's own (keyed by its workload index).
  std::map<std::pair<size_t, size_t>, std::string> links;
  for (size_t f = 0; f < ev.fabrics.size(); ++f)
    for (size_t w = 0; w < ev.workloads.size(); ++w) {
      const size_t points = std::max<size_t>(1, ev.workloads[w].sweep_values.size());
      for (size_t p = 0; p < points; ++p)
        for (size_t c = 0; c < ev.conditions.size(); ++c) {
          const EvalCondition& cond = ev.conditions[c];
          if (!applies(cond, ev.fabrics[f].name, ev.workloads[w].name) ||
              !ev.workloads[w].runs_on(ev.fabrics[f].name))
            continue;
          for (uint64_t seed : ev.seeds) {
            EvalCell cell{f, w, p, c, seed, {}, {}, {}, {}, {}};
            cell.id = cell_id(ev, cell);
            std::string link = cond.link;
            const std::pair<size_t, size_t> key{
                c, ev.workloads[w].type == "scenario" ? w : std::numeric_limits<size_t>::max()};
            if (cond.down_at && link == "auto") {
              if (!links.contains(key)) {
                EvalCondition plain;  // the topology alone: no faults to resolve yet
                Evaluation probe = ev;
                probe.conditions = {plain};
                EvalCell pc = cell;
                pc.condition = 0;
                const Scenario s =
                    load_scenario_text(cell_scenario(probe, pc, cell.id, ""), "<" + cell.id + ">");
                links[key] = auto_link(s);
                if (links[key].empty())
                  throw InputError(ev.file, cond.line, 0, "link_down.link",
                                   "link: auto needs a switch-to-switch link; this cluster has none");
              }
              link = links[key];
            }
            cell.scenario = cell_scenario(ev, cell, cell.id, link);
            cells.push_back(std::move(cell));
          }
        }
    }
  append_tuning_cells(ev, cells);
  append_assumption_cells(ev, cells);
  append_scale_cells(ev, cells);
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
      if (in_set(cond.set) || (key.rfind("workload[", 0) == 0 && key.rfind("workload[0]", 0) != 0) ||
          key.rfind("faults", 0) == 0 || key.rfind("misconfig", 0) == 0 ||
          (!cond.distance.empty() && key.rfind("topology.fabric_link", 0) == 0)) {
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
