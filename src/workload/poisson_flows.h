// Open-loop Poisson flow arrivals, the workload model of the HPCC paper's
// traffic generator: every host starts flows independently of the network's
// state, so the offered load is fixed by the arrival rate and size mix.
#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "engine/rng.h"
#include "engine/units.h"
#include "workload/flow_size_cdf.h"
#include "workload/flow_spec.h"

namespace rdmasim {

// traffic_gen.py writes these into every flow line; kept so generated
// workloads and the HPCC trace files look the same to the simulator.
inline constexpr int kPoissonFlowPriority = 3;
inline constexpr int kPoissonFlowDport = 100;

// Each host in `hosts` starts flows as a Poisson process with mean
// inter-arrival mean_bytes * 8 / (host_rate * load), so each host offers
// `load` of its link on average. Sizes come from `sizes`; the destination is
// uniform among the other hosts. Arrivals fall in [start, start + duration).
//
// The result is sorted by start time (ties: order of `hosts`), ids 0..n-1 in
// that order. Draws happen in arrival order, so lengthening `duration` only
// appends flows: the earlier ones stay identical for the same Rng state.
//
// Throws std::invalid_argument unless 0 < load <= 1, host_rate > 0,
// duration >= 0, hosts has >= 2 distinct non-negative ids, and the mean flow
// size is positive.
// The same arrivals drawn one at a time, as a run reaches them: a long
// window costs memory and queue space only for the flows it has started.
// next() gives generate_poisson_flows' flows in its order (same Rng draws);
// `rng` must outlive it. Throws as generate_poisson_flows does.
class PoissonArrivals {
 public:
  PoissonArrivals(FlowSizeCdf sizes, std::vector<int> hosts, Rate host_rate, double load, Time start,
                  Time duration, Rng& rng);
  // When the next flow starts; Time::never() once the window is over.
  [[nodiscard]] Time next_start() const;
  // The next flow (ids count from 0); call only while next_start() is not never.
  FlowSpec next();

 private:
  // Drops the hosts whose next arrival is past the window's end.
  void skip_ended();

  FlowSizeCdf sizes_;
  std::vector<int> hosts_;
  double mean_gap_ps_ = 0;
  int64_t end_ps_ = 0;
  Rng& rng_;
  // (next arrival in ps, position in hosts_): replays every host's arrivals
  // in time order, which is what makes longer windows extend shorter ones.
  using Arrival = std::pair<int64_t, size_t>;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> due_;
  int64_t made_ = 0;
};

[[nodiscard]] std::vector<FlowSpec> generate_poisson_flows(const FlowSizeCdf& sizes,
                                                           const std::vector<int>& hosts, Rate host_rate,
                                                           double load, Time start, Time duration, Rng& rng);

}  // namespace rdmasim
