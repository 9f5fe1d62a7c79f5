// From cell results to what a person decides on: one figure per fabric,
// workload point, condition and metric (mean over seeds, with min and max),
// the settings that differ between the compared fabrics, and the weighted
// scores per criterion. Every figure has an id that the report cites, so each
// number in the decision can be found in evaluation.json.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "evaluate/cells.h"
#include "evaluate/matrix.h"

namespace rdmasim {

struct EvalFigure {
  std::string id;  // fabric.workload[-point].condition.metric
  size_t fabric = 0;
  size_t workload = 0;
  size_t point = 0;
  size_t condition = 0;
  std::string metric;  // e.g. p50_us, busbw_GBps
  std::string unit;    // us, GB/s, Gb/s, ms, x
  bool lower_is_better = true;
  double mean = 0;
  double min = 0;
  double max = 0;
  int seeds = 0;  // cells that measured it (failed cells do not)
  // The assumption sweep: the span of the figure (first seed) as each
  // assumption-labelled default moves x0.5 and x2, and the settings that move
  // it by more than 1%. NaN: not swept.
  double assumed_low = std::numeric_limits<double>::quiet_NaN();
  double assumed_high = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> depends_on;
};

// One row of the settings table: a fabric key whose value differs between
// the compared fabrics, each value tagged when its default is an assumption.
struct EvalSettingDiff {
  std::string key;
  std::vector<std::string> values;  // per fabric, in evaluation order
  std::vector<bool> assumption;     // per fabric: the value is an unsourced default
};

struct EvalScore {
  std::string criterion;
  double weight = 0;
  std::vector<double> value;       // per fabric: the criterion's figure (NaN: not measured)
  std::vector<double> score;       // per fabric, 0..100 (best = 100)
  std::vector<std::string> cites;  // per fabric: the figure ids the value comes from
  std::string unit;
  bool lower_is_better = true;
};

// One mis-set value of the tuning sweep on one workload.
struct EvalKnobTrial {
  std::string key;
  std::string change;  // x0.5, x2, flipped
  std::string value;
  std::string workload;
  std::string metric;
  double baseline = 0;
  double mis_set = 0;      // NaN: the workload did not finish
  double degradation = 0;  // how much worse, as a share (0.1 = 10% worse); inf: did not finish
  std::string cell;
};

struct EvalTuningResult {
  size_t settings = 0;  // distinct settings tried
  std::vector<EvalKnobTrial> trials;
  std::vector<std::string> sensitive;  // settings with a trial worse than the threshold, in trial order
};

// A latency distribution as perftest reports it (first seed): the CDF charts.
struct EvalCdf {
  size_t fabric = 0;
  size_t workload = 0;
  size_t point = 0;
  size_t condition = 0;
  std::vector<std::pair<double, double>> points;  // (fraction, latency us)
  size_t samples = 0;                             // round trips measured (0: not reported)
};

// Delivered throughput over time in a cell whose condition has a fault (its
// incident.csv, first seed), at most kMaxPoints points (bins averaged).
struct EvalThroughputSeries {
  static constexpr size_t kMaxPoints = 400;
  static constexpr size_t kRawPoints = 200;  // the first bins, kept unaveraged
  size_t fabric = 0;
  size_t workload = 0;
  size_t point = 0;
  size_t condition = 0;
  std::vector<std::pair<double, double>> points;  // (time us, Gb/s)
};

// One point of the scale sweep: a workload's key metric at a server count
// (NaN: the cell ran but the workload did not finish).
struct EvalScalePoint {
  std::string id;  // scale.<fabric>.<workload>[-point].<N>servers.<metric>
  size_t fabric = 0;
  size_t workload = 0;
  size_t point = 0;
  int servers = 0;
  std::string metric;
  double value = 0;
};

struct EvalSummary {
  std::vector<EvalFigure> figures;
  std::vector<EvalSettingDiff> settings;
  std::vector<EvalScore> scores;         // criteria with weight > 0 that some workload measures
  std::vector<double> total;             // per fabric: weighted mean score
  size_t best = 0;                       // the fabric with the highest total
  BillOfMaterials bom;                   // the cluster's fabric, counted from its topology
  std::vector<CostResult> cost;          // per fabric
  std::vector<EvalTuningResult> tuning;  // per fabric (empty trials without a sweep)
  std::vector<EvalCdf> cdfs;
  std::vector<EvalThroughputSeries> throughput;
  std::vector<EvalScalePoint> scale;  // by fabric, workload, point, servers
  std::vector<std::string> failed_cells;
};

// The series of a cell's incident.csv (its header, then time_us,
// delivered_gbps, ... rows): the first kRawPoints bins as they are, the rest
// averaged down to at most kMaxPoints points in all.
[[nodiscard]] EvalThroughputSeries throughput_series(size_t f, size_t w, size_t p, size_t k,
                                                     const std::string& csv);

[[nodiscard]] EvalSummary summarize(const Evaluation& ev, const std::vector<EvalCell>& cells,
                                    const std::vector<CellOutcome>& outcomes);

// The worst ratio, over fabric f's workloads, of a key metric under the
// conditions `which` accepts to the same workload at baseline (1: none
// affected; infinite: one did not finish), and the figures it is read from.
// Resilience takes every condition; the failover claim only link failures.
struct Slowdown {
  double value = 1.0;
  std::string cite;
  bool measured = false;  // a cell under such a condition exists
};
[[nodiscard]] Slowdown worst_slowdown(const Evaluation& ev, const std::vector<EvalCell>& cells,
                                      const EvalSummary& s, size_t f,
                                      const std::function<bool(const EvalCondition&)>& which);

// The metrics one cell's results.json gives for its workload type, by name.
[[nodiscard]] std::vector<std::pair<std::string, double>> cell_metrics(const std::string& workload_type,
                                                                       const nlohmann::ordered_json& results);

[[nodiscard]] const EvalFigure* find_figure(const EvalSummary& s, const std::string& id);

}  // namespace rdmasim
