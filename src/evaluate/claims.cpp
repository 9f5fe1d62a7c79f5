#include "evaluate/claims.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "config/join.h"
#include "config/scenario.h"
#include "config/units_parse.h"
#include "fabric/profiles.h"

namespace rdmasim {
namespace {

std::string cite(const EvalFigure* x) { return report_number(x->mean) + " " + x->unit + " [" + x->id + "]"; }

class Reader {
 public:
  explicit Reader(const EvalReportInput& in) : in_(in), ev_(in.ev) {
    for (size_t c = 0; c < ev_.conditions.size(); ++c) {
      if (ev_.conditions[c].is_baseline() && base_ == npos) base_ = c;
      if (ev_.conditions[c].down_at && failed_ == npos) failed_ = c;
    }
  }
  static constexpr size_t npos = static_cast<size_t>(-1);

  [[nodiscard]] std::vector<size_t> family(CostFamily fam) const {
    std::vector<size_t> v;
    for (size_t f = 0; f < ev_.fabrics.size(); ++f)
      if (ev_.cost[f].family == fam) v.push_back(f);
    return v;
  }
  // The fabrics that frame their packets as RoCEv2, the ones a claim about
  // RoCEv2 is about: UET prices as Ethernet (the RoCE cost family) but is
  // not RoCEv2. The framing the cells ran with where they give it, else
  // the one the file sets or the profile's.
  [[nodiscard]] std::vector<size_t> rocev2() const {
    const EvalSettingDiff* framing = setting("fabric.framing");
    std::vector<size_t> v;
    for (size_t f : family(CostFamily::kRoce)) {
      std::string name = find_profile(ev_.fabrics[f].profile).config.framing.name;
      for (const auto& [key, value] : ev_.fabrics[f].set)
        if (key == "fabric.framing") name = value;
      if (framing != nullptr && framing->values[f] != "-") name = framing->values[f];
      if (name == "rocev2") v.push_back(f);
    }
    return v;
  }
  // The first workload of `type` (and passing `want`) that has the figure,
  // at its first or last sweep point.
  [[nodiscard]] const EvalFigure* fig(size_t f, const std::string& type, const std::string& metric,
                                      size_t cond, bool last_point = false,
                                      const std::function<bool(const EvalWorkload&)>& want = {}) const {
    if (cond == npos) return nullptr;
    for (const EvalFigure& x : in_.summary.figures) {
      const EvalWorkload& w = ev_.workloads[x.workload];
      if (x.fabric != f || w.type != type || x.metric != metric || x.condition != cond) continue;
      if (want && !want(w)) continue;
      const size_t point = last_point ? std::max<size_t>(1, w.sweep_values.size()) - 1 : 0;
      if (x.point == point) return &x;
    }
    return nullptr;
  }
  // The settings among `keys` that differ between the fabrics and rest on an
  // assumption for at least one of them.
  [[nodiscard]] std::vector<std::string> assumed(const std::vector<std::string>& keys) const {
    return assumed_if(
        [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); });
  }
  // A setting that differs between the fabrics: its value per fabric ("-"
  // where a fabric does not have it); nullptr when it is the same for all.
  [[nodiscard]] const EvalSettingDiff* setting(const std::string& key) const {
    for (const auto& d : in_.summary.settings)
      if (d.key == key) return &d;
    return nullptr;
  }
  // The same for the settings whose key starts with one of `prefixes`.
  [[nodiscard]] std::vector<std::string> assumed_with_prefix(const std::vector<std::string>& prefixes) const {
    return assumed_if([&](const std::string& k) {
      return std::any_of(prefixes.begin(), prefixes.end(),
                         [&](const std::string& p) { return k.rfind(p, 0) == 0; });
    });
  }
  // The first workload's figure of `metric` under `cond` for fabric f.
  [[nodiscard]] const EvalFigure* any_fig(size_t f, const std::string& metric, size_t cond) const {
    if (cond == npos) return nullptr;
    for (const EvalFigure& x : in_.summary.figures)
      if (x.fabric == f && x.metric == metric && x.condition == cond) return &x;
    return nullptr;
  }
  [[nodiscard]] const std::string& name(size_t f) const { return ev_.fabrics[f].name; }
  [[nodiscard]] size_t base() const { return base_; }
  [[nodiscard]] size_t failed() const { return failed_; }
  [[nodiscard]] const EvalReportInput& in() const { return in_; }

 private:
  // Differing settings whose key `want` accepts, unsourced for some fabric.
  template <class Pred>
  [[nodiscard]] std::vector<std::string> assumed_if(const Pred& want) const {
    std::vector<std::string> out;
    for (const auto& d : in_.summary.settings)
      if (want(d.key) && std::any_of(d.assumption.begin(), d.assumption.end(), [](bool a) { return a; }))
        out.push_back(d.key);
    return out;
  }

  const EvalReportInput& in_;
  const Evaluation& ev_;
  size_t base_ = npos;
  size_t failed_ = npos;
};

// A fabric's collective busbw (or iteration time) in the scale sweep at the
// smallest and largest cluster: how much of it the large cluster kept.
struct ScaleSpan {
  const EvalScalePoint* lo = nullptr;
  const EvalScalePoint* hi = nullptr;
  [[nodiscard]] double kept() const {
    return lo->metric == "busbw_GBps" ? hi->value / lo->value : lo->value / hi->value;
  }
  [[nodiscard]] std::string text(const std::string& fabric) const {
    return fmt::format("{}: {} [{}] at {} servers, {} [{}] at {}. ", fabric, report_number(lo->value), lo->id,
                       lo->servers, report_number(hi->value), hi->id, hi->servers);
  }
};

// The scale points of a collective or training workload's key metric.
bool scale_metric(const Evaluation& ev, const EvalScalePoint& p) {
  const std::string& type = ev.workloads[p.workload].type;
  return (type == "collective" || type == "training") && std::isfinite(p.value) && p.metric != "qps_per_nic";
}

// Fabric f's span at one (workload, point) of the scale sweep, or, without
// one, at the first workload's largest size swept.
ScaleSpan scale_span(const EvalReportInput& in, size_t f,
                     std::optional<std::pair<size_t, size_t>> at = std::nullopt) {
  const Evaluation& ev = in.ev;
  ScaleSpan sp;
  for (const auto& p : in.summary.scale) {
    if (p.fabric != f || !scale_metric(ev, p)) continue;
    if (at) {
      if (p.workload != at->first || p.point != at->second) continue;
    } else if (p.point + 1 < std::max<size_t>(1, ev.workloads[p.workload].sweep_values.size())) {
      continue;  // the largest size swept: bandwidth, not latency, is what scale strains
    }
    if (sp.lo != nullptr && (p.workload != sp.lo->workload || p.point != sp.lo->point)) continue;
    if (sp.lo == nullptr || p.servers < sp.lo->servers) sp.lo = &p;
    if (sp.hi == nullptr || p.servers > sp.hi->servers) sp.hi = &p;
  }
  if (sp.lo == sp.hi) sp = {};
  return sp;
}

// The connection state each fabric's scale workload took at its smallest and
// largest size (QPs on the busiest NIC), for the claims about scale.
std::string connection_state(const EvalReportInput& in) {
  std::string e;
  for (size_t f = 0; f < in.ev.fabrics.size(); ++f) {
    const ScaleSpan sp = scale_span(in, f);
    if (sp.lo == nullptr) continue;
    const EvalScalePoint* at[2] = {nullptr, nullptr};
    for (const auto& p : in.summary.scale)
      if (p.fabric == f && p.workload == sp.lo->workload && p.point == sp.lo->point &&
          p.metric == "qps_per_nic")
        for (int k = 0; k < 2; ++k)
          if (p.servers == (k == 0 ? sp.lo : sp.hi)->servers) at[k] = &p;
    if (at[0] == nullptr || at[1] == nullptr) continue;
    e += fmt::format("{} {} [{}] at {} servers, {} [{}] at {}; ", in.ev.fabrics[f].name,
                     report_number(at[0]->value), at[0]->id, at[0]->servers, report_number(at[1]->value),
                     at[1]->id, at[1]->servers);
  }
  if (e.empty()) return "Connection state per NIC: not measured (the scale workload reports no QPs).";
  e.resize(e.size() - 2);
  return "Connection state, QPs on the busiest NIC: " + e + ".";
}

std::string ordinal(size_t n) {
  const size_t tens = n % 100;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : n % 10 == 1            ? "st"
                       : n % 10 == 2            ? "nd"
                       : n % 10 == 3            ? "rd"
                                                : "th";
  return std::to_string(n) + suffix;
}

// `need`: what would measure it, a sentence starting "needs"; `evidence`:
// what this evaluation did measure that bears on it.
ClaimAnswer not_measured(int n, std::string claim, const std::string& need, std::string evidence = {}) {
  std::string finding = need;
  if (!finding.empty()) finding[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(finding[0])));
  return ClaimAnswer{n, std::move(claim), "not measured", std::move(evidence), std::move(finding)};
}

