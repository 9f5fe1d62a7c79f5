// rdmasim validate §D: Ultra Ethernet and multipath (uet_cases.cpp).
#pragma once

#include <string>
#include <vector>

#include "validate/validate.h"

namespace rdmasim {

// A permutation of 8 MiB flows (one QP each, `qps` to override) on a k=4
// fat-tree of 100G links (VALIDATION.md D.13): the last flow's completion
// over its ideal serialization time, and what a run is judged by.
struct PermutationSpread {
  double last_over_ideal = 0;
  size_t finished = 0;
  uint64_t retransmitted = 0;
  std::string invariants;
};
[[nodiscard]] PermutationSpread run_permutation_spread(const std::string& profile,
                                                       const std::string& fabric_extra, int qps = 1);

void uet_cases(std::vector<ValidationResult>& out);

}  // namespace rdmasim
