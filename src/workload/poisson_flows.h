// Open-loop Poisson flow arrivals, the workload model of the HPCC paper's
// traffic generator: every host starts flows independently of the network's
// state, so the offered load is fixed by the arrival rate and size mix.
#pragma once

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
[[nodiscard]] std::vector<FlowSpec> generate_poisson_flows(const FlowSizeCdf& sizes,
                                                           const std::vector<int>& hosts, Rate host_rate,
                                                           double load, Time start, Time duration, Rng& rng);

}  // namespace rdmasim
