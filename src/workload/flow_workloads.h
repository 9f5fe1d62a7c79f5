// The flow-style workload types: each generates a list of flows (one message
// per flow) that the runner starts, tracks and reports in flows.csv:
//   incast       `senders` hosts each send `size` to `receiver`
//   permutation  every host sends `size` to a distinct other host
//   all-to-all   every host sends `size` to every other host
//   flow         one flow, `src` to `dst`
//   cdf          Poisson arrivals of flow sizes drawn from a CDF at `load`
//   flows-file   a flow list in the HPCC simulator's format
#pragma once

#include "workload/workload.h"

namespace rdmasim {

// The WorkloadType entries of the six types, for the registry.
[[nodiscard]] const WorkloadType& incast_workload_type();
[[nodiscard]] const WorkloadType& permutation_workload_type();
[[nodiscard]] const WorkloadType& all_to_all_workload_type();
[[nodiscard]] const WorkloadType& cdf_workload_type();
[[nodiscard]] const WorkloadType& flows_file_workload_type();
[[nodiscard]] const WorkloadType& flow_workload_type();

}  // namespace rdmasim
