// Empirical flow-size distribution given as a piecewise-linear CDF, sampled by
// inverse transform the way the HPCC traffic generator (traffic_gen.py) does,
// so workloads drawn here have the same shape as the published ones.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/rng.h"

namespace rdmasim {

class FlowSizeCdf {
 public:
  // (size in bytes, cumulative fraction in [0, 1]). Sizes and fractions must
  // be non-decreasing, the first fraction 0 and the last exactly 1; a repeated
  // size is a point mass. Throws std::invalid_argument otherwise.
  explicit FlowSizeCdf(std::vector<std::pair<int64_t, double>> points);

  // Two whitespace-separated columns per line: size in bytes and cumulative
  // share, either percent (last value 100) or fraction (last value 1). Blank
  // lines and lines starting with '#' are skipped. Throws InputError naming
  // the file and line of the first problem.
  [[nodiscard]] static FlowSizeCdf load(const std::string& path);

  // Inverse-CDF draw: uniform y in [0, 1), linear interpolation inside the
  // segment containing y, truncated to whole bytes as traffic_gen.py does and
  // raised to at least 1 byte (a zero-byte flow would never complete).
  [[nodiscard]] int64_t sample(Rng& rng) const;

  // Exact mean of the piecewise-linear distribution (before truncation to
  // whole bytes, which lowers the sampled mean by under one byte).
  [[nodiscard]] double mean_bytes() const { return mean_bytes_; }

  // Model CDF at `size`: the interpolated cumulative fraction, so it equals
  // the file's value at every listed size.
  [[nodiscard]] double cdf_at(int64_t size) const;

  // The points with cumulative values as fractions in [0, 1].
  [[nodiscard]] const std::vector<std::pair<int64_t, double>>& points() const { return points_; }

 private:
  std::vector<std::pair<int64_t, double>> points_;
  double mean_bytes_ = 0.0;
};

}  // namespace rdmasim
