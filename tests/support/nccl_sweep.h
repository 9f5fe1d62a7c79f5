// Test helper: an nccl-tests sweep as `nccl-tests ... -b min -e max -f
// factor --nodes servers --fabric ib-ndr` sets it up, every other option at
// its default.
#pragma once

#include <cstdint>

#include "collective/nccl_tests.h"
#include "fabric/profiles.h"

namespace rdmasim::testing {

inline NcclTestsOptions ib_ndr_sweep(int64_t min_bytes, int64_t max_bytes, int64_t factor = 2,
                                     int servers = 2) {
  NcclTestsOptions o;
  o.min_bytes = min_bytes;
  o.max_bytes = max_bytes;
  o.step_factor = factor;
  o.cluster.servers = servers;
  o.fabric = find_profile("ib-ndr").config;
  return o;
}

}  // namespace rdmasim::testing
