#include "evaluate/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "config/join.h"
#include "config/units_parse.h"
#include "evaluate/claims.h"
#include "report/html_page.h"
#include "report/svg_chart.h"

namespace rdmasim {
namespace {

using json = nlohmann::ordered_json;

// The report's content, rendered as Markdown and as HTML from the same model
// so the two never say different things.
struct ReportTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
// A paragraph, a table or (HTML only) a chart with its caption.
struct Block {
  std::string paragraph;
  ReportTable table;
  bool is_table = false;
  std::string svg;
};
struct Section {
  std::string title;
  std::vector<Block> blocks;
  void para(std::string p) { blocks.push_back(Block{std::move(p), {}, false, {}}); }
  void table(ReportTable t) { blocks.push_back(Block{{}, std::move(t), true, {}}); }
  void chart(std::string svg, std::string caption) {
    blocks.push_back(Block{std::move(caption), {}, false, std::move(svg)});
  }
};

// The metrics each workload shows in its results table, its key one first.
std::vector<std::string> shown_metrics(const EvalWorkload& w) {
  const std::string& type = w.type;
  if (type == "latency") return {"p50_us", "p99_us", "p999_us", "jitter_us"};
  if (type == "bandwidth") return {"gbps"};
  if (type == "collective") return {"busbw_GBps", "time_us", "nccl_model_us", "qps_per_nic"};
  if (type == "training") return {"iteration_ms", "exposed_comm_ms", "exposed_share"};
  if (type == "fct") return {"slowdown_p50", "slowdown_p99", "unfinished_flows"};
  // An OSU benchmark measures latency or bandwidth, never both: a column of
  // the other would read n/a in every row, and the bandwidth tests' key
  // figure is their bandwidth, as mpi_bandwidth scores it.
  if (type == "mpi")
    return is_osu_bandwidth(w) ? std::vector<std::string>{"bandwidth_MBps"}
                               : std::vector<std::string>{"small_latency_us", "large_latency_us"};
  if (type == "halo") return {"step_us", "communication_share"};
  if (type == "storage") return {"iops", "clat_p50_us", "clat_p99_us"};
  if (type == "stream") return {"deadline_misses", "stream_p99_us", "stream_jitter_us"};
  if (type == "scenario")
    return {"completion_us", "slowdown_p99", "fct_p99_us", "goodput_gbps", "unfinished_flows"};
  return {"completion_us", "goodput_gbps", "fct_p99_us", "unfinished_flows"};
}
const std::vector<std::string> kNetworkMetrics = {"drops", "lossless_drops", "pfc_pause_us",
                                                  "retransmitted_packets", "timeouts"};

std::string metric_title(const std::string& m) {
  static const std::map<std::string, std::string> t = {
      {"p50_us", "p50 [us]"},
      {"p99_us", "p99 [us]"},
      {"p999_us", "p99.9 [us]"},
      {"jitter_us", "jitter (stdev) [us]"},
      {"gbps", "bandwidth [Gb/s]"},
      {"busbw_GBps", "busbw [GB/s]"},
      {"qps_per_nic", "QPs on the busiest NIC"},
      {"nccl_model_us", "NCCL's model [us]"},
      {"time_us", "time [us]"},
      {"iteration_ms", "iteration [ms]"},
      {"exposed_comm_ms", "exposed comm. [ms]"},
      {"exposed_share", "exposed share"},
      {"slowdown_p50", "slowdown p50"},
      {"slowdown_p99", "slowdown p99"},
      {"unfinished_flows", "unfinished flows"},
      {"completion_us", "completion [us]"},
      {"goodput_gbps", "goodput [Gb/s]"},
      {"fct_p99_us", "FCT p99 [us]"},
      {"drops", "drops [pkts]"},
      {"lossless_drops", "lossless drops"},
      {"pfc_pause_us", "PFC pause [port-us]"},
      {"retransmitted_packets", "retransmitted [pkts]"},
      {"timeouts", "timeouts"},
      {"small_latency_us", "smallest message [us]"},
      {"large_latency_us", "largest message [us]"},
      {"bandwidth_MBps", "bandwidth [MB/s]"},
      {"step_us", "step [us]"},
      {"communication_share", "communication share"},
      {"iops", "IOPS"},
      {"clat_p50_us", "clat p50 [us]"},
      {"clat_p99_us", "clat p99 [us]"},
      {"deadline_misses", "deadline misses"},
      {"stream_p99_us", "p99 [us]"},
      {"stream_jitter_us", "jitter [us]"},
  };
  const auto it = t.find(m);
  return it == t.end() ? m : it->second;
}

// A criterion's value with its unit, in the singular for one: "1 setting
// to get right", not "1 settings".
std::string with_unit(double v, const std::string& unit) {
  std::string u = unit;
  if (v == 1 && u.starts_with("settings ")) u.erase(7, 1);
  return report_number(v) + " " + u;
}

std::string figure_text(const EvalFigure* f) {
  if (f == nullptr) return "n/a";
  if (f->seeds > 1 && f->min != f->max)
    return fmt::format("{} ({}-{})", report_number(f->mean), report_number(f->min), report_number(f->max));
  return report_number(f->mean);
}

std::string fig_id(const Evaluation& ev, size_t f, size_t w, size_t p, size_t c, const std::string& metric) {
  const EvalWorkload& wl = ev.workloads[w];
  std::string id = ev.fabrics[f].name + "." + wl.name;
  if (!wl.sweep_key.empty()) id += "-" + eval_point_label(wl, p);
  return id + "." + ev.conditions[c].name + "." + metric;
}

bool cell_exists(const EvalReportInput& in, size_t f, size_t w, size_t p, size_t c) {
  for (const auto& x : in.cells)
    if (x.fabric == f && x.workload == w && x.point == p && x.condition == c) return true;
  return false;
}

std::string condition_text(const EvalCondition& c) {
  if (c.is_baseline()) return "idle fabric, nothing mis-set";
  std::string s;
  const auto add = [&](const std::string& x) { s += (s.empty() ? "" : "; ") + x; };
  if (c.background_load > 0)
    add(fmt::format("background {}% per NIC from {}", report_number(c.background_load * 100),
                    c.background_cdf));
  if (c.incast_senders > 0)
    add(c.incast_elsewhere
            ? fmt::format(
                  "an incast of {} senders x {} into another host, the measured workload's source among "
                  "its senders: the measured traffic never enters the congested port",
                  c.incast_senders, c.incast_size)
            : fmt::format("an incast of {} senders x {} into the measured workload's receiver",
                          c.incast_senders, c.incast_size));
  if (c.down_at) {
    add("link " + (c.link == "auto" ? std::string("auto (the first leaf's first uplink)") : c.link) +
        " down at " + format_time(*c.down_at) +
        (c.up_at ? ", up at " + format_time(*c.up_at) : std::string()));
  }
  if (c.misconfig.IsSequence())
    for (const auto& item : c.misconfig) {
      // "switch all: pfc.headroom = 2KB", as the run labels it.
      std::string target;
      std::vector<std::string> keys;
      std::function<void(const YAML::Node&, const std::string&)> flatten = [&](const YAML::Node& n,
                                                                               const std::string& at) {
        if (n.IsMap()) {
          for (const auto& kv : n)
            flatten(kv.second, at.empty() ? kv.first.Scalar() : at + "." + kv.first.Scalar());
        } else if (n.IsScalar()) {
          keys.push_back(at + " = " + n.Scalar());
        } else {
          YAML::Emitter em;
          em << YAML::Flow << n;
          keys.push_back(at + " = " + em.c_str());
        }
      };
      for (const auto& kv : item) {
        if (kv.first.Scalar() == "set")
          flatten(kv.second, "");
        else if (kv.second.IsScalar())
          target = kv.first.Scalar() + " " + kv.second.Scalar();
      }
      add("mis-set on " + target + ": " + join_names(keys));
    }
  if (!c.distance.empty()) add("switch-to-switch links stretched to " + c.distance + " of fibre");
  for (const auto& [k, v] : c.set) add(fmt::format("{} = {}", k, v));
  if (!c.fabrics.empty()) {
    std::string f;
    for (const auto& x : c.fabrics) f += (f.empty() ? "" : ", ") + x;
    add("on " + f + " only");
  }
  return s;
}

std::vector<std::string> fabric_names(const Evaluation& ev) {
  std::vector<std::string> v;
  for (const auto& f : ev.fabrics) v.push_back(f.name);
  return v;
}

std::string score_chart(const EvalReportInput& in) {
  BarChart c;
  c.title = "Score per criterion (100 = best fabric on it)";
  for (const auto& sc : in.summary.scores) c.categories.push_back(sc.criterion);
  // The decision itself beside what it is made of.
  c.categories.emplace_back("weighted score");
  for (size_t f = 0; f < in.ev.fabrics.size(); ++f) {
    BarSeries b{in.ev.fabrics[f].name, {}, {}};
    for (const auto& sc : in.summary.scores) b.values.push_back(sc.score[f]);
    b.values.push_back(in.summary.total[f]);
    c.series.push_back(std::move(b));
  }
  c.value_axis.title = "score";
  c.value_axis.max = 100;
  c.size = {900, 380};
  return render_svg(c, SeriesColors(fabric_names(in.ev)));
}

std::string cost_chart(const EvalReportInput& in) {
  StackedBarChart c;
  c.title = "Total cost of ownership";
  c.horizontal = true;
  c.value_labels = true;
  std::vector<std::string> items;
  for (size_t f = 0; f < in.ev.fabrics.size(); ++f) {
    if (!in.summary.cost[f].applicable) continue;
    c.categories.push_back(in.ev.fabrics[f].name);
    for (const auto& l : in.summary.cost[f].lines)
      if (std::find(items.begin(), items.end(), l.item) == items.end()) items.push_back(l.item);
  }
  for (const auto& item : items) {
    BarSeries b{item, {}, {}};
    for (size_t f = 0; f < in.ev.fabrics.size(); ++f) {
      if (!in.summary.cost[f].applicable) continue;
      double v = 0;
      for (const auto& l : in.summary.cost[f].lines)
        if (l.item == item) v = l.usd;
      b.values.push_back(v);
    }
    c.series.push_back(std::move(b));
  }
  c.value_axis.title = "USD";
  c.size = {900, 120.0 + 50.0 * static_cast<double>(c.categories.size())};
  return render_svg(c, SeriesColors(items));
}

using FigureOf =
    std::function<const EvalFigure*(size_t fabric, size_t point, size_t condition, const std::string&)>;

// Congestion and resilience score a fabric's single worst slowdown, not a
// mean of figures, and a workload that did not finish counts in them.
bool worst_slowdown_criterion(const EvalScore& sc) {
  return sc.criterion == "congestion" || sc.criterion == "resilience";
}

size_t baseline_of(const Evaluation& ev) {
  for (size_t k = 0; k < ev.conditions.size(); ++k)
    if (ev.conditions[k].is_baseline()) return k;
  return 0;
}

// The span of a criterion's value over the assumption sweep: its figures'
// geometric mean with each at the low end of its swept range, and with each
// at the high end, the ids cited as "low:<id>" and "high:<id>", and the
// settings that move any of them. Nothing when a figure was not swept (or
// `cites` names something other than figures: a ratio, a total).
// The figures a criterion's `cites` name, or nothing when one of them is not
// a figure (a ratio of two, a total).
std::optional<std::vector<const EvalFigure*>> cited_figures(const EvalSummary& s, const std::string& cites) {
  std::vector<const EvalFigure*> figs;
  std::istringstream ids(cites);
  std::string id;
  while (ids >> id) {
    const EvalFigure* x = find_figure(s, id);
    if (x == nullptr) return std::nullopt;
    figs.push_back(x);
  }
  if (figs.empty()) return std::nullopt;
  return figs;
}

// The criterion's value with each of its figures at `end(figure)`: their
// geometric mean, as the criterion scores them; one figure as it is
// (exp(log(x)) may not give x back). Nothing when a figure of several is not
// positive.
template <typename End>
std::optional<double> criterion_at(const std::vector<const EvalFigure*>& figs, End end) {
  if (figs.size() == 1) return end(*figs[0]);
  double log_sum = 0;
  for (const EvalFigure* x : figs) {
    if (!(end(*x) > 0)) return std::nullopt;
    log_sum += std::log(end(*x));
  }
  return std::exp(log_sum / static_cast<double>(figs.size()));
}

// The span of a criterion's value over the assumption sweep: with each
// figure at the low end of its swept range, and with each at the high end,
// the ids cited as "low:<id>" and "high:<id>", and the settings that move
// any of them. Nothing when a figure was not swept.
struct AssumedSpan {
  double low = 0;
  double high = 0;
  std::string low_cite;
  std::string high_cite;
  std::string keys;
};
std::optional<AssumedSpan> assumed_span(const EvalSummary& s, const std::string& cites) {
  const auto figs = cited_figures(s, cites);
  if (!figs) return std::nullopt;
  AssumedSpan out;
  std::vector<std::string> keys;
  for (const EvalFigure* x : *figs) {
    if (std::isnan(x->assumed_low)) return std::nullopt;
    out.low_cite += (out.low_cite.empty() ? "low:" : " low:") + x->id;
    out.high_cite += (out.high_cite.empty() ? "high:" : " high:") + x->id;
    for (const auto& k : x->depends_on)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  const auto low = criterion_at(*figs, [](const EvalFigure& x) { return x.assumed_low; });
  const auto high = criterion_at(*figs, [](const EvalFigure& x) { return x.assumed_high; });
  if (!low || !high) return std::nullopt;
  out.low = *low;
  out.high = *high;
  for (const auto& k : keys) out.keys += (out.keys.empty() ? "" : ", ") + k;
  return out;
}

// Whether `lead` stays ahead of every other fabric with each at the far end
// of its span (`spans` per fabric: low, high; none for a fabric without one).
bool lead_holds(const std::vector<std::optional<std::pair<double, double>>>& spans, size_t lead,
                bool lower_is_better) {
  if (!spans[lead]) return true;
  const double lead_worst = lower_is_better ? spans[lead]->second : spans[lead]->first;
  for (size_t f = 0; f < spans.size(); ++f) {
    if (f == lead || !spans[f]) continue;
    const double other_best = lower_is_better ? spans[f]->first : spans[f]->second;
    if (lower_is_better ? other_best <= lead_worst : other_best >= lead_worst) return false;
  }
  return true;
}

// How far the seeds move a criterion and whether its lead survives that:
// each fabric's value with every figure at its least seed, then at its
// greatest. Empty with one seed or when every seed gave the same figures.
std::string seed_spread(const EvalReportInput& in, const EvalScore& sc, size_t lead) {
  const size_t nf = in.ev.fabrics.size();
  if (in.ev.seeds.size() < 2) return {};
  std::string ranges;
  std::vector<std::optional<std::pair<double, double>>> spans(nf);
  bool spread = false;
  for (size_t f = 0; f < nf; ++f) {
    const auto figs = cited_figures(in.summary, sc.cites[f]);
    if (!figs) continue;
    const auto lo = criterion_at(*figs, [](const EvalFigure& x) { return x.min; });
    const auto hi = criterion_at(*figs, [](const EvalFigure& x) { return x.max; });
    if (!lo || !hi) continue;
    spans[f] = std::pair{*lo, *hi};
    // Ends that print alike (1.993-1.993) print once.
    const std::string low = report_number(*lo);
    const bool one = low == report_number(*hi);
    spread = spread || !one;
    ranges += fmt::format("{} {}; ", in.ev.fabrics[f].name,
                          one ? with_unit(*lo, sc.unit) : fmt::format("{}-{}", low, with_unit(*hi, sc.unit)));
  }
  if (!spread) return {};
  return fmt::format(
      "Over the {} seeds (each figure at its least, then at its greatest): {}the lead on {} {}.",
      in.ev.seeds.size(), ranges, sc.criterion,
      lead_holds(spans, lead, sc.lower_is_better)
          ? "holds on every seed"
          : "is within the seeds' spread: another seed could change it");
}

// A ratio to three significant digits, whole from 100 ("x2.52", "x1038").
std::string ratio_text(double r) { return r >= 100 ? fmt::format("{:.0f}", r) : fmt::format("{:.3g}", r); }

// The decision's criteria read the idle fabric (tail latency, congestion
// and resilience aside). This table gives each workload's key metric under every other
// condition all fabrics meet, with each figure's ratio to the same fabric
// idle, and who leads there: a fabric that wins idle may not under load.
// `changed`: the rows whose leader is not the idle one. Empty without a
// baseline condition.
struct BesideIdle {
  ReportTable table;
  size_t changed = 0;
};
BesideIdle beside_idle(const EvalReportInput& in) {
  const Evaluation& ev = in.ev;
  BesideIdle out;
  const size_t base = baseline_of(ev);
  if (ev.conditions.empty() || !ev.conditions[base].is_baseline()) return out;
  out.table.header = {"workload, condition", "metric"};
  for (const auto& f : ev.fabrics) out.table.header.push_back(f.name);
  out.table.header.emplace_back("leader");
  for (size_t w = 0; w < ev.workloads.size(); ++w) {
    const EvalWorkload& wl = ev.workloads[w];
    if (!wl.fabrics.empty()) continue;  // on some fabrics only: not a comparison
    // A latency probe's tail is what load and failures move.
    const std::string metric = wl.type == "latency" ? "p999_us" : shown_metrics(wl).front();
    for (size_t p = 0; p < std::max<size_t>(1, wl.sweep_values.size()); ++p) {
      // The leader under condition c, or npos when a fabric lacks the figure.
      const auto leader = [&](size_t c) {
        size_t lead = std::string::npos;
        for (size_t f = 0; f < ev.fabrics.size(); ++f) {
          const EvalFigure* x = find_figure(in.summary, fig_id(ev, f, w, p, c, metric));
          if (x == nullptr) return std::string::npos;
          const EvalFigure* l = lead == std::string::npos
                                    ? nullptr
                                    : find_figure(in.summary, fig_id(ev, lead, w, p, c, metric));
          if (l == nullptr || (x->lower_is_better ? x->mean < l->mean : x->mean > l->mean)) lead = f;
        }
        return lead;
      };
      const size_t idle = leader(base);
      for (size_t c = 0; c < ev.conditions.size(); ++c) {
        if (c == base || !ev.conditions[c].fabrics.empty()) continue;
        std::vector<std::string> row = {
            wl.name + (wl.sweep_key.empty() ? std::string() : " " + eval_point_label(wl, p)) + ", " +
                ev.conditions[c].name,
            metric_title(metric)};
        bool ran = false;
        bool moved = false;  // some figure differs from idle: the condition reached the workload
        for (size_t f = 0; f < ev.fabrics.size(); ++f) {
          if (!cell_exists(in, f, w, p, c)) {
            row.emplace_back("-");
            continue;
          }
          ran = true;
          const EvalFigure* x = find_figure(in.summary, fig_id(ev, f, w, p, c, metric));
          const EvalFigure* b = find_figure(in.summary, fig_id(ev, f, w, p, base, metric));
          if (x == nullptr) {
            row.emplace_back("did not finish");
            moved = true;
            continue;
          }
          moved = moved || b == nullptr || b->mean != x->mean;
          row.push_back(b != nullptr && b->mean > 0
                            ? fmt::format("{} (x{})", report_number(x->mean), ratio_text(x->mean / b->mean))
                            : report_number(x->mean));
        }
        if (!ran || !moved) continue;
        const size_t now = leader(c);
        if (now == std::string::npos || idle == std::string::npos)
          row.emplace_back("-");
        else if (now == idle)
          row.push_back(ev.fabrics[now].name + " (also idle)");
        else
          row.push_back(ev.fabrics[now].name + " (idle: " + ev.fabrics[idle].name + ")");
        out.changed += now != idle && now != std::string::npos && idle != std::string::npos ? 1 : 0;
        out.table.rows.push_back(std::move(row));
      }
    }
  }
  return out;
}

// Whether the recommendation rests on any one criterion: the weighted
// totals with each criterion left out in turn, and where that changes the
// leader. A pick that one criterion decides should say so.
std::string recommendation_robustness(const EvalReportInput& in) {
  const EvalSummary& s = in.summary;
  const size_t nf = in.ev.fabrics.size();
  if (s.scores.size() < 2 || nf < 2) return {};
  double wsum = 0;
  for (const auto& sc : s.scores) wsum += sc.weight;
  if (wsum <= 0) return {};
  // The weighted totals with criteria i and j (npos: none) left out; empty
  // when nothing is left to weigh.
  constexpr size_t kNone = std::string::npos;
  const auto totals_without = [&](size_t i, size_t j) {
    double w = wsum;
    for (size_t k : {i, j})
      if (k != kNone) w -= s.scores[k].weight;
    std::vector<double> total;
    if (w <= 0) return total;
    total.assign(nf, 0.0);
    for (size_t f = 0; f < nf; ++f) {
      for (size_t k = 0; k < s.scores.size(); ++k)
        if (k != i && k != j) total[f] += s.scores[k].weight * s.scores[k].score[f];
      total[f] /= w;
    }
    return total;
  };
  // The fabric other than the recommended one with the highest total.
  const auto runner_up = [&](const std::vector<double>& total) {
    size_t r = s.best == 0 ? 1 : 0;
    for (size_t f = 0; f < nf; ++f)
      if (f != s.best && total[f] > total[r]) r = f;
    return r;
  };
  std::vector<std::string> turns;
  for (size_t i = 0; i < s.scores.size(); ++i) {
    const std::vector<double> total = totals_without(i, kNone);
    if (total.empty()) continue;
    const size_t lead = static_cast<size_t>(std::max_element(total.begin(), total.end()) - total.begin());
    if (lead != s.best)
      turns.push_back(fmt::format("without {}, {} leads ({} against {})", s.scores[i].criterion,
                                  in.ev.fabrics[lead].name, report_number(total[lead]),
                                  report_number(total[s.best])));
  }
  std::string out =
      turns.empty() ? " It leads with any one criterion left out."
                    : " Left out one at a time, criteria change the lead: " + join_names(turns, "; ") + ".";
  // What the lead over the runner-up is made of: each criterion's weighted
  // score difference, in points of the total (they sum to the margin).
  const size_t runner = runner_up(s.total);
  std::vector<std::pair<double, std::string>> parts;
  for (const auto& sc : s.scores)
    parts.emplace_back(sc.weight * (sc.score[s.best] - sc.score[runner]) / wsum, sc.criterion);
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> ahead;
  std::vector<std::string> behind;
  for (const auto& [points, criterion] : parts) {
    if (points >= 0.005 && ahead.size() < 3)
      ahead.push_back(fmt::format("{} (+{})", criterion, report_number(points)));
    if (points <= -0.005) behind.push_back(fmt::format("{} ({})", criterion, report_number(points)));
  }
  out += fmt::format(" Its lead of {} points over {} comes most from {}",
                     report_number(s.total[s.best] - s.total[runner]), in.ev.fabrics[runner].name,
                     join_names(ahead, ", "));
  out += behind.empty()
             ? "."
             : fmt::format("; {} is ahead on {}.", in.ev.fabrics[runner].name, join_names(behind, ", "));
  // The two criteria whose removal together narrows the lead most (or
  // turns it over).
  double pair_margin = std::numeric_limits<double>::infinity();
  std::string pair;
  size_t pair_other = runner;
  for (size_t i = 0; i < s.scores.size(); ++i)
    for (size_t j = i + 1; j < s.scores.size(); ++j) {
      const std::vector<double> total = totals_without(i, j);
      if (total.empty()) continue;
      const size_t other = runner_up(total);
      if (total[s.best] - total[other] < pair_margin) {
        pair_margin = total[s.best] - total[other];
        pair = s.scores[i].criterion + " and " + s.scores[j].criterion;
        pair_other = other;
      }
    }
  if (std::isfinite(pair_margin))
    out += pair_margin < 0 ? fmt::format(" Without both {}, {} leads by {} points.", pair,
                                         in.ev.fabrics[pair_other].name, report_number(-pair_margin))
                           : fmt::format(" Without both {}, its lead narrows most: to {} points over {}.",
                                         pair, report_number(pair_margin), in.ev.fabrics[pair_other].name);
  return out;
}

// A criterion read from several figures (sizes, conditions) scores their
// geometric mean, which a bare "73.11 GB/s" does not say: " (the geometric
// mean of allreduce-1MiB.baseline and allreduce-32MiB.baseline busbw_GBps)", from
// the leader's cited ids; empty for a single figure.
std::string mean_of(const std::string& cites, const std::string& fabric) {
  std::vector<std::string> parts;
  std::string metric;
  size_t at = 0;
  while (at < cites.size()) {
    const size_t end = std::min(cites.find(' ', at), cites.size());
    const std::string id = cites.substr(at, end - at);
    at = end + 1;
    const size_t dot = id.rfind('.');
    if (id.rfind(fabric + ".", 0) != 0 || dot == std::string::npos || dot <= fabric.size()) return {};
    metric = id.substr(dot + 1);
    parts.push_back(id.substr(fabric.size() + 1, dot - fabric.size() - 1));
  }
  if (parts.size() < 2) return {};
  const std::string last = parts.back();
  parts.pop_back();
  return " (the geometric mean of " + join_names(parts) + " and " + last + " " + metric + ")";
}

// The conditions workload `w` ran under on some fabric: a chart per
// condition leaves out those limited to other workloads.
std::vector<size_t> conditions_run(const EvalReportInput& in, size_t w) {
  std::vector<size_t> out;
  for (size_t k = 0; k < in.ev.conditions.size(); ++k)
    if (std::any_of(in.cells.begin(), in.cells.end(),
                    [&](const EvalCell& c) { return c.workload == w && c.condition == k && c.knob.empty(); }))
      out.push_back(k);
  return out;
}

// The conditions under which every figure of workload `w` equals the
// baseline's, for every fabric: the condition never reached the workload
// (a failed link that carries none of its traffic). A table of repeated
// rows does not say so, and reads as fabrics that shrug the condition off.
std::vector<std::string> untouched_conditions(const EvalReportInput& in, size_t w,
                                              const std::vector<std::string>& metrics) {
  const Evaluation& ev = in.ev;
  std::vector<std::string> out;
  const size_t base = baseline_of(ev);
  if (ev.conditions.empty() || !ev.conditions[base].is_baseline()) return out;
  const size_t points = std::max<size_t>(1, ev.workloads[w].sweep_values.size());
  for (size_t c = 0; c < ev.conditions.size(); ++c) {
    if (c == base) continue;
    size_t compared = 0;
    bool same = true;
    for (size_t f = 0; f < ev.fabrics.size() && same; ++f)
      for (size_t p = 0; p < points && same; ++p) {
        if (!cell_exists(in, f, w, p, c) || !cell_exists(in, f, w, p, base)) continue;
        for (const auto& m : metrics) {
          const EvalFigure* b = find_figure(in.summary, fig_id(ev, f, w, p, base, m));
          const EvalFigure* x = find_figure(in.summary, fig_id(ev, f, w, p, c, m));
          if (b == nullptr && x == nullptr) continue;
          if (b == nullptr || x == nullptr || b->mean != x->mean || b->min != x->min || b->max != x->max) {
            same = false;
            break;
          }
          ++compared;
        }
      }
    if (same && compared > 0) out.push_back(ev.conditions[c].name);
  }
  return out;
}

// SHARP reduces in the switches and multicasts the result down as
// aggregation packets, not RDMA data: the incident monitor, which counts the
// RDMA payload the hosts' ports receive, sees none of it.
bool is_sharp(const EvalWorkload& wl) { return wl.keys["algo"] && wl.keys["algo"].Scalar() == "sharp"; }

bool delivered_nothing(const EvalThroughputSeries& t) {
  return std::all_of(t.points.begin(), t.points.end(), [](const auto& p) { return p.second == 0; });
}

// Under a condition with a fault: the throughput the hosts received over
// time (not for latency tests), per fabric (first size, first seed), so the dip and the recovery are
// seen side by side; the fault's time in the title. Where one fabric takes
// far longer than the rest (TCP's 200 ms minimum RTO), the time axis ends
// where the others have finished, or they would be a spike at zero; the
// lines cut are labelled with where they end. Where the monitor cannot see
// the workload's traffic, a sentence says so instead of a flat zero line.
std::vector<Block> failure_charts(const EvalReportInput& in, size_t w,
                                  const std::vector<std::string>& untouched) {
  const Evaluation& ev = in.ev;
  const EvalWorkload& wl = ev.workloads[w];
  const SeriesColors colors(fabric_names(ev));
  std::vector<Block> out;
  // A latency test moves a message at a time: its throughput says nothing.
  if (wl.type == "latency") return out;
  for (size_t k = 0; k < ev.conditions.size(); ++k) {
    LineChart c;
    const EvalCondition& cond = ev.conditions[k];
    // A condition that never reached the workload would chart its baseline
    // again; the section already says it did not reach it.
    if (std::find(untouched.begin(), untouched.end(), cond.name) != untouched.end()) continue;
    c.title = wl.name + ": throughput delivered to the hosts over time, " + cond.name;
    if (cond.down_at) c.title += " (link down at " + format_time(*cond.down_at) + ")";
    c.x = Axis{"time", AxisScale::kLinear, AxisUnit::kSeconds, 0.0, {}, true};
    c.y = Axis{"Gb/s", AxisScale::kLinear, AxisUnit::kNone, 0.0, {}, true};
    std::vector<std::string> unseen;
    for (size_t f = 0; f < ev.fabrics.size(); ++f)
      for (const EvalThroughputSeries& t : in.summary.throughput)
        if (t.fabric == f && t.workload == w && t.point == 0 && t.condition == k) {
          if (is_sharp(wl) && delivered_nothing(t)) {
            unseen.push_back(ev.fabrics[f].name);
            continue;
          }
          LineSeries ser{ev.fabrics[f].name, {}};
          for (const auto& [us, gbps] : t.points) ser.points.push_back({us * 1e-6, gbps});
          c.series.push_back(std::move(ser));
        }
    if (!unseen.empty()) {
      std::string names;
      for (const auto& n : unseen) names += (names.empty() ? "" : ", ") + n;
      out.push_back(
          Block{fmt::format("No throughput-over-time chart for {} under {} on {}: SHARP reduces in the "
                            "switches and sends the result down as aggregation packets, which the "
                            "incident monitor (it counts the RDMA payload the hosts' ports receive) "
                            "does not see, so it would read zero throughout; for the same reason no "
                            "dip or recovery is measured for it.",
                            wl.name, cond.name, names),
                {},
                false,
                {}});
    }
    if (c.series.empty()) continue;
    if (const auto cut = cut_x_axis_end(c.series)) {
      c.x.max = *cut;
      std::string past;
      for (const LineSeries& ser : c.series)
        if (!ser.points.empty() && ser.points.back().x > *cut) past += (past.empty() ? "" : ", ") + ser.name;
      c.note = "Time axis cut at " + format_value(*cut, AxisUnit::kSeconds) +
               " so every line reads; past it run " + past + " (each labelled at the cut with when it ends)";
    }
    if (cond.down_at) c.marks.push_back({cond.down_at->ps() * 1e-12, "link down"});
    if (cond.up_at) c.marks.push_back({cond.up_at->ps() * 1e-12, "link up"});
    c.size = {760, 340};
    out.push_back(Block{{}, {}, false, render_svg(c, colors)});
  }
  return out;
}

// The charts a workload's results read best as.
// `untouched`: the conditions that never reached the workload (its figures
// all equal baseline's), whose distributions would repeat baseline's.
std::vector<std::string> workload_charts(const EvalReportInput& in, size_t w, const FigureOf& fig,
                                         const std::vector<std::string>& untouched) {
  const Evaluation& ev = in.ev;
  const EvalWorkload& wl = ev.workloads[w];
  const SeriesColors colors(fabric_names(ev));
  const size_t base = baseline_of(ev);
  if (wl.sweep_values.size() > 1) {
    const std::string metric = wl.type == "collective"  ? "busbw_GBps"
                               : wl.type == "latency"   ? "p50_us"
                               : wl.type == "bandwidth" ? "gbps"
                                                        : "completion_us";
    LineChart c;
    c.title = wl.name + ": " + metric_title(metric) + " vs size (" + ev.conditions[base].name + ")";
    c.x = Axis{"size", AxisScale::kLog2, AxisUnit::kBytes, {}, {}, false};
    c.y = Axis{metric_title(metric), AxisScale::kLinear, AxisUnit::kNone, {}, {}, true};
    c.markers = true;
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      LineSeries ser{ev.fabrics[f].name, {}};
      for (size_t p = 0; p < wl.sweep_values.size(); ++p) {
        const EvalFigure* x = fig(f, p, base, metric);
        if (x == nullptr) continue;
        try {
          ser.points.push_back({static_cast<double>(parse_bytes(wl.sweep_values[p]).count()), x->mean});
        } catch (const std::invalid_argument&) {
          // a sweep of something other than sizes: no chart point
        }
      }
      c.series.push_back(std::move(ser));
    }
    c.size = {760, 380};
    return {render_svg(c, colors)};
  }
  if (wl.type == "latency") {
    std::vector<std::string> svgs;
    // The distributions, one chart per condition: where the tail goes under
    // load. The share of round trips slower than each latency, on a log
    // scale, so p99 and p99.9 (0.01 and 0.001) are as far apart as p50 and
    // p90; the slowest of n sits at 1/n.
    for (size_t k = 0; k < ev.conditions.size(); ++k) {
      if (std::find(untouched.begin(), untouched.end(), ev.conditions[k].name) != untouched.end()) continue;
      LineChart cdf;
      cdf.title = wl.name + ": share of round trips slower than each latency, " + ev.conditions[k].name;
      cdf.x = Axis{"latency [us]", AxisScale::kLog10, AxisUnit::kNone, {}, {}, false};
      cdf.y = Axis{"fraction slower (log)", AxisScale::kLog10, AxisUnit::kNone, {}, 1.0, false};
      cdf.markers = true;
      for (size_t f = 0; f < ev.fabrics.size(); ++f)
        for (const EvalCdf& d : in.summary.cdfs)
          if (d.fabric == f && d.workload == w && d.point == 0 && d.condition == k) {
            LineSeries ser{ev.fabrics[f].name, {}};
            for (const auto& [q, v] : d.points) {
              const double slower = q < 1           ? 1 - q
                                    : d.samples > 0 ? 1.0 / static_cast<double>(d.samples)
                                                    : 0.0;
              if (slower > 0) ser.points.push_back({v, slower});
            }
            cdf.series.push_back(std::move(ser));
          }
      if (cdf.series.empty()) continue;
      cdf.size = {760, 340};
      svgs.push_back(render_svg(cdf, colors));
    }
    BarChart c;
    c.title = wl.name + ": p99 latency per condition (whiskers: p50 to p99.9)";
    const std::vector<size_t> conds = conditions_run(in, w);
    for (size_t k : conds) c.categories.push_back(ev.conditions[k].name);
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      BarSeries b{ev.fabrics[f].name, {}, {}};
      for (size_t k : conds) {
        const EvalFigure* p99 = fig(f, 0, k, "p99_us");
        const EvalFigure* p50 = fig(f, 0, k, "p50_us");
        const EvalFigure* p999 = fig(f, 0, k, "p999_us");
        b.values.push_back(p99 != nullptr ? p99->mean : std::nan(""));
        b.ranges.push_back(p50 != nullptr && p999 != nullptr
                               ? std::optional<ValueRange>(ValueRange{p50->mean, p999->mean})
                               : std::nullopt);
      }
      c.series.push_back(std::move(b));
    }
    c.value_axis.title = "latency [us]";
    c.size = {900, 380};
    svgs.insert(svgs.begin(), render_svg(c, colors));
    return svgs;
  }
  if (wl.type == "fct") {
    // p99 slowdown per flow-size bucket, at baseline: the classic FCT chart.
    BarChart c;
    c.title = wl.name + ": p99 FCT slowdown by flow size (" + ev.conditions[base].name + ")";
    for (const EvalFigure& x : in.summary.figures)
      if (x.workload == w && x.condition == base && x.metric.rfind("slowdown_p99@", 0) == 0) {
        const std::string bucket = x.metric.substr(13);
        if (std::find(c.categories.begin(), c.categories.end(), bucket) == c.categories.end())
          c.categories.push_back(bucket);
      }
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      BarSeries b{ev.fabrics[f].name, {}, {}};
      for (const auto& bucket : c.categories) {
        const EvalFigure* x = fig(f, 0, base, "slowdown_p99@" + bucket);
        b.values.push_back(x != nullptr ? x->mean : std::nan(""));
      }
      c.series.push_back(std::move(b));
    }
    c.value_axis.title = "p99 slowdown (FCT / FCT alone)";
    c.size = {900, 380};
    return {render_svg(c, colors)};
  }
  if (wl.type == "training") {
    StackedBarChart c;
    c.title = wl.name + ": iteration time (" + ev.conditions[base].name + ")";
    c.value_labels = true;
    BarSeries other{"compute and hidden communication", {}, {}};
    BarSeries exposed{"exposed communication", {}, {}};
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      const EvalFigure* it = fig(f, 0, base, "iteration_ms");
      const EvalFigure* ex = fig(f, 0, base, "exposed_comm_ms");
      if (it == nullptr || ex == nullptr) continue;
      c.categories.push_back(ev.fabrics[f].name);
      other.values.push_back(it->mean - ex->mean);
      exposed.values.push_back(ex->mean);
    }
    c.series = {other, exposed};
    c.value_axis.title = "ms";
    c.size = {760, 360};
    return {render_svg(c)};
  }
  // One number per fabric and condition.
  const std::string metric = wl.type == "bandwidth"    ? "gbps"
                             : wl.type == "collective" ? "busbw_GBps"
                             : wl.type == "fct"        ? "slowdown_p99"
                                                       : "completion_us";
  BarChart c;
  c.title = wl.name + ": " + metric_title(metric) + " per condition";
  const std::vector<size_t> conds = conditions_run(in, w);
  for (size_t k : conds) c.categories.push_back(ev.conditions[k].name);
  for (size_t f = 0; f < ev.fabrics.size(); ++f) {
    BarSeries b{ev.fabrics[f].name, {}, {}};
    for (size_t k : conds) {
      const EvalFigure* x = fig(f, 0, k, metric);
      b.values.push_back(x != nullptr ? x->mean : std::nan(""));
    }
    c.series.push_back(std::move(b));
  }
  c.value_axis.title = metric_title(metric);
  // A failure's recovery (a 200 ms RTO) can dwarf every other bar by 1000x:
  // on one linear axis the rest would not show. Cut the axis above the
  // typical bar and print every bar's value, the cut ones' at the cut.
  std::vector<double> all;
  for (const auto& b : c.series)
    for (double v : b.values)
      if (std::isfinite(v) && v > 0) all.push_back(v);
  if (all.size() >= 3) {
    std::sort(all.begin(), all.end());
    const double median = all[all.size() / 2];
    if (all.back() > 10 * median) {
      c.value_axis.max = 4 * median;
      c.value_labels = true;
      const std::string title = metric_title(metric);
      const size_t open = title.rfind('[');
      const std::string unit =
          open == std::string::npos ? std::string() : " " + title.substr(open + 1, title.size() - open - 2);
      c.title += " (axis cut at " + report_number(4 * median) + unit + "; the bars above it are labelled)";
    }
  }
  c.size = {900, 380};
  return {render_svg(c, colors)};
}

