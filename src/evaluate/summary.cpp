#include "evaluate/summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "config/scenario.h"

namespace rdmasim {
namespace {

using json = nlohmann::ordered_json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct MetricInfo {
  const char* name;
  const char* unit;
  bool lower_is_better;
};

// What each metric means for the decision (unit, which way is better).
constexpr MetricInfo kMetrics[] = {
    {"p50_us", "us", true},
    {"p99_us", "us", true},
    {"p999_us", "us", true},
    {"jitter_us", "us", true},
    {"max_us", "us", true},
    {"gbps", "Gb/s", false},
    {"completion_us", "us", true},
    {"goodput_gbps", "Gb/s", false},
    {"fct_p99_us", "us", true},
    {"unfinished_flows", "flows", true},
    {"busbw_GBps", "GB/s", false},
    {"time_us", "us", true},
    {"iteration_ms", "ms", true},
    {"exposed_comm_ms", "ms", true},
    {"exposed_share", "share", true},
    {"slowdown_p50", "x", true},
    {"slowdown_p99", "x", true},
    {"drops", "packets", true},
    {"lossless_drops", "packets", true},
    {"pfc_pause_us", "us", true},
    {"retransmitted_packets", "packets", true},
    {"timeouts", "timeouts", true},
    // A condition with a fault: the run's incident report (its first fault).
    {"detected_after_us", "us", true},
    {"repaired_after_us", "us", true},
    {"rerouted_after_us", "us", true},
    {"recovered_after_us", "us", true},
    {"dip_percent", "%", true},
    // A condition with injected misconfigurations: what they caused.
    {"lossless_class_drops", "packets", true},
    {"oversize_drops", "packets", true},
    // MPI, storage and real-time workloads (appended: entries above are looked up by index).
    {"small_latency_us", "us", true},
    {"large_latency_us", "us", true},
    {"bandwidth_MBps", "MB/s", false},
    {"step_us", "us", true},
    {"communication_share", "share", true},
    {"iops", "IOPS", false},
    {"clat_p50_us", "us", true},
    {"clat_p99_us", "us", true},
    {"deadline_misses", "messages", true},
    {"stream_p99_us", "us", true},
    {"stream_jitter_us", "us", true},
    {"qps_per_nic", "QPs", true},
    {"nccl_model_us", "us", true},
};

const MetricInfo* metric_info(const std::string& name) {
  for (const auto& m : kMetrics)
    if (name == m.name) return &m;
  if (name.rfind("slowdown_p99@", 0) == 0) return &kMetrics[16];
  return nullptr;
}

// A member of a results object, or null when it has none: a const
// operator[] on a missing key is undefined behaviour, and a cell's results
// may lack a section (a hand-built outcome, an older results file).
const json& member(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

double num(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

// The criterion's workloads and metric, and whether it reads the baseline
// or the loaded conditions.
struct CriterionRule {
  const char* criterion;
  std::vector<std::string> types;
  const char* metric;
  bool loaded;  // non-baseline conditions with background (baseline if there are none)
  // For mpi workloads: the OSU benchmarks whose figure this is (empty: any).
  std::vector<std::string> benchmarks;
};

const std::vector<std::string> kOsuBandwidth = {"osu_bw", "osu_bibw", "osu_mbw_mr"};

const std::vector<CriterionRule>& rules() {
  static const std::vector<CriterionRule> r = {
      {"latency", {"latency"}, "p50_us", false, {}},
      {"tail_latency", {"latency"}, "p999_us", true, {}},
      {"bandwidth", {"bandwidth"}, "gbps", false, {}},
      {"incast", {"incast"}, "completion_us", false, {}},
      {"permutation", {"permutation", "all-to-all"}, "completion_us", false, {}},
      {"collective", {"collective"}, "busbw_GBps", false, {}},
      {"training", {"training"}, "iteration_ms", false, {}},
      {"fct", {"fct"}, "slowdown_p99", false, {}},
      {"scenario", {"scenario"}, "completion_us", false, {}},
      {"mpi_latency",
       {"mpi"},
       "small_latency_us",
       false,
       {"osu_latency", "osu_allreduce", "osu_alltoall", "osu_barrier"}},
      {"mpi_bandwidth", {"mpi"}, "bandwidth_MBps", false, kOsuBandwidth},
      {"mpi_step", {"halo"}, "step_us", false, {}},
      {"storage", {"storage"}, "clat_p99_us", false, {}},
      {"stream", {"stream"}, "stream_p99_us", false, {}},
  };
  return r;
}

// Whether `rule` reads workload `w`'s figures.
bool applies(const CriterionRule& rule, const EvalWorkload& w) {
  if (std::find(rule.types.begin(), rule.types.end(), w.type) == rule.types.end()) return false;
  if (rule.benchmarks.empty()) return true;
  const std::string bench = w.keys["benchmark"] ? w.keys["benchmark"].Scalar() : "";
  return std::find(rule.benchmarks.begin(), rule.benchmarks.end(), bench) != rule.benchmarks.end();
}

// The one metric per workload that resilience, tuning and scale compare
// against its baseline.
const char* key_metric(const EvalWorkload& w) {
  for (const auto& r : rules())
    if (applies(r, w)) return r.metric;
  return nullptr;
}

std::string figure_id(const Evaluation& ev, size_t f, size_t w, size_t p, size_t c,
                      const std::string& metric) {
  const EvalWorkload& wl = ev.workloads[w];
  std::string id = ev.fabrics[f].name + "." + wl.name;
  if (!wl.sweep_key.empty()) id += "-" + eval_point_label(wl, p);
  return id + "." + ev.conditions[c].name + "." + metric;
}

void flatten(const json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "profile_defaults") continue;
    const std::string key = prefix + it.key();
    if (it->is_object()) {
      flatten(*it, key + ".", out);
    } else {
      out.emplace_back(key, it->is_string() ? it->get<std::string>() : it->dump());
    }
  }
}

std::vector<EvalSettingDiff> setting_diffs(const Evaluation& ev, const std::vector<EvalCell>& cells,
                                           const std::vector<CellOutcome>& outcomes) {
  const size_t nf = ev.fabrics.size();
  std::vector<std::vector<std::pair<std::string, std::string>>> kv(nf);
  std::vector<std::set<std::string>> assumed(nf);
  std::vector<bool> have(nf, false);
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t f = cells[i].fabric;
    if (have[f] || !cells[i].knob.empty() || cells[i].servers > 0 ||
        !ev.conditions[cells[i].condition].set.empty() || outcomes[i].results.is_null())
      continue;
    const json& s = outcomes[i].results["scenario"];
    flatten(s["fabric"], "fabric.", kv[f]);
    if (s["topology"].contains("switch")) flatten(s["topology"]["switch"], "topology.switch.", kv[f]);
    for (const auto& d : s["fabric"].value("profile_defaults", json::array()))
      if (d.value("source", "").rfind("assumption", 0) == 0) assumed[f].insert(d.value("key", ""));
    // A value the evaluation file sets is the user's choice, not the
    // profile's unsourced default.
    for (const auto& set : ev.fabrics[f].set) assumed[f].erase(set.first);
    have[f] = true;
  }
  // Keys in first-seen order over all fabrics; a key a fabric lacks is "-".
  std::vector<std::string> keys;
  for (const auto& v : kv)
    for (const auto& [k, val] : v)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::vector<EvalSettingDiff> out;
  for (const std::string& k : keys) {
    EvalSettingDiff d{k, {}, {}};
    for (size_t f = 0; f < nf; ++f) {
      const auto it = std::find_if(kv[f].begin(), kv[f].end(), [&](const auto& p) { return p.first == k; });
      d.values.push_back(it == kv[f].end() ? "-" : it->second);
      d.assumption.push_back(assumed[f].contains(k));
    }
    if (std::adjacent_find(d.values.begin(), d.values.end(), std::not_equal_to<>()) != d.values.end())
      out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, double>> cell_metrics(const std::string& type, const json& r) {
  std::vector<std::pair<std::string, double>> m;
  const json& wr = r.contains("workload_results") && !r["workload_results"].empty() ? r["workload_results"][0]
                                                                                    : json::object();
  const bool finished = wr.value("finished", true);
  if (type == "latency") {
    const json& l = wr.value("latency_us", json::object());
    if (finished) {
      m = {{"p50_us", num(l, "p50")},
           {"p99_us", num(l, "p99")},
           {"p999_us", num(l, "p999")},
           {"jitter_us", num(l, "stdev")},
           {"max_us", num(l, "max")}};
    }
  } else if (type == "bandwidth") {
    if (finished) m = {{"gbps", num(wr, "gbps")}};
  } else if (type == "incast" || type == "permutation" || type == "all-to-all" || type == "fct") {
    const json& fl = member(r, "flows");
    const double unfinished = num(fl, "unfinished");
    if (unfinished == 0) {
      if (type == "fct") {
        m.emplace_back("slowdown_p50", num(member(fl, "slowdown"), "p50"));
        m.emplace_back("slowdown_p99", num(member(fl, "slowdown"), "p99"));
        for (const auto& b : fl.value("by_size", json::array()))
          if (num(member(b, "slowdown"), "count") > 0)
            m.emplace_back("slowdown_p99@" + b.value("sizes", ""), num(member(b, "slowdown"), "p99"));
      } else {
        m.emplace_back("completion_us", num(member(r, "throughput"), "makespan_ns") / 1e3);
        m.emplace_back("goodput_gbps", num(member(r, "throughput"), "goodput_gbps"));
        m.emplace_back("fct_p99_us", num(member(fl, "fct_ns"), "p99") / 1e3);
      }
    }
    m.emplace_back("unfinished_flows", unfinished);
  } else if (type == "collective") {
    if (finished) m = {{"busbw_GBps", num(wr, "busbw_GBps")}, {"time_us", num(wr, "time_us")}};
    // What NCCL's own cost model predicts for the algorithm and protocol its
    // tuner picked (none for algorithms outside it, e.g. SHARP's CollNet).
    if (finished && num(wr, "nccl_model_us") > 0) m.emplace_back("nccl_model_us", num(wr, "nccl_model_us"));
    // Connection state: QP contexts on the busiest NIC.
    if (finished && wr.contains("qps_per_nic_max")) m.emplace_back("qps_per_nic", num(wr, "qps_per_nic_max"));
  } else if (type == "scenario") {
    // The user's own workloads: done when the run ended with every one of
    // them finished (background traffic may still be arriving).
    const json& run = member(r, "run");
    bool done = run.is_object() && !run.value("interrupted", false) && run.value("all_flows_completed", true);
    for (const auto& x : r.value("workload_results", json::array()))
      if (x.is_object() && x.value("type", "") != "background" && !x.value("finished", true)) done = false;
    if (done) m.emplace_back("completion_us", num(run, "simulated_end_ps") / 1e6);
    const json& fl = member(r, "flows");
    if (num(fl, "total") > 0 && num(fl, "unfinished") == 0) {
      m.emplace_back("slowdown_p99", num(member(fl, "slowdown"), "p99"));
      m.emplace_back("fct_p99_us", num(member(fl, "fct_ns"), "p99") / 1e3);
      m.emplace_back("goodput_gbps", num(member(r, "throughput"), "goodput_gbps"));
    }
    m.emplace_back("unfinished_flows", num(fl, "unfinished"));
  } else if (type == "mpi") {
    const json& rows = wr.value("rows", json::array());
    if (finished && !rows.empty()) {
      if (rows.front().contains("bandwidth_MBps")) {
        m = {{"bandwidth_MBps", num(rows.back(), "bandwidth_MBps")}};
      } else {
        m = {{"small_latency_us", num(rows.front(), "latency_us")},
             {"large_latency_us", num(rows.back(), "latency_us")}};
      }
    }
  } else if (type == "halo") {
    if (finished)
      m = {{"step_us", num(wr, "step_us")}, {"communication_share", num(wr, "communication_share")}};
  } else if (type == "storage") {
    if (finished) {
      const json& rd = wr.value("read", json::object());
      const json& wt = wr.value("write", json::object());
      const json& main = rd.value("ios", 0) > 0 ? rd : wt;
      m = {{"iops", num(rd, "iops") + (wt.contains("iops") ? num(wt, "iops") : 0.0)}};
      if (main.contains("clat_us"))
        for (const auto& [k, q] : {std::pair{"clat_p50_us", "p50"}, std::pair{"clat_p99_us", "p99"}})
          m.emplace_back(k, num(member(main, "clat_us"), q));
    }
  } else if (type == "stream") {
    // Late or undelivered messages count whatever the run's end.
    m = {{"deadline_misses", num(wr, "deadline_misses")}};
    if (wr.contains("latency_us")) {
      m.emplace_back("stream_p99_us", num(member(wr, "latency_us"), "p99"));
      m.emplace_back("stream_jitter_us", num(wr, "jitter_us"));
    }
  } else if (type == "training") {
    if (finished)
      m = {{"iteration_ms", num(wr, "iteration_ms")},
           {"exposed_comm_ms", num(wr, "exposed_communication_ms")},
           {"exposed_share", num(wr, "exposed_share")}};
  }
  const json& n = member(r, "network");
  // switch_buffer_drops already counts the lossless class's.
  m.emplace_back("drops",
                 num(n, "switch_buffer_drops") + num(n, "link_fault_drops") + num(n, "no_route_drops"));
  m.emplace_back("lossless_drops", num(n, "lossless_drops"));
  m.emplace_back("pfc_pause_us", num(n, "pfc_paused_port_us"));
  m.emplace_back("retransmitted_packets", num(n, "retransmitted_packets"));
  m.emplace_back("timeouts", num(n, "timeouts"));
  // How the fabric came through the condition's fault: when it noticed, when
  // every switch routed around it, how deep throughput fell and when it was
  // back to 90% (absent when it never was, or was not measured).
  if (const json& faults = member(member(r, "incident"), "faults"); faults.is_array() && !faults.empty()) {
    const json& f = faults[0];
    for (const char* k :
         {"detected_after_us", "repaired_after_us", "rerouted_after_us", "recovered_after_us", "dip_percent"})
      m.emplace_back(k, num(f, k));
  }
  if (r.contains("misconfig"))
    for (const char* k : {"lossless_class_drops", "oversize_drops"})
      m.emplace_back(k, num(member(r, "misconfig"), k));
  m.erase(std::remove_if(m.begin(), m.end(), [](const auto& p) { return !std::isfinite(p.second); }),
          m.end());
  return m;
}

const EvalFigure* find_figure(const EvalSummary& s, const std::string& id) {
  for (const auto& f : s.figures)
    if (f.id == id) return &f;
  return nullptr;
}

// incident.csv's (time_us, delivered_gbps) columns: the first kRawPoints
// bins as they are (the fault and the recovery the chart exists to show),
// the rest averaged over runs of bins so at most kMaxPoints remain (each
// point at its last bin's time). Averaging the whole run evenly turned a
// 60 ms run's first 150 us into one point, drawn as a slope across a stall.
EvalThroughputSeries throughput_series(size_t f, size_t w, size_t p, size_t k, const std::string& csv) {
  EvalThroughputSeries s{f, w, p, k, {}};
  std::vector<std::pair<double, double>> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const size_t a = line.find(',');
    const size_t b = line.find(',', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    rows.emplace_back(std::stod(line.substr(0, a)), std::stod(line.substr(a + 1, b - a - 1)));
  }
  constexpr size_t kRaw = EvalThroughputSeries::kRawPoints;
  constexpr size_t kAveraged = EvalThroughputSeries::kMaxPoints - kRaw;
  for (size_t i = 0; i < std::min(rows.size(), kRaw); ++i) s.points.push_back(rows[i]);
  const size_t rest = rows.size() > kRaw ? rows.size() - kRaw : 0;
  const size_t per = std::max<size_t>(1, (rest + kAveraged - 1) / kAveraged);
  for (size_t i = kRaw; i < rows.size(); i += per) {
    const size_t end = std::min(rows.size(), i + per);
    double sum = 0;
    for (size_t j = i; j < end; ++j) sum += rows[j].second;
    s.points.emplace_back(rows[end - 1].first, sum / static_cast<double>(end - i));
  }
  return s;
}

Slowdown worst_slowdown(const Evaluation& ev, const std::vector<EvalCell>& cells, const EvalSummary& s,
                        size_t f, const std::function<bool(const EvalCondition&)>& which) {
  Slowdown out;
  size_t base = ev.conditions.size();
  for (size_t c = 0; c < ev.conditions.size(); ++c)
    if (ev.conditions[c].is_baseline()) base = c;
  if (base == ev.conditions.size()) return out;
  for (size_t wi = 0; wi < ev.workloads.size(); ++wi) {
    const char* metric = key_metric(ev.workloads[wi]);
    if (metric == nullptr || !ev.workloads[wi].fabrics.empty()) continue;
    const bool higher = !metric_info(metric)->lower_is_better;
    for (size_t p = 0; p < std::max<size_t>(1, ev.workloads[wi].sweep_values.size()); ++p) {
      const EvalFigure* b = find_figure(s, figure_id(ev, f, wi, p, base, metric));
      for (size_t c = 0; c < ev.conditions.size(); ++c) {
        if (c == base || !which(ev.conditions[c])) continue;
        const bool exists = std::any_of(cells.begin(), cells.end(), [&](const EvalCell& x) {
          return x.fabric == f && x.workload == wi && x.point == p && x.condition == c;
        });
        if (!exists) continue;
        out.measured = true;
        const std::string id = figure_id(ev, f, wi, p, c, metric);
        const EvalFigure* x = find_figure(s, id);
        const std::string base_id = figure_id(ev, f, wi, p, base, metric);
        double ratio = std::numeric_limits<double>::infinity();
        std::string cite = id + " (did not finish)";
        if (b != nullptr && x != nullptr && b->mean > 0 && x->mean > 0) {
          ratio = higher ? b->mean / x->mean : x->mean / b->mean;
          cite = higher ? base_id : id;
          cite += " / ";
          cite += higher ? id : base_id;
        }
        if (ratio > out.value) {
          out.value = ratio;
          out.cite = cite;
        }
      }
    }
  }
  return out;
}

EvalSummary summarize(const Evaluation& ev, const std::vector<EvalCell>& cells,
                      const std::vector<CellOutcome>& outcomes) {
  EvalSummary s;
  // Figures: the seeds of one (fabric, workload, point, condition) together.
  for (size_t i = 0; i < cells.size(); ++i) {
    const EvalCell& c = cells[i];
    if (!c.knob.empty() || c.servers > 0) continue;  // the sweeps are read below
    if (!outcomes[i].ok) {
      s.failed_cells.push_back(c.id + ": " + outcomes[i].error);
      continue;
    }
    if (c.seed == ev.seeds.front()) {
      const json& r = outcomes[i].results;
      if (r.contains("workload_results") && !r["workload_results"].empty() &&
          r["workload_results"][0].contains("latency_cdf_us")) {
        const json& wr = r["workload_results"][0];
        EvalCdf cdf{c.fabric, c.workload, c.point, c.condition, {}, wr.value("iterations", size_t{0})};
        for (const auto& p : wr["latency_cdf_us"])
          cdf.points.emplace_back(p[0].get<double>(), p[1].get<double>());
        s.cdfs.push_back(std::move(cdf));
      }
      if (!outcomes[i].incident_csv.empty())
        s.throughput.push_back(
            throughput_series(c.fabric, c.workload, c.point, c.condition, outcomes[i].incident_csv));
    }
    for (const auto& [metric, v] : cell_metrics(ev.workloads[c.workload].type, outcomes[i].results)) {
      const std::string id = figure_id(ev, c.fabric, c.workload, c.point, c.condition, metric);
      auto it =
          std::find_if(s.figures.begin(), s.figures.end(), [&](const EvalFigure& f) { return f.id == id; });
      if (it == s.figures.end()) {
        const MetricInfo* info = metric_info(metric);
        s.figures.push_back(EvalFigure{id,
                                       c.fabric,
                                       c.workload,
                                       c.point,
                                       c.condition,
                                       metric,
                                       info != nullptr ? info->unit : "",
                                       info == nullptr || info->lower_is_better,
                                       0,
                                       v,
                                       v,
                                       0,
                                       kNaN,
                                       kNaN,
                                       {}});
        it = s.figures.end() - 1;
      }
      it->mean += v;
      it->min = std::min(it->min, v);
      it->max = std::max(it->max, v);
      ++it->seeds;
    }
  }
  for (auto& f : s.figures) f.mean /= f.seeds;

  s.settings = setting_diffs(ev, cells, outcomes);

  // Scale: each scale workload's key metric per fabric and server count, the
  // cluster's own size from the matrix's baseline cell (first seed).
  for (size_t i = 0; i < cells.size(); ++i) {
    const EvalCell& c = cells[i];
    const bool own = c.knob.empty() && c.servers == 0 && ev.conditions[c.condition].is_baseline() &&
                     c.seed == ev.seeds.front() &&
                     std::find(ev.scale.workloads.begin(), ev.scale.workloads.end(),
                               ev.workloads[c.workload].name) != ev.scale.workloads.end();
    if (c.servers == 0 && !own) continue;
    if (!outcomes[i].ok) {
      if (c.servers > 0) s.failed_cells.push_back(c.id + ": " + outcomes[i].error);
      continue;
    }
    const char* metric = key_metric(ev.workloads[c.workload]);
    if (metric == nullptr) continue;
    const int servers = c.servers > 0 ? c.servers : ev.cluster.servers;
    // The key metric, and beside it the connection state a collective holds.
    double value = kNaN;
    double qps = kNaN;
    for (const auto& [m, v] : cell_metrics(ev.workloads[c.workload].type, outcomes[i].results)) {
      if (m == metric) value = v;
      if (m == "qps_per_nic") qps = v;
    }
    const EvalWorkload& wl = ev.workloads[c.workload];
    std::string id = "scale." + ev.fabrics[c.fabric].name + "." + wl.name;
    if (!wl.sweep_key.empty()) id += "-" + eval_point_label(wl, c.point);
    id += "." + std::to_string(servers) + "servers.";
    s.scale.push_back(EvalScalePoint{id + metric, c.fabric, c.workload, c.point, servers, metric, value});
    if (std::isfinite(qps))
      s.scale.push_back(
          EvalScalePoint{id + "qps_per_nic", c.fabric, c.workload, c.point, servers, "qps_per_nic", qps});
  }
  // By fabric, workload, point, then the key metric's points before the
  // connection counts, each by server count.
  std::sort(s.scale.begin(), s.scale.end(), [](const EvalScalePoint& a, const EvalScalePoint& b) {
    const bool aq = a.metric == "qps_per_nic";
    const bool bq = b.metric == "qps_per_nic";
    return std::tie(a.fabric, a.workload, a.point, aq, a.servers) <
           std::tie(b.fabric, b.workload, b.point, bq, b.servers);
  });

  // Assumption ranges: each swept cell widens the span of the figures it
  // measures (its baseline cell, first seed, is the span's start).
  for (size_t i = 0; i < cells.size(); ++i) {
    const EvalCell& c = cells[i];
    if (!c.assumption) continue;
    if (!outcomes[i].ok) {
      s.failed_cells.push_back(c.id + ": " + outcomes[i].error);
      continue;
    }
    for (const auto& [metric, v] : cell_metrics(ev.workloads[c.workload].type, outcomes[i].results)) {
      const std::string id = figure_id(ev, c.fabric, c.workload, c.point, c.condition, metric);
      auto it =
          std::find_if(s.figures.begin(), s.figures.end(), [&](const EvalFigure& f) { return f.id == id; });
      if (it == s.figures.end()) continue;
      if (std::isnan(it->assumed_low)) it->assumed_low = it->assumed_high = it->mean;
      it->assumed_low = std::min(it->assumed_low, v);
      it->assumed_high = std::max(it->assumed_high, v);
      if (std::abs(v - it->mean) > 0.01 * std::abs(it->mean) &&
          std::find(it->depends_on.begin(), it->depends_on.end(), c.knob) == it->depends_on.end())
        it->depends_on.push_back(c.knob);
    }
  }

  // Scores. A criterion's value per fabric is the geometric mean of its
  // figures, so each figure's ratio between fabrics counts alike whatever
  // its size (an arithmetic mean of 1 MiB and 32 MiB busbw is the 32 MiB
  // figure's); a fabric that failed to measure one where another did scores
  // 0 on it.
  const size_t nf = ev.fabrics.size();
  const auto weight_of = [&](const std::string& c) {
    for (const auto& [k, w] : ev.weights.weight)
      if (k == c) return w;
    return 0.0;
  };
  const auto has_background = [&](size_t c) { return ev.conditions[c].is_loaded(); };
  const bool any_loaded = std::any_of(ev.conditions.begin(), ev.conditions.end(), [](const EvalCondition& c) {
    return c.is_loaded() && c.fabrics.empty();
  });
  for (const CriterionRule& rule : rules()) {
    const double w = weight_of(rule.criterion);
    if (w <= 0) continue;
    const MetricInfo* info = metric_info(rule.metric);
    EvalScore sc{
        rule.criterion,       w, std::vector<double>(nf, kNaN), std::vector<double>(nf, 0.0), {}, info->unit,
        info->lower_is_better};
    sc.cites.resize(nf);
    bool measured = false;
    for (size_t f = 0; f < nf; ++f) {
      double log_sum = 0;
      int n = 0;
      bool missing = false;
      bool zero = false;  // a figure of 0 (nothing delivered): the geometric mean is 0
      double only = 0;    // the figure, when there is one (exp(log(x)) may not give x back)
      for (size_t wi = 0; wi < ev.workloads.size(); ++wi) {
        const EvalWorkload& wl = ev.workloads[wi];
        if (!applies(rule, wl) || !wl.fabrics.empty()) continue;
        for (size_t p = 0; p < std::max<size_t>(1, wl.sweep_values.size()); ++p)
          for (size_t c = 0; c < ev.conditions.size(); ++c) {
            const bool want = rule.loaded && any_loaded ? has_background(c) : ev.conditions[c].is_baseline();
            // A condition some fabrics never meet (a misconfiguration only
            // one family can have) would score them on what the others skip.
            if (!want || !ev.conditions[c].fabrics.empty()) continue;
            const std::string id = figure_id(ev, f, wi, p, c, rule.metric);
            const EvalFigure* fig = find_figure(s, id);
            // The cell may not exist (a condition limited to other fabrics).
            const bool exists = std::any_of(cells.begin(), cells.end(), [&](const EvalCell& x) {
              return x.fabric == f && x.workload == wi && x.point == p && x.condition == c;
            });
            if (!exists) continue;
            measured = true;
            if (fig == nullptr) {
              missing = true;
              continue;
            }
            only = fig->mean;
            if (fig->mean > 0)
              log_sum += std::log(fig->mean);
            else
              zero = true;
            ++n;
            sc.cites[f] += (sc.cites[f].empty() ? "" : " ") + id;
          }
      }
      if (n > 0 && !missing) sc.value[f] = n == 1 ? only : zero ? 0.0 : std::exp(log_sum / n);
    }
    if (!measured) continue;
    double best = sc.lower_is_better ? std::numeric_limits<double>::infinity() : 0.0;
    for (double v : sc.value)
      if (std::isfinite(v)) best = sc.lower_is_better ? std::min(best, v) : std::max(best, v);
    for (size_t f = 0; f < nf; ++f) {
      const double v = sc.value[f];
      if (!std::isfinite(v) || !std::isfinite(best)) continue;
      sc.score[f] =
          sc.lower_is_better ? (v > 0 ? 100.0 * best / v : 100.0) : (best > 0 ? 100.0 * v / best : 100.0);
    }
    s.scores.push_back(std::move(sc));
  }

  // Congestion and resilience: the worst ratio of a workload's key metric
  // under a non-baseline condition to the same workload at baseline (1 =
  // unaffected; a workload that did not finish counts as infinitely
  // affected). Traffic beside the workload and nothing else is congestion;
  // a failure, a mis-setting or distance is resilience, with or without
  // traffic: one criterion answers "how does it cope when busy", the other
  // "when something breaks", and a fabric's worst figure under load no longer
  // stands for its failure recovery.
  for (const bool congestion : {true, false}) {
    const std::string name = congestion ? "congestion" : "resilience";
    const auto which = [congestion](const EvalCondition& c) {
      return c.fabrics.empty() && !c.is_baseline() && c.is_traffic_only() == congestion;
    };
    if (weight_of(name) <= 0 || std::none_of(ev.conditions.begin(), ev.conditions.end(), which)) continue;
    EvalScore sc{name,
                 weight_of(name),
                 std::vector<double>(nf, 1.0),
                 std::vector<double>(nf, 0.0),
                 std::vector<std::string>(nf),
                 "x baseline",
                 true};
    bool measured = false;
    for (size_t f = 0; f < nf; ++f) {
      const Slowdown w = worst_slowdown(ev, cells, s, f, which);
      measured = measured || w.measured;
      sc.value[f] = w.value;
      sc.cites[f] = w.cite;
    }
    if (measured) {
      double best = std::numeric_limits<double>::infinity();
      for (double v : sc.value) best = std::min(best, v);
      for (size_t f = 0; f < nf; ++f)
        sc.score[f] = std::isfinite(sc.value[f]) && std::isfinite(best) ? 100.0 * best / sc.value[f] : 0.0;
      s.scores.push_back(std::move(sc));
    }
  }

  // Cost: the same bill of materials for every fabric, priced per family.
  if (!cells.empty()) {
    const Topology t =
        build_topology(load_scenario_text(cells.front().scenario, "<" + cells.front().id + ">"));
    s.bom.nics = t.num_hosts();
    s.bom.switches = t.num_switches();
    for (const TopoLink& l : t.links) {
      // A host link takes one switch port, a fabric link two.
      s.bom.switch_ports_used += (t.nodes[l.a].kind == TopoNodeKind::kSwitch ? 1 : 0) +
                                 (t.nodes[l.b].kind == TopoNodeKind::kSwitch ? 1 : 0);
      if (!l.cable.empty()) {
        auto it = std::find_if(s.bom.cable_links.begin(), s.bom.cable_links.end(),
                               [&](const auto& c) { return c.first == l.cable; });
        if (it == s.bom.cable_links.end()) it = s.bom.cable_links.insert(it, {l.cable, 0});
        ++it->second;
        continue;
      }
      const bool host = t.nodes[l.a].kind == TopoNodeKind::kHost || t.nodes[l.b].kind == TopoNodeKind::kHost;
      (host ? s.bom.host_links : s.bom.fabric_links) += 1;
    }
    s.bom.link_gbps = ev.cluster.nic_rate.gbps();
  }
  for (size_t f = 0; f < nf; ++f) s.cost.push_back(compute_tco(s.bom, ev.cost[f]));
  if (weight_of("cost") > 0) {
    EvalScore sc{"cost",
                 weight_of("cost"),
                 std::vector<double>(nf, kNaN),
                 std::vector<double>(nf, 0.0),
                 std::vector<std::string>(nf),
                 "USD",
                 true};
    double best = std::numeric_limits<double>::infinity();
    for (size_t f = 0; f < nf; ++f)
      if (s.cost[f].applicable && s.cost[f].total > 0) {
        sc.value[f] = s.cost[f].total;
        sc.cites[f] = "cost." + ev.fabrics[f].name + ".total";
        best = std::min(best, sc.value[f]);
      }
    for (size_t f = 0; f < nf; ++f)
      if (std::isfinite(sc.value[f])) sc.score[f] = 100.0 * best / sc.value[f];
    if (std::isfinite(best)) s.scores.push_back(std::move(sc));
  }

  // Tuning effort: each mis-set cell against the same workload's baseline
  // cell (same fabric, first seed).
  s.tuning.resize(nf);
  for (size_t i = 0; i < cells.size(); ++i) {
    const EvalCell& c = cells[i];
    if (c.knob.empty() || c.assumption) continue;
    if (!outcomes[i].ok) s.failed_cells.push_back(c.id + ": " + outcomes[i].error);
    const char* metric = key_metric(ev.workloads[c.workload]);
    if (metric == nullptr) continue;
    size_t ref = cells.size();
    for (size_t k = 0; k < cells.size(); ++k)
      if (cells[k].knob.empty() && cells[k].servers == 0 && cells[k].fabric == c.fabric &&
          cells[k].workload == c.workload && cells[k].point == 0 && cells[k].condition == c.condition &&
          cells[k].seed == c.seed)
        ref = k;
    if (ref == cells.size() || !outcomes[ref].ok) continue;
    const auto value_of = [&](size_t k) {
      for (const auto& [m, v] : cell_metrics(ev.workloads[c.workload].type, outcomes[k].results))
        if (m == metric) return v;
      return kNaN;
    };
    const double b = value_of(ref);
    const double x = outcomes[i].ok ? value_of(i) : kNaN;
    if (!std::isfinite(b) || b <= 0) continue;
    const bool higher = !metric_info(metric)->lower_is_better;
    double worse = std::numeric_limits<double>::infinity();
    if (std::isfinite(x) && x > 0) worse = higher ? b / x - 1 : x / b - 1;
    EvalTuningResult& t = s.tuning[c.fabric];
    t.trials.push_back(EvalKnobTrial{c.knob, c.knob_change, c.knob_value, ev.workloads[c.workload].name,
                                     metric, b, x, worse, c.id});
    if (worse > ev.tuning.threshold &&
        std::find(t.sensitive.begin(), t.sensitive.end(), c.knob) == t.sensitive.end())
      t.sensitive.push_back(c.knob);
  }
  for (auto& t : s.tuning) {
    std::set<std::string> keys;
    for (const auto& tr : t.trials) keys.insert(tr.key);
    t.settings = keys.size();
  }
  if (weight_of("tuning") > 0 && !ev.tuning.workloads.empty()) {
    EvalScore sc{"tuning",
                 weight_of("tuning"),
                 std::vector<double>(nf, kNaN),
                 std::vector<double>(nf, 0.0),
                 std::vector<std::string>(nf),
                 "settings to get right",
                 true};
    double best = std::numeric_limits<double>::infinity();
    for (size_t f = 0; f < nf; ++f) {
      sc.value[f] = static_cast<double>(s.tuning[f].sensitive.size());
      sc.cites[f] = "tuning." + ev.fabrics[f].name + ".sensitive";
      best = std::min(best, sc.value[f]);
    }
    // One more than the count, so a fabric with none scores 100 and one
    // with a single knob is not written off.
    for (size_t f = 0; f < nf; ++f) sc.score[f] = 100.0 * (1 + best) / (1 + sc.value[f]);
    s.scores.push_back(std::move(sc));
  }

  s.total.assign(nf, 0.0);
  double wsum = 0;
  for (const auto& sc : s.scores) wsum += sc.weight;
  for (size_t f = 0; f < nf; ++f) {
    for (const auto& sc : s.scores) s.total[f] += sc.weight * sc.score[f];
    if (wsum > 0) s.total[f] /= wsum;
  }
  s.best = static_cast<size_t>(std::max_element(s.total.begin(), s.total.end()) - s.total.begin());
  return s;
}

}  // namespace rdmasim
