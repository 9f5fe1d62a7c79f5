// Summary statistics of a sample: the percentiles operators quote (nearest
// rank), mean, standard deviation, and jitter as the mean absolute difference
// of consecutive samples (the RFC 3550 §6.4.1 notion, without smoothing).
#pragma once

#include <cstddef>
#include <vector>

namespace rdmasim {

struct Distribution {
  size_t count = 0;
  double min = 0, mean = 0, stdev = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0, jitter = 0;
};

// `samples` in the order they were taken (jitter depends on it).
[[nodiscard]] Distribution summarize(const std::vector<double>& samples);
// Nearest-rank percentile of sorted data, q in [0, 1].
[[nodiscard]] double percentile_sorted(const std::vector<double>& sorted, double q);

}  // namespace rdmasim
