// The evaluation matrix: one cell per fabric x workload (x sweep point) x
// condition x seed, each a complete scenario file of its own. A cell's
// scenario is written beside its results, so `rdmasim run` on it alone gives
// the same bytes, and a person can see exactly what was simulated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "evaluate/evaluation.h"

namespace rdmasim {

struct EvalCell {
  size_t fabric = 0;
  size_t workload = 0;
  size_t point = 0;  // index into the workload's sweep values (0 without a sweep)
  size_t condition = 0;
  uint64_t seed = 1;
  // A tuning-sweep cell: the fabric setting mis-set, its value and how
  // ("x0.5", "x2", "flipped"); empty for the matrix's own cells.
  std::string knob;
  std::string knob_value;
  std::string knob_change;
  std::string id;        // folder name under cells/: fabric.workload[-point].condition.s<seed>
  std::string scenario;  // the scenario file's text
  // The knob is an assumption-labelled default moved to the edge of its
  // range (the assumption sweep), not a setting mis-set (the tuning sweep).
  bool assumption = false;
  // The scale sweep: this many servers instead of the cluster's (0: the cluster's).
  int servers = 0;
};

// Every cell, in a fixed order (fabric, workload, point, condition, seed);
// conditions limited to some fabrics or workloads skip the others.
[[nodiscard]] std::vector<EvalCell> eval_cells(const Evaluation& ev);

// Loads every cell's scenario without running it. A problem is reported as
// an InputError located at the item of the evaluation file it comes from
// (the fabric, workload or condition entry), with the scenario loader's reason.
void check_cells(const Evaluation& ev, const std::vector<EvalCell>& cells);

// The name of the evaluation a cell's scenario text belongs to, from its
// first line; "" when it is not a cell's scenario.
[[nodiscard]] std::string cell_scenario_evaluation(const std::string& scenario);

// The sweep point's label ("" without a sweep), e.g. "1MiB".
[[nodiscard]] std::string eval_point_label(const EvalWorkload& w, size_t point);

}  // namespace rdmasim
