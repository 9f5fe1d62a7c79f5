#include "workload/poisson_flows.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

namespace rdmasim {
namespace {

// Rounds an exponential draw to whole picoseconds; a huge draw only needs to
// land past the end of the window, so saturate rather than overflow.
int64_t draw_gap_ps(Rng& rng, double mean_ps) {
  const double g = std::round(rng.exponential(mean_ps));
  // NOLINTNEXTLINE(bugprone-integer-division): a bound, exactness irrelevant
  constexpr double kMax = static_cast<double>(std::numeric_limits<int64_t>::max() / 4);
  return g >= kMax ? static_cast<int64_t>(kMax) : static_cast<int64_t>(g);
}

}  // namespace

PoissonArrivals::PoissonArrivals(FlowSizeCdf sizes, std::vector<int> hosts, Rate host_rate, double load,
                                 Time start, Time duration, Rng& rng)
    : sizes_(std::move(sizes)), hosts_(std::move(hosts)), rng_(rng) {
  if (!(load > 0.0 && load <= 1.0)) {
    throw std::invalid_argument("generate_poisson_flows: load must be in (0, 1], got " +
                                std::to_string(load));
  }
  if (host_rate.bps() <= 0) throw std::invalid_argument("generate_poisson_flows: host_rate must be positive");
  if (duration < Time::zero()) throw std::invalid_argument("generate_poisson_flows: duration must be >= 0");
  if (start.ps() > std::numeric_limits<int64_t>::max() / 2 - duration.ps()) {
    throw std::invalid_argument("generate_poisson_flows: start + duration overflows");
  }
  if (hosts_.size() < 2) throw std::invalid_argument("generate_poisson_flows: need at least 2 hosts");
  std::unordered_set<int> seen;
  for (int h : hosts_) {
    if (h < 0) throw std::invalid_argument("generate_poisson_flows: negative host id " + std::to_string(h));
    // A repeated id could be picked as its own destination.
    if (!seen.insert(h).second) {
      throw std::invalid_argument("generate_poisson_flows: duplicate host id " + std::to_string(h));
    }
  }
  const double mean_bytes = sizes_.mean_bytes();
  if (!(mean_bytes > 0.0))
    throw std::invalid_argument("generate_poisson_flows: mean flow size must be positive");
  mean_gap_ps_ = mean_bytes * 8.0 / (static_cast<double>(host_rate.bps()) * load) * 1e12;
  end_ps_ = start.ps() + duration.ps();
  for (size_t i = 0; i < hosts_.size(); ++i) due_.emplace(start.ps() + draw_gap_ps(rng_, mean_gap_ps_), i);
  skip_ended();
}

void PoissonArrivals::skip_ended() {
  while (!due_.empty() && due_.top().first >= end_ps_) due_.pop();  // that host is done; the rest still run
}

Time PoissonArrivals::next_start() const {
  return due_.empty() ? Time::never() : Time::from_ps(due_.top().first);
}

FlowSpec PoissonArrivals::next() {
  const auto [t, i] = due_.top();
  due_.pop();
  // One draw over the other hosts, skipping over the source's own slot.
  size_t j = static_cast<size_t>(rng_.below(hosts_.size() - 1));
  if (j >= i) ++j;
  FlowSpec f;
  f.id = made_++;
  f.src = hosts_[i];
  f.dst = hosts_[j];
  f.priority = kPoissonFlowPriority;
  f.dport = kPoissonFlowDport;
  f.size_bytes = sizes_.sample(rng_);
  f.start = Time::from_ps(t);
  due_.emplace(t + draw_gap_ps(rng_, mean_gap_ps_), i);
  skip_ended();
  return f;
}

std::vector<FlowSpec> generate_poisson_flows(const FlowSizeCdf& sizes, const std::vector<int>& hosts,
                                             Rate host_rate, double load, Time start, Time duration,
                                             Rng& rng) {
  PoissonArrivals arrivals(sizes, hosts, host_rate, load, start, duration, rng);
  std::vector<FlowSpec> flows;
  while (arrivals.next_start() != Time::never()) flows.push_back(arrivals.next());
  return flows;
}

}  // namespace rdmasim