// Latency: lower on the first family than the second, fabric by fabric.
// Switches on the shortest path between hosts src and dst of the cell's
// cluster (-1: not connected).
int switches_between(const Topology& t, int src, int dst) {
  std::vector<std::vector<int>> adj(t.nodes.size());
  for (const TopoLink& l : t.links) {
    adj[static_cast<size_t>(l.a)].push_back(l.b);
    adj[static_cast<size_t>(l.b)].push_back(l.a);
  }
  std::vector<int> dist(t.nodes.size(), -1);
  std::vector<int> queue = {t.hosts[static_cast<size_t>(src)]};
  dist[static_cast<size_t>(queue.front())] = 0;
  for (size_t i = 0; i < queue.size(); ++i)
    for (int n : adj[static_cast<size_t>(queue[i])])
      if (dist[static_cast<size_t>(n)] < 0) {
        dist[static_cast<size_t>(n)] = dist[static_cast<size_t>(queue[i])] + 1;
        queue.push_back(n);
      }
  const int links = dist[static_cast<size_t>(t.hosts[static_cast<size_t>(dst)])];
  return links < 0 ? -1 : links - 1;
}

// Where a latency gap between fabrics a and b comes from: the switches on
// the probe's path times the difference in their latency, the NICs'
// latencies, and what is left (headers and framing, serialization, jitter).
// Empty when the path cannot be found.
// Switches between the latency workload's hosts in fabric f's baseline
// cell, built once per claim (-1: no such cell or path). The cluster is the
// same for every fabric of the evaluation.
int probe_switches(const Reader& r, size_t f) {
  const EvalReportInput& in = r.in();
  for (const EvalCell& c : in.cells) {
    const EvalWorkload& w = in.ev.workloads[c.workload];
    if (c.fabric != f || w.type != "latency" || c.condition != r.base() || !c.knob.empty() || c.servers != 0)
      continue;
    const Topology t = build_topology(load_scenario_text(c.scenario, "<" + c.id + ">"));
    const int src = w.keys["src"] ? w.keys["src"].as<int>() : 0;
    const int dst = w.keys["dst"] ? w.keys["dst"].as<int>() : 1;
    return src < t.num_hosts() && dst < t.num_hosts() ? switches_between(t, src, dst) : -1;
  }
  return -1;
}

struct GapSplit {
  std::string text;  // empty: the split could not be made
  double switch_ns = 0;
  double nic_ns = 0;
};
GapSplit latency_gap(const Reader& r, size_t a, size_t b, double gap_us, int hops) {
  if (hops < 0) return {};
  // A setting's value for fabric f in ns, where the fabrics differ (0 where
  // they do not: the difference is then nothing).
  const auto ns = [&](const std::string& key, size_t f) -> std::optional<double> {
    const EvalSettingDiff* d = r.setting(key);
    if (d == nullptr) return 0.0;
    try {
      return static_cast<double>(parse_time(d->values[f]).ps()) / 1e3;
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
  };
  const auto sa = ns("topology.switch.latency", a);
  const auto sb = ns("topology.switch.latency", b);
  double nic = 0;
  for (const char* k : {"fabric.nic_tx_latency", "fabric.nic_rx_latency"}) {
    const auto na = ns(k, a);
    const auto nb = ns(k, b);
    if (!na || !nb) return {};
    nic += *nb - *na;
  }
  if (!sa || !sb) return {};
  const double sw = hops * (*sb - *sa);
  const double gap = gap_us * 1e3;
  return {fmt::format("Of the {} ns between them, {} ns is switch latency ({} switch{} on the probe's path x "
                      "({} - {} ns)), "
                      "{} ns "
                      "the NICs' latency, {} ns the rest (headers and framing, serialization, host jitter). ",
                      report_number(gap), report_number(sw), hops, hops == 1 ? "" : "es", report_number(*sb),
                      report_number(*sa), report_number(nic),
                      std::abs(gap - sw - nic) < 0.5 ? std::string("under 1")
                                                     : report_number(std::round(gap - sw - nic))),
          sw, nic};
}

// Latency: lower on the `lows` fabrics than on the `highs`, pair by pair,
// idle; with `loaded_too`, the p99.9 under each loaded condition every
// fabric meets too (`high_name` names the high kind then). `need`: what
// would measure it, when no pair has the figures.
ClaimAnswer latency_order(const Reader& r, int n, const std::string& claim, std::vector<size_t> lows,
                          const std::vector<size_t>& highs, const std::string& metric, size_t cond,
                          const std::vector<std::string>& assumption_keys, const std::string& need,
                          bool loaded_too = false, const std::string& high_name = {}) {
  std::sort(lows.begin(), lows.end());
  std::string ev;
  bool all = true;
  bool any = false;
  // The gaps' range over the pairs, and the switches' share where it is the same for all.
  double gap_lo = std::numeric_limits<double>::infinity();
  double gap_hi = -gap_lo;
  std::optional<GapSplit> share;  // the split's parts, while every pair's are the same
  bool same_share = true;
  const int hops = lows.empty() ? -1 : probe_switches(r, lows.front());
  for (size_t a : lows)
    for (size_t b : highs) {
      const EvalFigure* x = r.fig(a, "latency", metric, cond);
      const EvalFigure* y = r.fig(b, "latency", metric, cond);
      if (x == nullptr || y == nullptr) continue;
      any = true;
      all = all && x->mean < y->mean;
      ev += fmt::format("{} {} against {} {}. ", r.name(a), cite(x), r.name(b), cite(y));
      const GapSplit split = latency_gap(r, a, b, y->mean - x->mean, hops);
      ev += split.text;
      const double gap = (y->mean - x->mean) * 1e3;
      gap_lo = std::min(gap_lo, gap);
      gap_hi = std::max(gap_hi, gap);
      if (split.text.empty() ||
          (share && (share->switch_ns != split.switch_ns || share->nic_ns != split.nic_ns)))
        same_share = false;
      share = split;
    }
  if (!any) return not_measured(n, claim, need);
  // The size of the gap idle, and how much of it the switches' and the
  // NICs' latencies are.
  std::string gap = "The gap idle is " + report_number(gap_lo) +
                    (gap_hi - gap_lo >= 1 ? "-" + report_number(gap_hi) : std::string()) + " ns";
  if (same_share && share) {
    std::vector<std::string> parts;
    if (share->switch_ns != 0) parts.push_back(report_number(share->switch_ns) + " ns switch latency");
    if (share->nic_ns != 0) parts.push_back(report_number(share->nic_ns) + " ns the NICs'");
    if (!parts.empty()) gap += ", of it " + join_names(parts, " and ");
  }
  gap += ". ";
  // "Especially under load": the tails under each loaded condition every
  // fabric meets, the high family's shortest against each low fabric's. The
  // order fails there when any low fabric's tail is as long; the answer
  // names those and how many it holds against.
  std::vector<std::string> held;
  std::vector<std::string> failed;
  const Evaluation& evn = r.in().ev;
  for (size_t c = 0; loaded_too && c < evn.conditions.size(); ++c) {
    if (!evn.conditions[c].is_loaded() || !evn.conditions[c].fabrics.empty()) continue;
    const EvalFigure* best_high = nullptr;
    for (size_t b : highs)
      if (const EvalFigure* y = r.fig(b, "latency", "p999_us", c);
          y && (!best_high || y->mean < best_high->mean))
        best_high = y;
    if (best_high == nullptr) continue;
    std::string against;
    std::vector<std::string> longer;
    size_t compared = 0;
    for (size_t a : lows)
      if (const EvalFigure* x = r.fig(a, "latency", "p999_us", c)) {
        ++compared;
        against += (against.empty() ? "" : ", ") + r.name(a) + " " + cite(x);
        if (x->mean >= best_high->mean) longer.push_back(r.name(a));
      }
    if (compared == 0) continue;
    const std::string& name = evn.conditions[c].name;
    ev += fmt::format("Under {}, p99.9: {} {} against {}. ", name, r.name(best_high->fabric), cite(best_high),
                      against);
    if (longer.empty())
      held.push_back(name);
    else
      failed.push_back(fmt::format(
          "under {}, where {} {} the longer tail ({}'s is longer than the other {} of {})", name,
          join_names(longer, " and "), longer.size() == 1 ? "has" : "have",
          high_name.empty() ? std::string("the other kind") : high_name, compared - longer.size(), compared));
  }
  if (all && !failed.empty())
    return ClaimAnswer{n, claim, "partly supported", ev,
                       gap + "The order holds idle" +
                           (held.empty() ? "" : " and under " + join_names(held, " and ")) + "; not " +
                           join_names(failed, "; nor ") + "."};
  const auto dep = r.assumed(assumption_keys);
  if (all && !dep.empty())
    return ClaimAnswer{n, claim, "depends on an assumption", ev,
                       gap + "The order holds here, but it rests on settings without a published source: " +
                           join_names(dep) + "."};
  return ClaimAnswer{n, claim, all ? "supported" : "contradicted", ev,
                     gap + (all ? "The order holds for every pair of fabrics idle" +
                                      std::string(loaded_too ? " and under every loaded condition." : ".")
                                : "The order does not hold for every pair of fabrics.")};
}

// The retransmission timeouts of the workload a slowdown's `cite` reads
// under condition `cond` ("a.w.cond.metric / a.w.base.metric"), or null.
const EvalFigure* timeouts_of(const EvalSummary& s, const std::string& cite, const std::string& cond) {
  std::istringstream ids(cite);
  std::string id;
  const std::string at = "." + cond + ".";
  while (ids >> id) {
    const size_t c = id.find(at);
    if (c != std::string::npos) return find_figure(s, id.substr(0, c + at.size()) + "timeouts");
  }
  return nullptr;
}

}  // namespace

