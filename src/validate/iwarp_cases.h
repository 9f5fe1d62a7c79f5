// rdmasim validate §E: TCP and iWARP (iwarp_cases.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/units.h"
#include "validate/validate.h"

namespace rdmasim {

// Vasudevan et al. (SIGCOMM 2009) incast: 256 KiB per server per block, a
// shallow shared buffer (assumption: 128 KiB, of which one congested port
// may take 8/9 under the dynamic threshold: a ToR of the paper's era).
inline constexpr int64_t kIncastBlock = 256 << 10;
inline constexpr uint64_t kIncastBuffer = 128 << 10;

struct IncastPoint {
  int n = 0;
  double goodput_gbps = 0;  // payload read / time for all rounds
  uint64_t timeouts = 0;    // RTOs of the servers' response streams
  bool completed = false;
  bool invariants_ok = false;
};

// `rounds` synchronized block reads by host 0 from n servers on iwarp-cubic
// at 10 Gb/s with the given minimum RTO.
[[nodiscard]] IncastPoint tcp_incast(int n, Time min_rto, int rounds);

void iwarp_cases(std::vector<ValidationResult>& out, bool full);

}  // namespace rdmasim
