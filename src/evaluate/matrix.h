// Runs the evaluation matrix: every cell through the one runner
// (Experiment), in parallel, each into its own folder under cells/. A cell
// whose folder already holds the same scenario and a finished marker written
// by the same build of rdmasim is reused, so an interrupted evaluation
// resumes where it stopped and a changed one reruns only what changed; a new
// build reruns everything, since it may model the same scenario differently.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "evaluate/cells.h"

namespace rdmasim {

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json members have no noexcept default constructor
struct CellOutcome {
  bool ran = false;                // simulated now (false: reused from an earlier run)
  bool ok = false;                 // ran to the end with its invariants intact
  std::string error;               // why not
  nlohmann::ordered_json results;  // the cell's results.json
  std::string incident_csv;        // the cell's incident.csv (a condition with a fault), else empty
};

struct MatrixProgress {
  size_t done = 0;
  size_t reused = 0;
  size_t failed = 0;
  size_t total = 0;
};

// `on_cell` is called (under a lock, from any thread) after each cell.
// `interrupt`, when set, stops cells still to start; those come back with
// error "interrupted" and no marker, so a later run does them.
// `reuse_from`: other evaluations' folders (a sweep's other points) whose
// finished cells with the same scenario are copied in rather than run again.
[[nodiscard]] std::vector<CellOutcome> run_matrix(const std::vector<EvalCell>& cells,
                                                  const std::string& out_dir, int jobs,
                                                  const std::function<void(const MatrixProgress&)>& on_cell,
                                                  const std::atomic<bool>* interrupt,
                                                  const std::vector<std::string>& reuse_from = {});

// This executable's identity (a hash of its bytes, 16 hex digits; "unknown"
// where it cannot be read), recorded in each finished cell's marker.
[[nodiscard]] std::string simulator_build();

// The folder of a cell's outputs.
[[nodiscard]] std::string cell_dir(const std::string& out_dir, const EvalCell& c);

}  // namespace rdmasim
