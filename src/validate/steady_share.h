// How N long flows from hosts 1..n share a bottleneck once
// settled. Runs the simulation to `half`, then to 2 x `half`, and measures
// each sender NIC's payload over the second half.
#pragma once

#include <vector>

#include "engine/simulation.h"
#include "fabric/fabric.h"

namespace rdmasim {

struct SteadyShare {
  double total_gbps = 0;
  double jain = 0;  // Jain's fairness index of the per-flow goodputs
};

inline SteadyShare steady_share(Simulation& sim, Fabric& f, int n, Time half) {
  sim.run(half);
  std::vector<uint64_t> at_half;
  for (int s = 1; s <= n; ++s) at_half.push_back(f.nic(s).port(0).counters().tx_data_payload_bytes);
  sim.run(half * 2);
  double sum = 0, sq = 0;
  for (int s = 1; s <= n; ++s) {
    const double g = static_cast<double>(f.nic(s).port(0).counters().tx_data_payload_bytes - at_half[s - 1]) *
                     8.0 / half.sec() / 1e9;
    sum += g;
    sq += g * g;
  }
  return {sum, sq > 0 ? sum * sum / (n * sq) : 0};
}

}  // namespace rdmasim