// How each scale workload's key metric moves with the server count: a table
// and a chart per workload point.
Section scale_section(const EvalReportInput& in) {
  const Evaluation& ev = in.ev;
  const EvalSummary& s = in.summary;
  Section sc{"Scale", {}};
  sc.para(
      "The same cluster with other server counts (same GPUs per server, NICs, topology and fabric "
      "settings), each scale workload at baseline: how its key metric moves as the cluster grows, and for "
      "collectives the connection state it takes (QPs on the busiest NIC, each QP's context held at both "
      "ends).");
  std::vector<std::tuple<size_t, size_t, std::string>> groups;  // workload, point, metric
  for (size_t w = 0; w < ev.workloads.size(); ++w)
    for (size_t p = 0; p < std::max<size_t>(1, ev.workloads[w].sweep_values.size()); ++p)
      for (const auto& x : s.scale)
        if (x.workload == w && x.point == p &&
            std::find(groups.begin(), groups.end(), std::tuple{w, p, x.metric}) == groups.end())
          groups.emplace_back(w, p, x.metric);
  for (const auto& [w, p, metric] : groups) {
    std::vector<int> sizes;
    for (const auto& x : s.scale)
      if (x.workload == w && x.point == p && x.metric == metric &&
          std::find(sizes.begin(), sizes.end(), x.servers) == sizes.end())
        sizes.push_back(x.servers);
    std::sort(sizes.begin(), sizes.end());
    std::string label = ev.workloads[w].name;
    if (!ev.workloads[w].sweep_key.empty()) label += " " + eval_point_label(ev.workloads[w], p);
    ReportTable t;
    t.header = {label + ": " + metric_title(metric)};
    for (int n : sizes)
      t.header.push_back(fmt::format("{} servers ({} NICs)", n, n * ev.cluster.gpus_per_server));
    LineChart chart;
    chart.title = label + ": " + metric_title(metric) + " vs cluster size";
    chart.x = Axis{"servers", AxisScale::kLog2, AxisUnit::kNone, {}, {}, false};
    chart.y = Axis{metric_title(metric), AxisScale::kLinear, AxisUnit::kNone, {}, {}, true};
    chart.markers = true;
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      std::vector<std::string> row = {ev.fabrics[f].name};
      LineSeries ser{ev.fabrics[f].name, {}};
      for (int n : sizes) {
        std::string v = "n/a";
        for (const auto& x : s.scale)
          if (x.fabric == f && x.workload == w && x.point == p && x.metric == metric && x.servers == n) {
            v = std::isfinite(x.value) ? report_number(x.value) : "did not finish";
            if (std::isfinite(x.value)) ser.points.push_back({static_cast<double>(n), x.value});
          }
        row.push_back(v);
      }
      t.rows.push_back(std::move(row));
      chart.series.push_back(std::move(ser));
    }
    // Fabrics alike here (a collective's QP count follows NCCL's channels,
    // not the fabric): one row and one line, not five drawn on each other.
    const bool alike =
        t.rows.size() > 1 && std::all_of(t.rows.begin(), t.rows.end(), [&](const auto& r) {
          return std::equal(r.begin() + 1, r.end(), t.rows.front().begin() + 1, t.rows.front().end());
        });
    if (alike) {
      t.rows.resize(1);
      t.rows.front().front() = "every fabric";
      chart.series.resize(1);
      chart.series.front().name = "every fabric";
    }
    sc.table(std::move(t));
    chart.size = {760, 360};
    sc.chart(render_svg(chart, alike ? SeriesColors() : SeriesColors(fabric_names(ev))),
             alike ? "Every fabric has these figures: one line for all." : "");
  }
  return sc;
}

