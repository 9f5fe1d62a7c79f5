// InfiniBand experiments shared by `rdmasim validate` and the tests: a
// fat-tree permutation under static (LFT) versus adaptive routing, and a
// link failure healed by the subnet manager.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/units.h"
#include "route/subnet_manager.h"

namespace rdmasim {

struct IbPermutationRun {
  std::vector<double> gbps;  // per flow: bytes / (completion - post)
  double mean_gbps = 0;
  double min_gbps = 0;
  size_t completed = 0;
  uint64_t dropped = 0;
  uint64_t out_of_order_placed = 0;
  std::string invariants;
};

// Every host of a k-ary fat-tree of ib-ndr links WRITEs `bytes` to a distinct
// host (a random derangement drawn from `seed`).
[[nodiscard]] IbPermutationRun run_ib_permutation(int k, RoutingEngine engine, bool adaptive, int64_t bytes,
                                                  uint64_t seed);

}  // namespace rdmasim
