// The --background-* flags nccl-tests and train share: storage traffic from a
// flow-size CDF at a load per NIC, sharing the fabric with the job.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "collective/background.h"
#include "config/shipped_path.h"
#include "config/units_parse.h"
#include "workload/flow_size_cdf.h"

namespace rdmasim::cli {

// Throws std::invalid_argument naming the flag that is wrong.
inline void apply_background_flags(double load, const std::string& horizon, const std::string& cdf,
                                   BackgroundConfig& out, std::optional<FlowSizeCdf>& out_cdf) {
  if (load < 0 || load > 1) throw std::invalid_argument("--background-load must be between 0 and 1");
  if (load == 0) return;
  out.load = load;
  out.horizon = parse_time(horizon);
  try {
    out_cdf = FlowSizeCdf::load(find_shipped(cdf));
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("--background-cdf: ") + e.what());
  }
}

}  // namespace rdmasim::cli
