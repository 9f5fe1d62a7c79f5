// `rdmasim sweep eval.yaml --grid ...`: a whole evaluation at each point of
// the grid (cluster size, a fabric's setting, a condition's load, the
// decision's weights...). Each point writes its evaluation into its own
// folder (<out>/point-<i>: cells/, evaluation.json, report.md, report.html),
// so a point can be read as any evaluation, and a sweep run again reuses the
// finished cells it finds there. The sweep's row per point and fabric holds
// the weighted total and each criterion's score; sweep.json also holds each
// criterion's value with its unit.
#pragma once

#include <memory>
#include <string>

#include "run/sweep.h"

namespace rdmasim {

// The evaluation at `path`, its points written under `out_dir`.
[[nodiscard]] std::shared_ptr<const SweepTarget> evaluation_sweep_target(const std::string& path,
                                                                         const std::string& out_dir);

}  // namespace rdmasim