std::vector<ClaimAnswer> answer_claims(const EvalReportInput& in) {
  const Reader r(in);
  const Evaluation& ev = in.ev;
  const EvalSummary& s = in.summary;
  std::vector<ClaimAnswer> out;
  const std::vector<std::string> latency_keys = {"fabric.nic_tx_latency", "fabric.nic_rx_latency",
                                                 "topology.switch.latency", "topology.switch.forwarding"};

  out.push_back(
      latency_order(r, 1,
                    "Tuned InfiniBand small-message latency (about 1 us) is lower than tuned RoCEv2's "
                    "(1.5-2 us); the gap comes from headers, parsing and switch/NIC latency.",
                    r.family(CostFamily::kInfiniband), r.rocev2(), "p50_us", r.base(), latency_keys,
                    "needs an InfiniBand and a RoCEv2 fabric (UET is not one) with a latency "
                    "workload idle."));

  {
    const std::string claim =
        "InfiniBand keeps latency and jitter low under load; RoCEv2 tail latency grows under congestion.";
    // Under each loaded condition every fabric meets (background, an incast
    // beside the probe): how much p99.9 grew from idle, InfiniBand's worst
    // against RoCEv2's best.
    std::string e;
    int held = 0;
    int compared = 0;
    std::vector<std::string> held_under;
    std::vector<std::string> failed_under;
    size_t samples = 0;
    const std::vector<size_t> rocev2 = r.rocev2();
    const auto is_rocev2 = [&](size_t f) {
      return std::find(rocev2.begin(), rocev2.end(), f) != rocev2.end();
    };
    for (size_t c = 0; c < ev.conditions.size(); ++c) {
      const EvalCondition& cond = ev.conditions[c];
      if (!cond.is_loaded() || !cond.fabrics.empty()) continue;
      double ib_worst = 0;
      double roce_best = std::numeric_limits<double>::infinity();
      size_t roce_best_at = 0;
      for (CostFamily fam : {CostFamily::kInfiniband, CostFamily::kRoce})
        for (size_t f : r.family(fam)) {
          if (fam == CostFamily::kRoce && !is_rocev2(f)) continue;
          const EvalFigure* b = r.fig(f, "latency", "p999_us", r.base());
          const EvalFigure* l = r.fig(f, "latency", "p999_us", c);
          if (b == nullptr || l == nullptr || b->mean <= 0) continue;
          const double growth = l->mean / b->mean;
          if (fam == CostFamily::kInfiniband) {
            ib_worst = std::max(ib_worst, growth);
          } else if (growth < roce_best) {
            roce_best = growth;
            roce_best_at = f;
          }
          e += fmt::format("{} under {}: p99.9 {} against {} idle ({:.2f}x). ", r.name(f), cond.name, cite(l),
                           cite(b), growth);
        }
      if (ib_worst <= 0 || !std::isfinite(roce_best)) continue;
      // Neither family's tail moved past the tuning threshold: the load
      // never reached the probe, and the order is noise.
      if (std::max(ib_worst, roce_best) < 1 + ev.tuning.threshold) {
        e += fmt::format("Under {}, no p99.9 grew by more than {} %: the load did not reach the probe. ",
                         cond.name, report_number(ev.tuning.threshold * 100));
        continue;
      }
      ++compared;
      if (ib_worst < roce_best) {
        ++held;
        held_under.push_back(cond.name);
      } else {
        failed_under.push_back(fmt::format("{} ({}'s grows {:.2f}x, InfiniBand's {:.2f}x)", cond.name,
                                           r.name(roce_best_at), roce_best, ib_worst));
      }
      e += fmt::format(
          "Under {}, InfiniBand's p99.9 grows {:.2f}x at the most, RoCEv2's {:.2f}x at the least. ",
          cond.name, ib_worst, roce_best);
    }
    for (const EvalWorkload& w : ev.workloads)
      if (w.type == "latency" && samples == 0)
        samples = w.keys["iters"] ? w.keys["iters"].as<size_t>() : 1000;  // perftest's default
    if (compared == 0) {
      out.push_back(not_measured(2, claim,
                                 "needs an InfiniBand and a RoCEv2 fabric with a latency workload, and a "
                                 "condition with background load or an incast beside it that reaches it.",
                                 e));
    } else {
      // p99.9 of n samples is the ceil(n/1000)-th largest: below 1000
      // round trips it is the maximum, one unlucky sample.
      const size_t rank = (samples + 999) / 1000;
      e += rank <= 1
               ? fmt::format("Each p99.9 is the maximum of {} round trips: one sample decides it. ", samples)
               : fmt::format("Each p99.9 is the {} largest of {} round trips. ", ordinal(rank), samples);
      const bool holds = held == compared;
      std::string f = holds ? std::string(
                                  "InfiniBand's p99.9 grows less than RoCEv2's under every loaded condition "
                                  "that reached the probe")
                      : held == 0 ? std::string(
                                        "InfiniBand's p99.9 grows no less than RoCEv2's under any loaded "
                                        "condition that reached the probe")
                                  : "InfiniBand's p99.9 grows less than RoCEv2's under " +
                                        join_names(held_under, " and ") + ", not under " +
                                        join_names(failed_under, " and ");
      // An InfiniBand queue under load is as deep as its per-VL buffers:
      // with one credit loop the demo's IB tail grew 3.14x, with the 128
      // KiB a port may advertise 3.53x, either side of HPCC's 3.45x.
      const auto dep = r.assumed({"fabric.ib.vl_buffer"});
      if (held > 0 && !holds) {
        out.push_back(ClaimAnswer{
            2, claim, "partly supported", e,
            f + (dep.empty()
                     ? std::string(".")
                     : "; InfiniBand's queues under load are as deep as its per-VL buffers, a setting "
                       "without a published source: " +
                           join_names(dep) + ".")});
      } else if (dep.empty()) {
        out.push_back(ClaimAnswer{2, claim, holds ? "supported" : "contradicted", e, f + "."});
      } else {
        out.push_back(
            ClaimAnswer{2, claim, "depends on an assumption", e,
                        f +
                            ", but InfiniBand's queues under load are as deep as its per-VL buffers, "
                            "a setting without a published source: " +
                            join_names(dep) + "."});
      }
    }
  }

  {
    std::vector<size_t> without_tcp = r.family(CostFamily::kInfiniband);
    for (size_t f : r.family(CostFamily::kRoce)) without_tcp.push_back(f);
    out.push_back(latency_order(
        r, 3, "iWARP has higher latency than the RDMA fabrics without TCP, especially under load.",
        without_tcp, r.family(CostFamily::kIwarp), "p50_us", r.base(), latency_keys,
        "needs a latency workload on both kinds of fabric under this condition.", true, "iWARP"));
  }

  {
    const std::string claim = "iWARP collectives lag at scale; performance drops as the cluster grows.";
    std::string e;
    for (size_t f = 0; f < ev.fabrics.size(); ++f)
      if (const EvalFigure* x = r.fig(f, "collective", "busbw_GBps", r.base(), true))
        e += r.name(f) + " " + cite(x) + ". ";
    // From the scale sweep, at each size it ran: each fabric's collective
    // busbw (or iteration time) at the smallest and largest cluster, and how
    // much of it the large cluster kept. A latency-bound size and a
    // bandwidth-bound one can answer differently.
    std::vector<std::pair<size_t, size_t>> points;
    for (const auto& p : s.scale)
      if (scale_metric(ev, p) &&
          std::find(points.begin(), points.end(), std::pair{p.workload, p.point}) == points.end())
        points.emplace_back(p.workload, p.point);
    std::string trend;
    std::string verdicts;
    std::vector<std::string> lags;
    std::vector<std::string> keeps;
    bool iwarp_seen = false;
    for (const auto& at : points) {
      const EvalWorkload& w = ev.workloads[at.first];
      const std::string label =
          w.name + (w.sweep_values.empty() ? std::string() : " " + w.sweep_values[at.second]);
      double iwarp_kept = -1;
      double others_worst = std::numeric_limits<double>::infinity();
      for (size_t f = 0; f < ev.fabrics.size(); ++f) {
        const ScaleSpan sp = scale_span(in, f, at);
        if (sp.lo == nullptr) continue;
        trend += sp.text(r.name(f));
        if (ev.cost[f].family == CostFamily::kIwarp)
          iwarp_kept = sp.kept();
        else
          others_worst = std::min(others_worst, sp.kept());
      }
      if (iwarp_kept < 0 || !std::isfinite(others_worst)) continue;
      iwarp_seen = true;
      // Lags when it keeps clearly less (by more than 1%) than every other fabric.
      const bool lag = iwarp_kept < others_worst - 0.01;
      (lag ? lags : keeps).push_back(label);
      verdicts += fmt::format(
          "At {}, iWARP keeps {} % of its smallest cluster's figure, the others {} % at the least. ", label,
          report_number(iwarp_kept * 100), report_number(others_worst * 100));
    }
    if (trend.empty()) {
      out.push_back(
          not_measured(4, claim,
                       "needs a scale sweep (`scale: {servers: [...], workloads: [...]}`) of a "
                       "collective or training workload.",
                       "At this size: " + (e.empty() ? std::string("no collective workload. ") : e)));
    } else if (!iwarp_seen) {
      out.push_back(not_measured(4, claim, "needs iWARP and another fabric in the scale sweep.", trend));
    } else {
      const std::string scope =
          lags.empty() ? "iWARP keeps as much of its small-cluster figure as the others at " +
                             join_names(keeps, " and ") + "."
          : keeps.empty()
              ? "iWARP keeps less of its small-cluster figure than every other fabric at " +
                    join_names(lags, " and ") + "."
              : "iWARP lags at " + join_names(lags, " and ") + ", not at " + join_names(keeps, " and ") + ".";
      out.push_back(ClaimAnswer{4, claim,
                                lags.empty()    ? "contradicted"
                                : keeps.empty() ? "supported"
                                                : "partly supported",
                                trend + verdicts + connection_state(in), scope});
    }
  }

  // The lossless Ethernet fabrics (PFC on): the ones the PFC claims are about.
  std::vector<size_t> lossless;
  for (size_t f : r.family(CostFamily::kRoce)) {
    const EvalSettingDiff* d = r.setting("fabric.pfc.enabled");
    if (d == nullptr || d->values[f] == "true") lossless.push_back(f);
  }
  // Fabric f's PFC pause time in the tuning workloads at baseline: zero
  // means no queue there reached XOFF, so no PFC threshold was exercised.
  const auto tuning_pause = [&](size_t f) -> const EvalFigure* {
    const EvalFigure* most = nullptr;
    for (const EvalFigure& x : s.figures)
      if (x.fabric == f && x.condition == r.base() && x.metric == "pfc_pause_us" &&
          std::find(ev.tuning.workloads.begin(), ev.tuning.workloads.end(), ev.workloads[x.workload].name) !=
              ev.tuning.workloads.end() &&
          (most == nullptr || x.mean > most->mean))
        most = &x;
    return most;
  };
  const auto is_pfc_or_ecn = [](const std::string& k) {
    return k.rfind("fabric.pfc.", 0) == 0 || k.rfind("fabric.ecn.", 0) == 0;
  };

  {
    const std::string claim =
        "Misconfigured PFC or ECN causes loss, head-of-line blocking and congestion spreading.";
    std::string e;
    bool loss = false;
    std::vector<std::string> lost;  // "fabric under condition" where an injection dropped packets
    bool slower = false;
    bool tried = false;
    // Conditions that inject misconfigurations (misconfig:) answer it
    // directly: what they dropped, and the latency tail against the same
    // load with PFC set right.
    for (size_t c = 0; c < ev.conditions.size(); ++c) {
      const EvalCondition& cond = ev.conditions[c];
      if (!cond.misconfig.IsSequence()) continue;
      size_t twin = Reader::npos;
      for (size_t k = 0; k < ev.conditions.size(); ++k) {
        const EvalCondition& o = ev.conditions[k];
        if (k != c && !o.misconfig.IsSequence() && o.set.empty() && !o.down_at &&
            o.incast_senders == cond.incast_senders && o.incast_size == cond.incast_size &&
            o.background_load == cond.background_load && o.background_cdf == cond.background_cdf &&
            o.distance == cond.distance && twin == Reader::npos)
          twin = k;
      }
      for (size_t f : lossless) {
        for (const EvalFigure& x : s.figures) {
          if (x.fabric != f || x.condition != c ||
              (x.metric != "lossless_class_drops" && x.metric != "oversize_drops"))
            continue;
          tried = true;
          if (x.mean > 0) {
            loss = true;
            if (const std::string where = r.name(f) + " under " + cond.name;
                std::find(lost.begin(), lost.end(), where) == lost.end())
              lost.push_back(where);
            e += fmt::format(
                "{} under {}: {} {}. ", r.name(f), cond.name, cite(&x),
                x.metric == "oversize_drops" ? "dropped as oversize" : "dropped in the lossless class");
          } else if (x.metric == "lossless_class_drops") {
            e += fmt::format("{} under {}: no lossless-class drop ({}). ", r.name(f), cond.name, cite(&x));
          }
        }
        const EvalFigure* a = r.fig(f, "latency", "p999_us", c);
        const EvalFigure* b = twin == Reader::npos ? nullptr : r.fig(f, "latency", "p999_us", twin);
        if (a != nullptr && b != nullptr) {
          e += fmt::format("{}: latency p99.9 {} under {}, against {} under {} with PFC set right", r.name(f),
                           cite(a), cond.name, cite(b), ev.conditions[twin].name);
          // Shorter with the injection: its drops, and the senders' go-back-N
          // after them, emptied the queue the pauses had held the probe in.
          const EvalFigure* resent = r.fig(f, "latency", "retransmitted_packets", c);
          if (a->mean < b->mean && resent != nullptr && resent->mean > 0)
            e += fmt::format(" (shorter: {} resent after the drops left less queued ahead of the probe)",
                             cite(resent));
          e += ". ";
        }
        // A mis-set threshold no queue reached was never tested.
        const EvalFigure* pause = r.fig(f, "latency", "pfc_pause_us", c);
        if (pause != nullptr && pause->mean == 0)
          e += fmt::format("{}: PFC never paused under {} ({}), so what it mis-sets was not exercised. ",
                           r.name(f), cond.name, cite(pause));
      }
    }
    // An incast the probe never joins (into another host, from the probe's
    // source among others): PFC pauses on the way are congestion spreading;
    // the probe's tail against idle is what head-of-line blocking cost it.
    bool hol = false;
    bool spread_measured = false;
    for (size_t c = 0; c < ev.conditions.size(); ++c) {
      const EvalCondition& cond = ev.conditions[c];
      if (!cond.incast_elsewhere) continue;
      for (size_t f : lossless) {
        const EvalFigure* pause = r.fig(f, "latency", "pfc_pause_us", c);
        const EvalFigure* a = r.fig(f, "latency", "p999_us", c);
        const EvalFigure* b = r.fig(f, "latency", "p999_us", r.base());
        if (pause == nullptr || a == nullptr || b == nullptr || b->mean <= 0) continue;
        spread_measured = true;
        const bool slowed = a->mean > b->mean * (1 + ev.tuning.threshold);
        hol = hol || (slowed && pause->mean > 0);
        e += fmt::format(
            "{} under {} (an incast the probe never joins): PFC held links upstream of the congested port "
            "paused for {} summed over the paused ports; the probe's p99.9 {} against {} idle{}. ",
            r.name(f), cond.name, cite(pause), cite(a), cite(b),
            pause->mean == 0 ? " (no queue reached XOFF: nothing spread)"
            : slowed         ? ": head-of-line blocking"
                             : ": the pauses did not reach the probe's path");
      }
    }
    // The tuning sweep's PFC and ECN settings, mis-set one at a time.
    for (size_t f : lossless) {
      bool pfc_tried = false;
      for (const auto& t : s.tuning[f].trials) {
        if (!is_pfc_or_ecn(t.key)) continue;
        tried = true;
        pfc_tried = pfc_tried || t.key.rfind("fabric.pfc.", 0) == 0;
        if (t.degradation > ev.tuning.threshold) {
          slower = true;
          e += fmt::format("{} {} {} makes {} worse by {} [trial:{}]. ", r.name(f), t.key, t.change,
                           t.workload,
                           std::isfinite(t.degradation) ? report_number(t.degradation * 100) + " %"
                                                        : std::string("did not finish"),
                           t.cell);
        }
      }
      const EvalFigure* pause = tuning_pause(f);
      if (pfc_tried && pause != nullptr && pause->mean == 0)
        e += fmt::format(
            "{}: PFC never paused in the tuning workloads at baseline ({}), so no PFC threshold was "
            "exercised there. ",
            r.name(f), cite(pause));
    }
    const bool tried_settings = tried;  // a tuning trial or an injection, not only the probe
    tried = tried || spread_measured;
    if (!tried) {
      out.push_back(not_measured(
          5, claim,
          "needs a lossless Ethernet (PFC) fabric with a tuning sweep, or conditions that inject "
          "misconfigurations (`misconfig:`; a stuck receiver's PFC storm and cyclic-buffer "
          "deadlock are measured by `rdmasim run`, docs/PFC_STORM.md)."));
    } else {
      std::string f;
      if (loss) f += "Mis-set PFC dropped lossless-class packets (" + join_names(lost, " and ") + "). ";
      if (slower) f += "A PFC or ECN setting mis-set x0.5/x2/off cost more than the threshold. ";
      // Head-of-line blocking needs a flow that never crosses the congested
      // port: the `into: elsewhere` incast's probe.
      if (!spread_measured)
        f +=
            "Head-of-line blocking and congestion spreading onto flows that avoid the congested port are not "
            "isolated by these workloads (an incast condition with `into: elsewhere` measures them, as "
            "scenarios/victim-flow.yaml and `rdmasim validate` case B.7 do).";
      else
        f += hol ? "PFC pauses slowed a flow that avoids the congested port (head-of-line blocking)."
                 : "Head-of-line blocking of a flow that avoids the congested port was not seen here.";
      if (!loss && !slower && !hol && tried_settings)
        f += " No PFC or ECN setting mis-set x0.5/x2/off cost more than the threshold here, and no injected "
             "misconfiguration dropped a lossless packet.";
      // Supported when both kinds of harm showed: loss (or a knob) and
      // head-of-line blocking; partly when one did.
      const bool harm = loss || slower;
      out.push_back(ClaimAnswer{5, claim,
                                harm && hol   ? "supported"
                                : harm || hol ? "partly supported"
                                              : "contradicted",
                                e, f});
    }
  }

  {
    const std::string claim =
        "InfiniBand's credit-based link layer is lossless with no tuning; RoCEv2 needs PFC, ECN and "
        "DCQCN/HPCC set consistently.";
    const auto ib = r.family(CostFamily::kInfiniband);
    const auto roce = r.family(CostFamily::kRoce);
    if (ev.tuning.workloads.empty() || ib.empty() || roce.empty()) {
      out.push_back(not_measured(6, claim, "needs a tuning sweep over an InfiniBand and a RoCEv2 fabric."));
    } else {
      std::string e;
      size_t ib_max = 0;
      size_t roce_min = static_cast<size_t>(-1);
      for (size_t f : ib) ib_max = std::max(ib_max, s.tuning[f].sensitive.size());
      for (size_t f : roce) roce_min = std::min(roce_min, s.tuning[f].sensitive.size());
      for (size_t f : ib) {
        e += fmt::format("{}: {} knob{} [tuning.{}.sensitive]", r.name(f), s.tuning[f].sensitive.size(),
                         s.tuning[f].sensitive.size() == 1 ? "" : "s", r.name(f));
        // Lossless: no packet lost to a full buffer in any of its cells.
        double dropped = 0;
        for (const EvalFigure& x : s.figures)
          if (x.fabric == f && x.metric == "lossless_drops") dropped += x.max;
        e += dropped == 0 ? ", no lossless-class drop in any cell. " : ". ";
      }
      bool pfc_or_ecn_mattered = lossless.empty();  // no lossless fabric: that part is not the claim's here
      for (size_t f : roce) {
        // Which kinds of setting the knobs are: the claim names three.
        std::vector<std::string> kinds;
        std::vector<std::string> untouched;
        for (const auto& k : s.tuning[f].sensitive) {
          const std::string kind = k.rfind("fabric.pfc.", 0) == 0   ? "PFC"
                                   : k.rfind("fabric.ecn.", 0) == 0 ? "ECN"
                                   : k.rfind("fabric.", 0) == 0     ? k.substr(7, k.find('.', 7) - 7)
                                                                    : k;
          if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
        }
        for (const char* kind : {"PFC", "ECN"})
          if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) untouched.emplace_back(kind);
        e += fmt::format("{}: {} knob{} [tuning.{}.sensitive]", r.name(f), s.tuning[f].sensitive.size(),
                         s.tuning[f].sensitive.size() == 1 ? "" : "s", r.name(f));
        if (!kinds.empty()) e += " (" + join_names(kinds) + ")";
        const bool pfc_fabric = std::find(lossless.begin(), lossless.end(), f) != lossless.end();
        pfc_or_ecn_mattered = pfc_or_ecn_mattered || (pfc_fabric && untouched.size() < 2);
        if (pfc_fabric && !untouched.empty()) {
          e += "; no " + join_names(untouched, " or ") + " setting mattered";
          const EvalFigure* pause = tuning_pause(f);
          if (pause != nullptr && pause->mean == 0)
            e += ": PFC never paused in these workloads (" + cite(pause) + ")";
        }
        e += ". ";
      }
      // The congestion control alone mattering is the claim in part: it
      // names PFC and ECN too.
      const std::string f =
          ib_max >= roce_min
              ? fmt::format(
                    "InfiniBand had as many settings to get right as RoCEv2 ({} against {} at the least).",
                    ib_max, roce_min)
          : pfc_or_ecn_mattered
              ? fmt::format(
                    "InfiniBand had {} setting{} to get right, RoCEv2 {} at the least, PFC or ECN among "
                    "them.",
                    ib_max, ib_max == 1 ? "" : "s", roce_min)
              : "InfiniBand needed " + (ib_max == 0 ? std::string("no tuning") : "less tuning") +
                    " and RoCE's congestion control did; that PFC and ECN must be set consistently is not "
                    "shown "
                    "by these workloads.";
      out.push_back(ClaimAnswer{6, claim,
                                ib_max >= roce_min    ? "contradicted"
                                : pfc_or_ecn_mattered ? "supported"
                                                      : "partly supported",
                                e, f});
    }
  }

  {
    const std::string claim = "SHARP offloads AllReduce into InfiniBand switches and beats host algorithms.";
    const auto is_sharp = [](const EvalWorkload& w) {
      return w.keys["algo"] && w.keys["algo"].Scalar() == "sharp";
    };
    // Each size both ran, idle and beside every load every fabric meets:
    // SHARP's packets meet the other traffic in the switch queues.
    const auto size_of = [&](const EvalFigure& x) {
      const EvalWorkload& w = ev.workloads[x.workload];
      return w.sweep_values.empty() ? std::string() : w.sweep_values[x.point];
    };
    std::string e;
    std::vector<std::string> wins;
    std::vector<std::string> losses;
    bool own_sl = false;
    for (size_t f : r.family(CostFamily::kInfiniband)) {
      own_sl = own_sl || std::any_of(ev.fabrics[f].set.begin(), ev.fabrics[f].set.end(),
                                     [](const auto& kv) { return kv.first == "fabric.sharp.traffic_class"; });
      for (const EvalFigure& x : s.figures) {
        if (x.fabric != f || x.metric != "busbw_GBps" || ev.workloads[x.workload].type != "collective" ||
            !is_sharp(ev.workloads[x.workload]))
          continue;
        const EvalCondition& cond = ev.conditions[x.condition];
        if (x.condition != r.base() && (!cond.is_loaded() || !cond.fabrics.empty())) continue;
        const EvalFigure* y = nullptr;
        for (const EvalFigure& h : s.figures)
          if (h.fabric == f && h.condition == x.condition && h.metric == x.metric &&
              ev.workloads[h.workload].type == "collective" && !is_sharp(ev.workloads[h.workload]) &&
              size_of(h) == size_of(x) && y == nullptr)
            y = &h;
        if (y == nullptr) continue;
        const std::string where = (size_of(x).empty() ? std::string() : size_of(x) + " ") +
                                  (x.condition == r.base() ? "idle" : cond.name);
        e += fmt::format("{}: {} SHARP {} against {}. ", r.name(f), where, cite(&x), cite(y));
        (x.mean > y->mean ? wins : losses).push_back(where);
      }
    }
    std::string f = losses.empty() ? "SHARP leads at every size and condition measured."
                    : wins.empty() ? "The host algorithm leads at every size and condition measured."
                                   : "SHARP leads at " + join_names(wins, ", ") + "; the host algorithm at " +
                                         join_names(losses, ", ") + ".";
    if (!wins.empty() && !losses.empty()) {
      if (!own_sl)
        f += " Here SHARP's aggregation shares the data SL with the other traffic; on an SL of its own with "
             "high "
             "VL-arbitration priority (fabric.sharp.traffic_class, fabric.ib.credit.vlarb_high) it keeps "
             "about "
             "95% of line rate beside 20% storage load (`rdmasim validate --only collectives`, case C.11).";
    }
    out.push_back(
        wins.empty() && losses.empty()
            ? not_measured(7, claim,
                           "needs two collective workloads of the same sizes on an InfiniBand fabric, one "
                           "with `algo: sharp`.")
            : ClaimAnswer{7, claim,
                          losses.empty() ? "supported"
                          : wins.empty() ? "contradicted"
                                         : "partly supported",
                          e, f});
  }

  {
    // Pairs of fabrics that differ only in how packets pick their path: the
    // same profile, one entry setting path selection or adaptive routing.
    const std::string claim =
        "ECMP polarizes AI elephant flows; more entropy (PLB), adaptive routing or packet spraying fix it.";
    const auto path_key = [](const std::string& k) {
      return k == "fabric.path_selection" || k == "fabric.ib.adaptive_routing";
    };
    const auto rest = [&](const EvalFabric& f) {
      std::vector<std::pair<std::string, std::string>> v;
      for (const auto& kv : f.set)
        if (!path_key(kv.first)) v.push_back(kv);
      std::sort(v.begin(), v.end());
      return v;
    };
    const auto changes_path = [&](const EvalFabric& f) {
      return std::any_of(f.set.begin(), f.set.end(), [&](const auto& kv) { return path_key(kv.first); });
    };
    std::string e;
    bool any = false;
    bool all = true;
    bool twins = false;       // a pair that differs in path selection alone
    bool confounded = false;  // a pair that differs in transport and congestion control too
    for (size_t a = 0; a < ev.fabrics.size(); ++a)
      for (size_t b = 0; b < ev.fabrics.size(); ++b) {
        const EvalFabric& fa = ev.fabrics[a];
        const EvalFabric& fb = ev.fabrics[b];
        if (a == b || fa.profile != fb.profile || changes_path(fa) || !changes_path(fb) ||
            rest(fa) != rest(fb))
          continue;
        const EvalFigure* x = r.fig(a, "permutation", "completion_us", r.base());
        const EvalFigure* y = r.fig(b, "permutation", "completion_us", r.base());
        if (x == nullptr || y == nullptr) continue;
        any = twins = true;
        all = all && y->mean < x->mean;
        e += fmt::format("permutation completion: {} {} against {} {}. ", fa.name, cite(x), fb.name, cite(y));
        if (std::abs(y->mean - x->mean) <= 0.01 * x->mean)
          e += "No difference: this permutation may not have polarized ECMP (try larger or more flows). ";
      }
    // Packet spraying (UET's PDS, or a profile that sprays) against
    // per-connection ECMP on Ethernet: the pair also differs in transport
    // and congestion control, which the answer says.
    if (const EvalSettingDiff* ps = r.setting("fabric.path_selection")) {
      const auto ethernet = [&](size_t f) {
        return ev.cost[f].family != CostFamily::kInfiniband && ps->values[f] != "-";
      };
      for (size_t b = 0; b < ev.fabrics.size(); ++b) {
        if (!ethernet(b) || (ps->values[b] != "spray" && ps->values[b] != "reps")) continue;
        const EvalFigure* y = r.fig(b, "permutation", "completion_us", r.base());
        if (y == nullptr) continue;
        for (size_t a = 0; a < ev.fabrics.size(); ++a) {
          if (!ethernet(a) || ps->values[a] != "per-connection") continue;
          const EvalFigure* x = r.fig(a, "permutation", "completion_us", r.base());
          if (x == nullptr) continue;
          any = confounded = true;
          all = all && y->mean < x->mean;
          e += fmt::format(
              "permutation completion: {} (ECMP, one path per connection) {} against {} ({}) {}. ", r.name(a),
              cite(x), r.name(b), ps->values[b], cite(y));
        }
      }
    }
    std::string f =
        all ? "Every fabric that spreads a connection's packets over paths (or picks them adaptively) "
              "finished the permutation sooner than each per-connection ECMP fabric it is compared with."
            : "Not every fabric that spreads packets over paths finished the permutation sooner than "
              "the per-connection ECMP fabric it is compared with.";
    if (confounded)
      f += twins ? " Some of the pairs also differ in transport and congestion control (see Settings)."
                 : " The pairs also differ in transport and congestion control (see Settings), so path "
                   "selection "
                   "alone is not isolated: two entries of one profile that differ only in "
                   "`fabric.path_selection` "
                   "would isolate it.";
    out.push_back(
        any ? ClaimAnswer{8, claim, all ? "supported" : "contradicted", e, f}
            : not_measured(8, claim,
                           "needs a permutation workload and either two entries of one profile that differ "
                           "only in path selection (e.g. `set: {fabric.path_selection: plb}` or "
                           "`fabric.ib.adaptive_routing: true`) or a spraying fabric (uet-nscc) beside an "
                           "ECMP one."));
  }

  {
    const std::string claim =
        "InfiniBand fails over fast in hardware; Ethernet relies on slower routing failover.";
    if (r.failed() == Reader::npos) {
      out.push_back(not_measured(9, claim, "needs a link_down condition."));
    } else {
      // When the switches at the link's ends route around it (SHIELD in
      // IB switch hardware; Ethernet's ECMP group repair) and when every
      // switch does (the SM's new LFTs; BGP), and what it cost the workloads.
      std::string e;
      // The slowest fabric whose lost packets waited for timeouts.
      struct Waited {
        size_t fabric;
        double value;
        double timeouts;
      };
      std::optional<Waited> slowest_waited;
      struct Span {
        double ib_worst = 0;
        double eth_best = std::numeric_limits<double>::infinity();
        bool ib = false;
        bool eth = false;
        void add(bool infiniband, double v) {
          if (infiniband) {
            ib_worst = std::max(ib_worst, v);
            ib = true;
          } else {
            eth_best = std::min(eth_best, v);
            eth = true;
          }
        }
        [[nodiscard]] bool both() const { return ib && eth; }
        [[nodiscard]] bool ib_faster() const { return ib_worst < eth_best; }
      } local, global;
      for (size_t f = 0; f < ev.fabrics.size(); ++f) {
        const bool infiniband = ev.cost[f].family == CostFamily::kInfiniband;
        e += r.name(f) + ": ";
        if (const EvalFigure* x = r.any_fig(f, "repaired_after_us", r.failed())) {
          e += "the link's switches routed around it after " + cite(x) + ", ";
          local.add(infiniband, x->mean);
        }
        if (const EvalFigure* x = r.any_fig(f, "rerouted_after_us", r.failed())) {
          e += "every switch after " + cite(x) + ", ";
          global.add(infiniband, x->mean);
        }
        // Under the link failures alone: load conditions are not failover.
        const Slowdown w = worst_slowdown(in.ev, in.cells, s, f,
                                          [](const EvalCondition& c) { return c.down_at.has_value(); });
        if (w.cite.empty())
          e += "no workload slower than at baseline. ";
        else
          e += std::isfinite(w.value)
                   ? fmt::format("worst slowdown under the failure {} x [{}]", report_number(w.value), w.cite)
                   : fmt::format("a workload did not finish after the failure ({})", w.cite);
        // What that workload's lost packets waited for: their QPs'
        // retransmission timeouts, until a route around the link existed.
        if (const EvalFigure* t = timeouts_of(s, w.cite, ev.conditions[r.failed()].name); t && t->mean > 0) {
          e += fmt::format(", with {} retransmission timeouts [{}]", report_number(t->mean), t->id);
          if (!slowest_waited || w.value > slowest_waited->value)
            slowest_waited = Waited{f, w.value, t->mean};
        }
        if (!w.cite.empty()) e += ". ";
      }
      if (!global.both()) {
        out.push_back(not_measured(9, claim, "needs an InfiniBand and an Ethernet fabric under it.", e));
      } else {
        const bool holds = global.ib_faster() && (!local.both() || local.ib_faster());
        const std::vector<std::string> assumed =
            r.assumed_with_prefix({"fabric.ib.sm_", "fabric.ib.flfn", "fabric.reroute.", "fabric.rto",
                                   "fabric.retry_limit", "fabric.tcp.min_rto", "fabric.tcp.max_rto"});
        std::string f =
            holds ? "InfiniBand's switches and subnet manager route around the link before Ethernet's do."
                  : "InfiniBand does not route around the link before Ethernet here.";
        if (slowest_waited)
          f += fmt::format(
              " The slowdowns are the transports' too: packets lost on the dead link wait for their "
              "retransmission timeouts (fabric.rto, doubling to its backoff limit; TCP's fabric.tcp.min_rto "
              "on iWARP) until a route around it exists: {}'s {} waited through {}.",
              r.name(slowest_waited->fabric),
              std::isfinite(slowest_waited->value) ? report_number(slowest_waited->value) + " x"
                                                   : std::string("unfinished workload"),
              report_number(slowest_waited->timeouts));
        if (!assumed.empty())
          f += " These times rest on settings without a published source: " + join_names(assumed) + ".";
        out.push_back(ClaimAnswer{9, claim,
                                  !assumed.empty() ? "depends on an assumption"
                                  : holds          ? "supported"
                                                   : "contradicted",
                                  e, f});
      }
    }
  }

  {
    const std::string claim = "RoCEv2 lowers total cost of ownership by 40-55% against InfiniBand.";
    const auto ib = r.family(CostFamily::kInfiniband);
    const auto roce = r.family(CostFamily::kRoce);
    if (ib.empty() || roce.empty()) {
      out.push_back(not_measured(10, claim, "needs an InfiniBand and a RoCEv2 fabric."));
    } else {
      const size_t a = ib.front();
      const size_t b = roce.front();
      const double saving = 1 - s.cost[b].total / s.cost[a].total;
      std::vector<std::string> assumed;
      std::vector<CostInputInfo> infos = cost_input_info(CostFamily::kRoce);
      for (const auto& [cable, usd] : ev.cost[b].cable_link_usd) infos.push_back(cable_link_info(cable));
      for (const auto& i : infos)
        if (i.source.rfind("assumption", 0) == 0) assumed.push_back(i.key);
      out.push_back(ClaimAnswer{
          10, claim,
          assumed.empty() ? (saving >= 0.40 ? "supported" : "contradicted") : "depends on an assumption",
          fmt::format("{} {} USD [cost.{}.total] against {} {} USD [cost.{}.total]: {} % lower. ", r.name(b),
                      report_number(s.cost[b].total), r.name(b), r.name(a), report_number(s.cost[a].total),
                      r.name(a), report_number(saving * 100)),
          fmt::format("RoCEv2 costs {} % less here", report_number(saving * 100)) +
              (assumed.empty() ? std::string(".")
                               : ", from prices without a published source (" + join_names(assumed) +
                                     "); put real quotes under `cost:` to decide this.")});
    }
  }

  {
    // Measured only when the scale sweep reaches the size the claim is
    // about: what each fabric keeps from its smallest cluster to a largest
    // one of at least kThousands GPUs; RoCE should keep more than IB.
    const std::string claim = "InfiniBand suits clusters up to a few thousand GPUs; RoCEv2 scales further.";
    constexpr int kThousands = 2048;
    int largest = ev.cluster.servers;
    for (const auto& p : s.scale) largest = std::max(largest, p.servers);
    const int gpus = largest * ev.cluster.gpus_per_server;
    std::string trend;
    double ib_best = -1;
    double roce_worst = std::numeric_limits<double>::infinity();
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      const ScaleSpan sp = scale_span(in, f);
      if (sp.lo == nullptr) continue;
      trend += sp.text(r.name(f));
      if (ev.cost[f].family == CostFamily::kInfiniband) ib_best = std::max(ib_best, sp.kept());
      if (ev.cost[f].family == CostFamily::kRoce) roce_worst = std::min(roce_worst, sp.kept());
    }
    if (gpus < kThousands || trend.empty()) {
      out.push_back(not_measured(
          11, claim,
          fmt::format(
              "needs a scale sweep of a collective or training workload reaching {} GPUs or more; the "
              "largest cluster here has {} GPUs (add server counts to `scale: {{servers: [...]}}`: "
              "packet level, minutes per cell at that size).",
              kThousands, gpus),
          trend));
    } else if (ib_best < 0 || !std::isfinite(roce_worst)) {
      out.push_back(
          not_measured(11, claim, "needs InfiniBand and RoCEv2 fabrics in the scale sweep.", trend));
    } else {
      const bool holds = roce_worst > ib_best + 0.01;
      out.push_back(ClaimAnswer{
          11, claim, holds ? "supported" : "contradicted",
          trend + fmt::format("Largest cluster: {} GPUs.", gpus),
          fmt::format("From the smallest cluster to {} GPUs RoCEv2 keeps {} % of its figure at the least, "
                      "InfiniBand {} % at the most.",
                      gpus, report_number(roce_worst * 100), report_number(ib_best * 100))});
    }
  }

  {
    const std::string claim =
        "Large AllReduce reaches about 46-48 GB/s busbw per 400G NIC on IB and tuned RoCE.";
    const auto is_ar = [](const EvalWorkload& w) {
      return w.keys["op"] && w.keys["op"].Scalar() == "all_reduce";
    };
    // The published figures are nccl-tests' top sizes (1 GiB and up,
    // docs/COLLECTIVES.md); below that busbw is still climbing, so a smaller
    // largest size cannot contradict them.
    constexpr int64_t kSaturated = int64_t{1} << 30;
    std::string e;
    bool any = false;
    bool all = true;
    int64_t largest = 0;
    std::vector<std::pair<const EvalFigure*, double>> models;  // the model's time, and its busbw per NIC
    for (size_t f = 0; f < ev.fabrics.size(); ++f) {
      if (ev.cost[f].family != CostFamily::kInfiniband && ev.cost[f].family != CostFamily::kRoce) continue;
      const EvalFigure* x = r.fig(f, "collective", "busbw_GBps", r.base(), true, is_ar);
      if (x == nullptr) continue;
      any = true;
      const EvalWorkload& w = ev.workloads[x->workload];
      const int64_t bytes = w.sweep_values.empty() ? 0 : parse_bytes(w.sweep_values[x->point]).count();
      largest = std::max(largest, bytes);
      const double per_nic = x->mean / ev.cluster.gpus_per_server;
      all = all && per_nic >= 40 && per_nic <= 55;
      e += fmt::format("{}: {}, i.e. {} GB/s per NIC ({} NICs per server)", r.name(f), cite(x),
                       report_number(per_nic), ev.cluster.gpus_per_server);
      // NCCL's own cost model at the same size: what the size alone allows.
      // It knows a fabric only by its link rate, so it is said once when
      // every fabric gets the same.
      const EvalFigure* m = r.fig(f, "collective", "nccl_model_us", r.base(), true, is_ar);
      const double ranks = static_cast<double>(ev.cluster.servers) * ev.cluster.gpus_per_server;
      if (m != nullptr && m->mean > 0 && bytes > 0 && ranks > 1) {
        models.emplace_back(m, static_cast<double>(bytes) / (m->mean * 1e3) * 2 * (ranks - 1) / ranks /
                                   ev.cluster.gpus_per_server);
      }
      e += ". ";
    }
    if (!models.empty()) {
      const bool same = std::all_of(models.begin(), models.end(), [&](const auto& m) {
        return m.first->mean == models.front().first->mean;
      });
      if (same && models.size() > 1) {
        std::string ids;
        for (const auto& m : models) ids += (ids.empty() ? "" : " ") + m.first->id;
        e += fmt::format("NCCL's cost model takes {} {} [{}] at this size on each, i.e. {} GB/s per NIC. ",
                         report_number(models.front().first->mean), models.front().first->unit, ids,
                         report_number(models.front().second));
      } else {
        for (const auto& [m, per_nic] : models)
          e += fmt::format("NCCL's cost model: {} at this size, i.e. {} GB/s per NIC. ", cite(m),
                           report_number(per_nic));
      }
    }
    if (!any || ev.cluster.nic_rate.gbps() != 400) {
      out.push_back(not_measured(12, claim, "needs an all_reduce collective on 400G NICs.", e));
    } else if (largest < kSaturated && !all) {
      out.push_back(not_measured(
          12, claim,
          fmt::format("needs an all_reduce of 1 GiB or more, where nccl-tests reads the published figures; "
                      "the largest here is {}, where busbw is still climbing. `rdmasim validate --only "
                      "collectives` measures it at 4 GiB on 4 servers x 8 GPUs (case C.10).",
                      format_bytes(Bytes(largest))),
          e));
    } else {
      out.push_back(
          ClaimAnswer{12, claim, all ? "supported" : "contradicted", e,
                      all ? "Every IB and RoCEv2 fabric's busbw per NIC is within 40-55 GB/s."
                          : "Not every IB and RoCEv2 fabric's busbw per NIC is within 40-55 GB/s."});
    }
  }

  out.push_back(ClaimAnswer{13,
                            "Guidance: synchronized training on IB, Ethernet shops on RoCEv2, WAN on iWARP, "
                            "cost-sensitive teams on RoCEv2 or iWARP.",
                            "see the decision",
                            {},
                            "With this file's weights the decision is " + ev.fabrics[s.best].name +
                                " [total." + ev.fabrics[s.best].name +
                                "]; weights encode the priorities this guidance assumes."});
  return out;
}

}  // namespace rdmasim
