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

std::vector<FlowSpec> generate_poisson_flows(const FlowSizeCdf& sizes, const std::vector<int>& hosts,
                                             Rate host_rate, double load, Time start, Time duration,
                                             Rng& rng) {
  if (!(load > 0.0 && load <= 1.0)) {
    throw std::invalid_argument("generate_poisson_flows: load must be in (0, 1], got " +
                                std::to_string(load));
  }
  if (host_rate.bps() <= 0) throw std::invalid_argument("generate_poisson_flows: host_rate must be positive");
  if (duration < Time::zero()) throw std::invalid_argument("generate_poisson_flows: duration must be >= 0");
  if (start.ps() > std::numeric_limits<int64_t>::max() / 2 - duration.ps()) {
    throw std::invalid_argument("generate_poisson_flows: start + duration overflows");
  }
  if (hosts.size() < 2) throw std::invalid_argument("generate_poisson_flows: need at least 2 hosts");
  std::unordered_set<int> seen;
  for (int h : hosts) {
    if (h < 0) throw std::invalid_argument("generate_poisson_flows: negative host id " + std::to_string(h));
    // A repeated id could be picked as its own destination.
    if (!seen.insert(h).second) {
      throw std::invalid_argument("generate_poisson_flows: duplicate host id " + std::to_string(h));
    }
  }
  const double mean_bytes = sizes.mean_bytes();
  if (!(mean_bytes > 0.0))
    throw std::invalid_argument("generate_poisson_flows: mean flow size must be positive");

  const double mean_gap_ps = mean_bytes * 8.0 / (static_cast<double>(host_rate.bps()) * load) * 1e12;
  const int64_t end_ps = start.ps() + duration.ps();

  // (next arrival in ps, position in `hosts`): the min-heap replays all
  // hosts' arrivals in time order, which is what makes longer windows extend
  // shorter ones instead of reshuffling them.
  using Arrival = std::pair<int64_t, size_t>;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> next;
  for (size_t i = 0; i < hosts.size(); ++i) next.emplace(start.ps() + draw_gap_ps(rng, mean_gap_ps), i);

  std::vector<FlowSpec> flows;
  const uint64_t others = hosts.size() - 1;
  while (!next.empty()) {
    const auto [t, i] = next.top();
    next.pop();
    if (t >= end_ps) continue;  // this host is done; the rest still run
    // One draw over the other hosts, skipping over the source's own slot.
    size_t j = static_cast<size_t>(rng.below(others));
    if (j >= i) ++j;
    FlowSpec f;
    f.id = static_cast<int64_t>(flows.size());
    f.src = hosts[i];
    f.dst = hosts[j];
    f.priority = kPoissonFlowPriority;
    f.dport = kPoissonFlowDport;
    f.size_bytes = sizes.sample(rng);
    f.start = Time::from_ps(t);
    flows.push_back(f);
    next.emplace(t + draw_gap_ps(rng, mean_gap_ps), i);
  }
  return flows;
}

}  // namespace rdmasim
