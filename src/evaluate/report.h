// What `rdmasim evaluate` writes: evaluation.json (everything, machine
// readable), report.md and report.html (the same findings for a person).
// Nothing here depends on wall time or on which cells were reused, so a
// resumed evaluation writes the same bytes as one run from scratch.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "evaluate/summary.h"

namespace rdmasim {

struct EvalReportInput {
  const Evaluation& ev;
  const std::vector<EvalCell>& cells;
  const std::vector<CellOutcome>& outcomes;
  const EvalSummary& summary;
};

[[nodiscard]] nlohmann::ordered_json evaluation_json(const EvalReportInput& in);
[[nodiscard]] std::string report_markdown(const EvalReportInput& in);
[[nodiscard]] std::string report_html(const EvalReportInput& in);
// The few lines `evaluate` and `make demo` print: the headline table.
[[nodiscard]] std::string headline_text(const EvalReportInput& in);

// Numbers as the report prints them (4 significant digits), so a test can
// find each cited figure again.
[[nodiscard]] std::string report_number(double v);

}  // namespace rdmasim
