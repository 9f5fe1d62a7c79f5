#include "metrics/distribution.h"

#include <algorithm>
#include <cmath>

namespace rdmasim {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

Distribution summarize(const std::vector<double>& samples) {
  Distribution d;
  d.count = samples.size();
  if (samples.empty()) return d;
  double sum = 0, jit = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    sum += samples[i];
    if (i > 0) jit += std::fabs(samples[i] - samples[i - 1]);
  }
  d.mean = sum / static_cast<double>(samples.size());
  double var = 0;
  for (double x : samples) var += (x - d.mean) * (x - d.mean);
  d.stdev = samples.size() > 1 ? std::sqrt(var / static_cast<double>(samples.size() - 1)) : 0.0;
  d.jitter = samples.size() > 1 ? jit / static_cast<double>(samples.size() - 1) : 0.0;
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  d.min = s.front();
  d.max = s.back();
  d.p50 = percentile_sorted(s, 0.50);
  d.p90 = percentile_sorted(s, 0.90);
  d.p95 = percentile_sorted(s, 0.95);
  d.p99 = percentile_sorted(s, 0.99);
  d.p999 = percentile_sorted(s, 0.999);
  return d;
}

}  // namespace rdmasim