// The field's terms the report uses, each defined once at its end: only
// those its text (paragraphs and tables, not charts) names as a word.
Section glossary(const std::vector<Section>& sections) {
  static const std::vector<std::pair<std::string, std::string>> kTerms = {
      {"busbw",
       "bus bandwidth, as nccl-tests reports it: the collective's algorithm bandwidth (bytes / time) times "
       "its traffic factor (2(n-1)/n for AllReduce, (n-1)/n for AllGather), comparable with a link's rate"},
      {"CNP", "Congestion Notification Packet: a RoCE receiver's answer to an ECN-marked packet"},
      {"DCQCN", "the rate-based congestion control RoCE NICs run on ECN marks (Zhu et al., SIGCOMM 2015)"},
      {"DCTCP", "TCP congestion control that cuts its window in proportion to the share of ECN marks"},
      {"ECMP", "equal-cost multipath: a switch hashes each flow onto one of its equal-cost uplinks"},
      {"ECN",
       "Explicit Congestion Notification: a switch marks packets while its queue is above a threshold"},
      {"FCT", "flow completion time"},
      {"HPCC",
       "congestion control from in-band telemetry of every hop's queue and load (Li et al., SIGCOMM 2019)"},
      {"incast", "many senders into one receiver at once: its NIC port is the bottleneck"},
      {"LFT", "linear forwarding table: an InfiniBand switch's output port per destination, set by the SM"},
      {"NSCC", "Ultra Ethernet's sender-based congestion control, from delay and ECN"},
      {"NVLS", "NVLink SHARP: reduction in the NVSwitch inside a server"},
      {"p50", "the median: half of the samples are below it"},
      {"p99", "the value 99% of the samples are below"},
      {"p99.9", "the value 99.9% of the samples are below: the tail a synchronised job waits for"},
      {"permutation", "every host sends to one other host and receives from one: the fabric's bisection"},
      {"PFC",
       "Priority Flow Control (IEEE 802.1Qbb): a port pauses its neighbour's priority when its buffer "
       "fills (XOFF) and resumes it when it drains (XON), so that class is not dropped"},
      {"QP", "queue pair: an RDMA connection's send and receive queues, with context held in both NICs"},
      {"RTO", "retransmission timeout: how long a sender waits for an acknowledgement before resending"},
      {"SHARP",
       "Scalable Hierarchical Aggregation and Reduction Protocol: InfiniBand switches reduce "
       "collective data in the network"},
      {"SHIELD",
       "InfiniBand switches' self-healing: a switch routes around a dead port at once, before the SM"},
      {"SM", "subnet manager: the InfiniBand controller that computes every switch's LFT"},
      {"TCO", "total cost of ownership: purchase, power, licences and staff over the ownership period"},
  };
  std::string text;
  for (const Section& sec : sections)
    for (const Block& b : sec.blocks) {
      text += b.paragraph + "\n";
      for (const auto& h : b.table.header) text += h + "\n";
      for (const auto& r : b.table.rows)
        for (const auto& c : r) text += c + "\n";
    }
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  const auto names = [&](const std::string& term) {
    for (size_t at = text.find(term); at != std::string::npos; at = text.find(term, at + 1)) {
      const size_t end = at + term.size();
      // "p99" is not named by "p99.9", nor "SM" by "ASM" or "SMP"; "QPs" names "QP".
      const size_t after = end < text.size() && text[end] == 's' ? end + 1 : end;
      const bool longer =
          after < text.size() &&
          (word_char(text[after]) || (text[after] == '.' && after + 1 < text.size() &&
                                      std::isdigit(static_cast<unsigned char>(text[after + 1])) != 0));
      if ((at == 0 || !word_char(text[at - 1])) && !longer) return true;
    }
    return false;
  };
  Section g{"Glossary", {}};
  ReportTable t;
  t.header = {"term", "meaning"};
  for (const auto& [term, meaning] : kTerms)
    if (names(term)) t.rows.push_back({term, meaning});
  if (!t.rows.empty()) g.table(std::move(t));
  return g;
}

std::vector<Section> build(const EvalReportInput& in) {
  const Evaluation& ev = in.ev;
  const EvalSummary& s = in.summary;
  const size_t nf = ev.fabrics.size();
  std::vector<Section> out;

  Section head{"Evaluation: " + ev.name, {}};
  const EvalCluster& cl = ev.cluster;
  head.para(fmt::format(
      "Cluster: {} servers x {} GPUs ({} NICs at {}), {}{}; cables {}. Every fabric runs on "
      "this same cluster and the same workloads; only the fabric changes.",
      cl.servers, cl.gpus_per_server, cl.hosts(), format_rate(cl.nic_rate), cl.shape_name(),
      cl.shape == EvalCluster::Shape::kFatTree
          ? fmt::format(" (k={})", cl.k)
          : fmt::format(", oversubscription {}:1", report_number(cl.oversubscription)),
      format_time(cl.cable_delay) + (cl.host_cable.empty() ? "" : ", host links " + cl.host_cable) +
          (cl.fabric_cable.empty() ? "" : ", switch links " + cl.fabric_cable)));
  std::string seeds;
  for (auto x : ev.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(x);
  size_t tuning = 0;
  size_t assumed = 0;
  size_t scaled = 0;
  for (const auto& c : in.cells) {
    if (c.servers > 0) {
      ++scaled;
    } else if (!c.knob.empty()) {
      ++(c.assumption ? assumed : tuning);
    }
  }
  size_t points = 0;
  for (const auto& w : ev.workloads) points += std::max<size_t>(1, w.sweep_values.size());
  const size_t matrix = in.cells.size() - tuning - assumed - scaled;
  const bool skipped = matrix < nf * points * ev.conditions.size() * ev.seeds.size();
  head.para(fmt::format(
      "{} cells: the matrix of {} fabrics x {} workloads (with their sizes) x {} conditions x seeds {} is {} "
      "of "
      "them{}; the tuning sweep {}, the assumption sweep {}, the scale sweep {}.",
      in.cells.size(), nf, ev.workloads.size(), ev.conditions.size(), seeds, matrix,
      skipped ? " (workloads and conditions limited to some fabrics or workloads skip the others)" : "",
      tuning, assumed, scaled));
  out.push_back(std::move(head));

  // What each condition changes, before the decision that names them (its
  // scores and its table of every condition read load-50, link-down, ...):
  // a lab report states its test conditions before its results.
  Section conds{"Conditions", {}};
  ReportTable ct;
  ct.header = {"condition", "what changes"};
  for (const auto& c : ev.conditions) ct.rows.push_back({c.name, condition_text(c)});
  conds.table(std::move(ct));
  out.push_back(std::move(conds));

  // Then the decision: what a person came for.
  Section dec{"Decision", {}};
  if (s.scores.empty()) {
    dec.para("No criterion with a positive weight was measured: no decision.");
  } else {
    ReportTable t;
    t.header = {"criterion", "weight"};
    for (const auto& f : ev.fabrics) t.header.push_back(f.name);
    for (const auto& sc : s.scores) {
      const size_t parts =
          static_cast<size_t>(std::count(sc.cites[s.best].begin(), sc.cites[s.best].end(), ' ')) + 1;
      std::vector<std::string> row = {sc.criterion + (sc.lower_is_better ? " (lower is better)" : "") +
                                          (parts > 1 && !worst_slowdown_criterion(sc)
                                               ? fmt::format(", geometric mean of {} figures", parts)
                                               : std::string()),
                                      report_number(sc.weight)};
      for (size_t f = 0; f < nf; ++f)
        row.push_back(std::isfinite(sc.value[f]) ? fmt::format("{} ({})", report_number(sc.score[f]),
                                                               with_unit(sc.value[f], sc.unit))
                                                 : "0 (failed or unfinished)");
      t.rows.push_back(std::move(row));
    }
    std::vector<std::string> total = {"**weighted score**", ""};
    for (size_t f = 0; f < nf; ++f) total.push_back("**" + report_number(s.total[f]) + "**");
    t.rows.push_back(std::move(total));
    dec.para(
        "Scores are 0-100 per criterion (100 = the best fabric on it; the others in proportion; tuning "
        "counts one more than each count, 100 x (best + 1) / (count + 1), so a fabric with no setting to "
        "get right does not count as infinitely better than one with a single setting), weighted by the "
        "evaluation file. A criterion measured by several figures "
        "(sizes, conditions) takes their geometric mean, so a fabric twice as fast on a small figure "
        "gains as much as one twice as fast on a large one. Congestion is each fabric's worst slowdown "
        "beside traffic (background load or an incast, nothing else changed) and resilience its worst "
        "under a failure, a mis-setting or distance, each against the same workload idle and over the "
        "conditions every fabric meets: the sentences under the table cite which.");
    dec.table(std::move(t));
    dec.chart(score_chart(in),
              "Scores per criterion, and the weighted score (the table's last row) as the last group.");
    const std::string& best = ev.fabrics[s.best].name;
    dec.para(fmt::format("**Recommendation: {}**, with the highest weighted score, {} [total.{}].", best,
                         report_number(s.total[s.best]), best) +
             recommendation_robustness(in));
    if (ev.seeds.size() == 1)
      dec.para(fmt::format(
          "Every figure here is one run (seed {}): a difference between fabrics smaller than another seed "
          "would move it cannot be told from chance. With two or more seeds (`seeds: [1, 2]`), each "
          "criterion below says whether its lead holds on every seed.",
          ev.seeds.front()));
    for (const auto& sc : s.scores) {
      size_t lead = 0;
      for (size_t f = 1; f < nf; ++f)
        if (sc.score[f] > sc.score[lead]) lead = f;
      if (!std::isfinite(sc.value[lead])) continue;
      std::string sentence = fmt::format(
          "On {}{}, {} leads with {} [{}]", sc.criterion, mean_of(sc.cites[lead], ev.fabrics[lead].name),
          ev.fabrics[lead].name, with_unit(sc.value[lead], sc.unit), sc.cites[lead]);
      for (size_t f = 0; f < nf; ++f) {
        if (f == lead) continue;
        sentence += std::isfinite(sc.value[f]) ? fmt::format("; {} {} [{}]", ev.fabrics[f].name,
                                                             with_unit(sc.value[f], sc.unit), sc.cites[f])
                    : worst_slowdown_criterion(sc) && !sc.cites[f].empty()
                        ? fmt::format("; on {} a workload did not finish under a condition ({})",
                                      ev.fabrics[f].name, sc.cites[f])
                        : fmt::format("; {} did not measure it (a cell failed or did not finish)",
                                      ev.fabrics[f].name);
      }
      dec.para(sentence + ".");
      // How far the seeds and the assumptions move this criterion: a
      // criterion of several figures moves as their geometric mean does,
      // each figure at one end of its span, then each at the other.
      if (const std::string spread = seed_spread(in, sc, lead); !spread.empty()) dec.para(spread);
      std::string ranges;
      std::vector<std::optional<std::pair<double, double>>> spans(nf);
      for (size_t f = 0; f < nf; ++f) {
        const std::optional<AssumedSpan> x = assumed_span(s, sc.cites[f]);
        if (!x) continue;
        spans[f] = std::pair{x->low, x->high};
        if (x->low == x->high) continue;
        ranges += fmt::format("{} from {} {} [{}] to {} {} [{}]{}; ", ev.fabrics[f].name,
                              report_number(x->low), sc.unit, x->low_cite, report_number(x->high), sc.unit,
                              x->high_cite, x->keys.empty() ? std::string() : " (" + x->keys + ")");
      }
      if (!ranges.empty())
        dec.para(
            "With the unsourced defaults moved to their stated bounds (x0.5 and x2 where none is "
            "stated): " +
            ranges +
            (lead_holds(spans, lead, sc.lower_is_better)
                 ? "the lead on " + sc.criterion + " holds across them."
                 : "the lead on " + sc.criterion + " could change within these ranges."));
    }
  }
  if (BesideIdle b = beside_idle(in); !b.table.rows.empty()) {
    dec.para(fmt::format(
        "The criteria above read the idle fabric (tail latency, congestion and resilience aside). The same "
        "workloads "
        "under every other condition all fabrics meet, each figure with its ratio to the same fabric idle "
        "(x1 = unchanged; for a time higher is worse, for a rate lower is), and the leader there: it differs "
        "from the idle leader in {} of {} rows. A condition that left a workload's figures as "
        "they were idle has no row. The figures are in evaluation.json as "
        "fabric.workload.condition.metric.",
        b.changed, b.table.rows.size()));
    dec.table(std::move(b.table));
  }
  out.push_back(std::move(dec));

  Section claims{"Claims, answered from these numbers", {}};
  claims.para(
      "The claims vendor comparisons make, each checked against this evaluation: supported, partly supported "
      "(where it holds and where not, each named), contradicted, depends on an assumption (named), or not "
      "measured here (with what would measure it); the last, guidance, points to the decision. The table "
      "gives each answer; the evidence under it cites every figure the answer reads.");
  ReportTable claim_table;
  claim_table.header = {"#", "claim", "verdict", "answer"};
  const std::vector<ClaimAnswer> answers = answer_claims(in);
  for (const ClaimAnswer& a : answers)
    claim_table.rows.push_back({std::to_string(a.number), a.claim, a.verdict, a.finding});
  claims.table(std::move(claim_table));
  for (const ClaimAnswer& a : answers)
    if (!a.evidence.empty()) claims.para(fmt::format("**Claim {}, evidence.** {}", a.number, a.evidence));
  out.push_back(std::move(claims));

  {
    Section cost{"Total cost of ownership", {}};
    const BillOfMaterials& b = s.bom;
    std::string classed;
    for (const auto& [cable, n] : b.cable_links) classed += fmt::format(", {} {} links", n, cable);
    cost.para(fmt::format(
        "The cluster's fabric: {} NICs, {} switches, {} switch ports in use, {} NIC-to-leaf links, "
        "{} switch-to-switch links{} at {} Gb/s, owned for {} years. Every price, power and staffing "
        "input is listed below with its source; edit them under `cost:` in the evaluation file.",
        b.nics, b.switches, b.switch_ports_used, b.host_links, b.fabric_links, classed,
        report_number(b.link_gbps), ev.cost.empty() ? 0 : ev.cost.front().years));
    {
      // Which family's prices each fabric takes: UET runs on the same
      // Ethernet NICs and switches as RoCE, and is priced as such.
      std::string priced;
      for (size_t f = 0; f < nf && f < ev.cost.size(); ++f)
        priced += fmt::format("{}{} with the {} inputs", priced.empty() ? "" : "; ", ev.fabrics[f].name,
                              cost_family_name(ev.cost[f].family));
      bool equal = !s.cost.empty();
      for (const auto& r : s.cost) equal = equal && r.total == s.cost.front().total;
      cost.para(
          "Priced: " + priced + "." +
          (equal && s.cost.size() > 1
               ? " Every fabric costs the same here: the families' default inputs are equal (no public price "
                 "list separates them), so this section decides nothing until `cost:` holds real quotes."
               : std::string()));
    }
    ReportTable t;
    t.header = {"item"};
    for (const auto& f : ev.fabrics) t.header.push_back(f.name + " [USD]");
    std::vector<std::string> items;
    for (const auto& r : s.cost)
      for (const auto& l : r.lines)
        if (std::find(items.begin(), items.end(), l.item) == items.end()) items.push_back(l.item);
    for (const auto& item : items) {
      std::vector<std::string> row = {item};
      for (size_t f = 0; f < nf; ++f) {
        std::string v = "n/a";
        for (const auto& l : s.cost[f].lines)
          if (l.item == item) v = report_number(l.usd);
        row.push_back(v);
      }
      t.rows.push_back(std::move(row));
    }
    std::vector<std::string> total = {"**total**"};
    for (size_t f = 0; f < nf; ++f)
      total.push_back(s.cost[f].applicable ? "**" + report_number(s.cost[f].total) + "**" : "n/a");
    t.rows.push_back(std::move(total));
    cost.table(std::move(t));
    ReportTable in_t;
    in_t.header = {"family", "input", "value", "unit", "range", "source"};
    std::vector<CostFamily> seen;
    for (const auto& c : ev.cost) {
      if (std::find(seen.begin(), seen.end(), c.family) != seen.end()) continue;
      seen.push_back(c.family);
      const nlohmann::ordered_json values = cost_inputs_json(c);
      std::vector<CostInputInfo> infos = cost_input_info(c.family);
      for (const auto& [cable, usd] : c.cable_link_usd) infos.push_back(cable_link_info(cable));
      for (const CostInputInfo& i : infos) {
        const auto it = values.find(i.key);
        in_t.rows.push_back({std::string(cost_family_name(c.family)), i.key,
                             it != values.end() && it->is_number() ? report_number(it->get<double>())
                                                                   : report_number(i.value),
                             i.unit, report_number(i.low) + "-" + report_number(i.high), i.source});
      }
    }
    cost.chart(cost_chart(in), "Capital and operating cost over the ownership period, per fabric.");
    cost.para(
        "Inputs (the value used; the range is what an input without a published source may plausibly be):");
    cost.table(std::move(in_t));
    out.push_back(std::move(cost));
  }

  if (!ev.tuning.workloads.empty()) {
    Section tune{"Tuning effort", {}};
    std::string wl;
    for (const auto& w : ev.tuning.workloads) wl += (wl.empty() ? "" : ", ") + w;
    tune.para(fmt::format(
        "Each setting a fabric's profile uses was mis-set one at a time (numbers, sizes, times and rates "
        "x0.5 "
        "and x2; true/false flipped) and the tuning workloads ({}) run at baseline. A setting counts as a "
        "knob to "
        "get right when a mis-set value makes a workload's key metric more than {}% worse (or keeps it "
        "from "
        "finishing). Values a profile refuses (e.g. an MTU above its maximum) are not tried.",
        wl, report_number(ev.tuning.threshold * 100)));
    ReportTable t;
    t.header = {"fabric", "settings tried", "knobs to get right", "which (worst effect)"};
    for (size_t f = 0; f < nf; ++f) {
      const EvalTuningResult& tr = s.tuning[f];
      std::string names;
      for (const auto& k : tr.sensitive) {
        const EvalKnobTrial* worst = nullptr;
        for (const auto& x : tr.trials)
          if (x.key == k && (worst == nullptr || x.degradation > worst->degradation)) worst = &x;
        names += (names.empty() ? "" : "; ") + k + " " + worst->change + ": " + worst->workload + " " +
                 (std::isfinite(worst->degradation) ? "+" + report_number(worst->degradation * 100) + "%"
                                                    : std::string("did not finish"));
      }
      t.rows.push_back({ev.fabrics[f].name, std::to_string(tr.settings), std::to_string(tr.sensitive.size()),
                        names.empty() ? "none" : names});
    }
    tune.table(std::move(t));
    out.push_back(std::move(tune));
  }

  if (!s.scale.empty()) out.push_back(scale_section(in));

  Section settings{"Settings that differ between the fabrics", {}};
  settings.para(
      "Everything else (cluster, cables, workloads, seeds) is identical. Values marked * are defaults "
      "with no published source (assumptions): results that depend on them carry that caveat.");
  ReportTable st;
  st.header = {"setting"};
  for (const auto& f : ev.fabrics) st.header.push_back(f.name);
  for (const auto& d : s.settings) {
    std::vector<std::string> row = {d.key};
    for (size_t f = 0; f < nf; ++f) row.push_back(d.values[f] + (d.assumption[f] ? " *" : ""));
    st.rows.push_back(std::move(row));
  }
  settings.table(std::move(st));
  out.push_back(std::move(settings));

  for (size_t w = 0; w < ev.workloads.size(); ++w) {
    const EvalWorkload& wl = ev.workloads[w];
    Section sec{"Workload: " + wl.name + " (" + wl.type + ")", {}};
    if (wl.type == "scenario")
      sec.para("The scenario " + wl.scenario_file +
               " run whole (its own topology, workloads and faults), with each fabric in place of its "
               "fabric block; the evaluation sets its seed and duration.");
    if (!wl.fabrics.empty()) {
      std::string names;
      for (const auto& f : wl.fabrics) names += (names.empty() ? "" : ", ") + f;
      sec.para("Runs on " + names +
               " only (the others do not offer it), so no criterion scores it; the claims read it.");
    }
    const size_t points = std::max<size_t>(1, wl.sweep_values.size());
    std::vector<std::string> metrics = shown_metrics(wl);
    const std::string key = metrics.front();
    const bool swept = std::find(ev.assumptions.workloads.begin(), ev.assumptions.workloads.end(), wl.name) !=
                       ev.assumptions.workloads.end();
    metrics.insert(metrics.end(), kNetworkMetrics.begin(), kNetworkMetrics.end());
    ReportTable t;
    t.header = {"fabric", "condition"};
    if (!wl.sweep_key.empty()) t.header.push_back(wl.sweep_key);
    for (const auto& m : metrics) t.header.push_back(metric_title(m));
    if (swept) t.header.push_back(metric_title(key) + " range over assumptions");
    for (size_t f = 0; f < nf; ++f)
      for (size_t c = 0; c < ev.conditions.size(); ++c)
        for (size_t p = 0; p < points; ++p) {
          if (!cell_exists(in, f, w, p, c)) continue;
          std::vector<std::string> row = {ev.fabrics[f].name, ev.conditions[c].name};
          if (!wl.sweep_key.empty()) row.push_back(eval_point_label(wl, p));
          for (const auto& m : metrics) {
            const EvalFigure* x = find_figure(s, fig_id(ev, f, w, p, c, m));
            // No model is not a failed cell: SHARP's CollNet is outside it here.
            row.push_back(x == nullptr && m == "nccl_model_us" ? "-" : figure_text(x));
          }
          if (swept) {
            const EvalFigure* x = find_figure(s, fig_id(ev, f, w, p, c, key));
            std::string r;
            if (x != nullptr && !std::isnan(x->assumed_low)) {
              r = report_number(x->assumed_low) + "-" + report_number(x->assumed_high);
              if (!x->depends_on.empty()) {
                std::string k;
                for (const auto& d : x->depends_on) k += (k.empty() ? "" : ", ") + d;
                r += " (" + k + ")";
              }
            }
            row.push_back(r);
          }
          t.rows.push_back(std::move(row));
        }
    sec.para(
        "Means over seeds (min-max when they differ); n/a: the cell failed or the workload did not "
        "finish.");
    const std::vector<std::string> same = untouched_conditions(in, w, metrics);
    if (!same.empty()) {
      std::string names;
      for (const auto& n : same) names += (names.empty() ? "" : ", ") + n;
      sec.para("Under " + names +
               " every figure equals its baseline's, for every fabric: the condition did " +
               "not reach this workload (a failed link that carries none of its traffic), so these rows " +
               "say nothing about how the fabrics handle it, and no latency-distribution or "
               "throughput-over-time chart "
               "is drawn for it.");
    }
    if (wl.type == "collective")
      sec.para(
          "NCCL's model: the time NCCL's own cost model (tuning.cc) gives the algorithm and protocol its "
          "tuner picked. It knows a fabric only by its link rate, so time minus model is what the "
          "fabric's queues, congestion control and recovery add, and what the execution adds beyond "
          "NCCL's formula (-: no model, as for SHARP's CollNet). Below 512 KiB NCCL's model is 10-55% under "
          "published nccl-tests runs of real multi-server clusters, and this simulation follows the model "
          "there: its small-collective times are likely optimistic (rdmasim validate, rows nccl-real; "
          "docs/COLLECTIVES.md).");
    sec.table(std::move(t));
    const std::vector<std::string> svgs = workload_charts(
        in, w,
        [&](size_t f, size_t p, size_t c, const std::string& m) {
          return find_figure(s, fig_id(ev, f, w, p, c, m));
        },
        same);
    for (const std::string& svg : svgs) sec.chart(svg, "");
    for (Block& b : failure_charts(in, w, same)) sec.blocks.push_back(std::move(b));
    out.push_back(std::move(sec));
  }

  if (!s.failed_cells.empty()) {
    Section fail{"Cells that failed", {}};
    for (const auto& f : s.failed_cells) fail.para(f);
    out.push_back(std::move(fail));
  }

  if (Section g = glossary(out); !g.blocks.empty()) out.push_back(std::move(g));

  Section repro{"Reproduce", {}};
  repro.para(
      "`rdmasim evaluate " + ev.file +
      "` reruns the matrix (finished cells are reused); each cell's scenario is cells/<id>/scenario.yaml "
      "and `rdmasim run` on it alone gives the same results.json.");
  out.push_back(std::move(repro));
  return out;
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

}  // namespace

std::string report_number(double v) {
  if (!std::isfinite(v)) return "inf";
  // Below a femto-unit is rounding noise of a sum (a stdev of equal samples).
  if (std::abs(v) < 1e-9) return "0";
  // Four significant digits; a large number in full (301400 USD, not
  // 3.014e+05), which a reader compares by eye.
  if (std::abs(v) >= 1e4 && std::abs(v) < 1e15)
    return fmt::format("{:.0f}", std::stod(fmt::format("{:.4g}", v)));
  return fmt::format("{:.4g}", v);
}

json evaluation_json(const EvalReportInput& in) {
  const Evaluation& ev = in.ev;
  const EvalSummary& s = in.summary;
  json j;
  j["schema_version"] = 1;
  j["generator"] = "rdmasim 0.1.0";
  j["evaluation"] = {{"name", ev.name}, {"file", ev.file}, {"text", ev.text}};
  if (!ev.overrides.empty()) j["evaluation"]["set"] = ev.overrides;
  json fabrics = json::array();
  for (const auto& f : ev.fabrics) {
    json set = json::object();
    for (const auto& [k, v] : f.set) set[k] = v;
    fabrics.push_back({{"name", f.name}, {"profile", f.profile}, {"set", set}});
  }
  j["fabrics"] = fabrics;
  json cells = json::array();
  for (size_t i = 0; i < in.cells.size(); ++i) {
    const EvalCell& c = in.cells[i];
    json m = json::object();
    if (in.outcomes[i].ok)
      for (const auto& [k, v] : cell_metrics(ev.workloads[c.workload].type, in.outcomes[i].results)) m[k] = v;
    cells.push_back(
        {{"id", c.id},
         {"fabric", ev.fabrics[c.fabric].name},
         {"workload", ev.workloads[c.workload].name},
         {"point", eval_point_label(ev.workloads[c.workload], c.point)},
         {"condition", c.servers > 0    ? std::string("scale")
                       : c.knob.empty() ? ev.conditions[c.condition].name
                       : c.assumption   ? std::string("assumption")
                                        : std::string("tuning")},
         {"servers", c.servers > 0 ? c.servers : in.ev.cluster.servers},
         {"mis_set", c.knob.empty()
                         ? json(nullptr)
                         : json{{"key", c.knob}, {"change", c.knob_change}, {"value", c.knob_value}}},
         {"seed", c.seed},
         {"ok", in.outcomes[i].ok},
         {"error", in.outcomes[i].error},
         {"results", "cells/" + c.id + "/results.json"},
         {"metrics", m}});
  }
  j["cells"] = cells;
  json figs = json::object();
  for (const auto& f : s.figures) {
    figs[f.id] = {{"mean", f.mean},   {"min", f.min},   {"max", f.max},
                  {"seeds", f.seeds}, {"unit", f.unit}, {"lower_is_better", f.lower_is_better}};
    if (!std::isnan(f.assumed_low)) {
      figs[f.id]["assumed_range"] = {f.assumed_low, f.assumed_high};
      figs[f.id]["depends_on"] = f.depends_on;
    }
  }
  j["figures"] = figs;
  json settings = json::array();
  for (const auto& d : s.settings)
    settings.push_back({{"key", d.key}, {"values", d.values}, {"assumption", d.assumption}});
  j["settings_that_differ"] = settings;
  json scores = json::array();
  for (const auto& sc : s.scores) {
    json per = json::object();
    for (size_t f = 0; f < ev.fabrics.size(); ++f)
      per[ev.fabrics[f].name] = {{"value", std::isfinite(sc.value[f]) ? json(sc.value[f]) : json(nullptr)},
                                 {"score", sc.score[f]},
                                 {"figures", sc.cites[f]}};
    scores.push_back({{"criterion", sc.criterion},
                      {"weight", sc.weight},
                      {"unit", sc.unit},
                      {"lower_is_better", sc.lower_is_better},
                      {"fabrics", per}});
  }
  j["scores"] = scores;
  json total = json::object();
  for (size_t f = 0; f < ev.fabrics.size(); ++f) total[ev.fabrics[f].name] = s.total[f];
  j["total"] = total;
  json cost;
  cost["bill_of_materials"] = bill_of_materials_json(s.bom);
  json per = json::object();
  for (size_t f = 0; f < ev.fabrics.size(); ++f) {
    json c;
    c["family"] = std::string(cost_family_name(ev.cost[f].family));
    c["inputs"] = cost_inputs_json(ev.cost[f]);
    const json result = cost_result_json(s.cost[f]);
    for (const auto& [k, v] : result.items()) c[k] = v;
    per[ev.fabrics[f].name] = c;
  }
  cost["fabrics"] = per;
  j["cost"] = cost;
  json scale = json::object();
  for (const auto& p : s.scale)
    scale[p.id] = {{"fabric", ev.fabrics[p.fabric].name},
                   {"workload", ev.workloads[p.workload].name},
                   {"servers", p.servers},
                   {"metric", p.metric},
                   {"value", std::isfinite(p.value) ? json(p.value) : json(nullptr)}};
  j["scale"] = scale;
  json tuning = json::object();
  for (size_t f = 0; f < ev.fabrics.size(); ++f) {
    const EvalTuningResult& t = s.tuning[f];
    json trials = json::array();
    for (const auto& tr : t.trials)
      trials.push_back(
          {{"key", tr.key},
           {"change", tr.change},
           {"value", tr.value},
           {"workload", tr.workload},
           {"metric", tr.metric},
           {"baseline", tr.baseline},
           {"mis_set", std::isfinite(tr.mis_set) ? json(tr.mis_set) : json(nullptr)},
           {"worse_by", std::isfinite(tr.degradation) ? json(tr.degradation) : json("did not finish")},
           {"cell", tr.cell}});
    tuning[ev.fabrics[f].name] = {{"settings_tried", t.settings},
                                  {"sensitive_count", t.sensitive.size()},
                                  {"sensitive", t.sensitive},
                                  {"trials", trials}};
  }
  j["tuning"] = {{"threshold", ev.tuning.threshold}, {"workloads", ev.tuning.workloads}, {"fabrics", tuning}};
  j["recommendation"] = ev.fabrics[s.best].name;
  json claims = json::array();
  for (const ClaimAnswer& a : answer_claims(in))
    claims.push_back({{"claim", a.number},
                      {"text", a.claim},
                      {"verdict", a.verdict},
                      {"answer", a.finding},
                      {"evidence", a.evidence}});
  j["claims"] = claims;
  j["failed_cells"] = s.failed_cells;
  return j;
}

std::string report_markdown(const EvalReportInput& in) {
  std::string o;
  bool first = true;
  for (const Section& sec : build(in)) {
    o += (first ? "# " : "\n## ") + sec.title + "\n";
    first = false;
    for (const Block& b : sec.blocks) {
      if (!b.svg.empty()) continue;  // charts are in report.html
      if (!b.is_table) {
        o += "\n" + b.paragraph + "\n";
        continue;
      }
      o += "\n|";
      for (const auto& h : b.table.header) o += " " + md_cell(h) + " |";
      o += "\n|";
      for (size_t i = 0; i < b.table.header.size(); ++i) {
        std::vector<std::string_view> cells;
        for (const auto& r : b.table.rows)
          if (i < r.size()) cells.emplace_back(r[i]);
        o += numeric_column(cells) ? "---:|" : "---|";
      }
      o += "\n";
      for (const auto& r : b.table.rows) {
        o += "|";
        for (const auto& c : r) o += " " + md_cell(c) + " |";
        o += "\n";
      }
    }
  }
  return o;
}

std::string report_html(const EvalReportInput& in) {
  const std::vector<Section> secs = build(in);
  // Markdown's **bold** and `code` marks read as plain text on the page.
  const auto plain = [](const std::string& t) {
    std::string o;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.compare(i, 2, "**") == 0) {
        ++i;
        continue;
      }
      if (t[i] != '`') o += t[i];
    }
    return o;
  };
  HtmlPage page(secs.front().title);
  bool first = true;
  for (const Section& sec : secs) {
    if (!first) page.section(sec.title);
    first = false;
    for (const Block& b : sec.blocks) {
      if (!b.svg.empty()) {
        page.chart(b.svg, b.paragraph);
      } else if (b.is_table) {
        Table t;
        t.header = b.table.header;
        for (const auto& r : b.table.rows) {
          std::vector<TableCell> row;
          row.reserve(r.size());
          for (const auto& c : r)
            row.emplace_back(plain(c),
                             c.size() > 4 && c.rfind("**", 0) == 0 && c.compare(c.size() - 2, 2, "**") == 0
                                 ? "strong"
                                 : "");
          t.rows.push_back(std::move(row));
        }
        page.table(t);
      } else if (const size_t close = b.paragraph.find("**", 2);
                 b.paragraph.rfind("**", 0) == 0 && close != std::string::npos) {
        // A bold lead-in ("**Recommendation: ib-ndr**, ...") stays bold.
        page.paragraph(plain(b.paragraph.substr(2, close - 2)), plain(b.paragraph.substr(close + 2)));
      } else {
        page.paragraph(plain(b.paragraph));
      }
    }
  }
  return page.render();
}

std::string headline_text(const EvalReportInput& in) {
  const Evaluation& ev = in.ev;
  const EvalSummary& s = in.summary;
  std::string o = fmt::format("{:<16}", "criterion");
  for (const auto& f : ev.fabrics) o += fmt::format(" {:>22}", f.name);
  o += "\n";
  for (const auto& sc : s.scores) {
    o += fmt::format("{:<16}", sc.criterion);
    for (size_t f = 0; f < ev.fabrics.size(); ++f)
      o += fmt::format(" {:>22}", std::isfinite(sc.value[f])     ? with_unit(sc.value[f], sc.unit)
                                  : worst_slowdown_criterion(sc) ? std::string("did not finish")
                                                                 : std::string("n/a"));
    o += "\n";
  }
  o += fmt::format("{:<16}", "score (0-100)");
  for (size_t f = 0; f < ev.fabrics.size(); ++f) o += fmt::format(" {:>22}", report_number(s.total[f]));
  o += "\n";
  return o;
}

}  // namespace rdmasim
