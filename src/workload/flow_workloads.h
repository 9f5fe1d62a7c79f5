// The flow-style workload types: each generates a list of flows (one message
// per flow) that the runner starts, tracks and reports in flows.csv:
//   incast       `senders` hosts each send `size` to `receiver`
//   permutation  every host sends `size` to a distinct other host
//   all-to-all   every host sends `size` to every other host
//   flow         one flow, `src` to `dst`
//   cdf          Poisson arrivals of flow sizes drawn from a CDF at `load`
//   flows-file   a flow list in the HPCC simulator's format
#pragma once

#include "engine/units.h"
#include "workload/workload.h"

namespace rdmasim {

// What generating a flow-style workload's flows needs: no fabric, so the
// flow-level model (flow/) draws the same flows as the packet-level run.
struct FlowGenContext {
  const Scenario& scenario;
  const WorkloadSpec& spec;
  int index;  // position in the workload list (names its random stream)
  const Topology& topology;
  Rate host_rate;  // host 0's link: cdf's load is a share of it
};

// Appends the flows of `ctx.spec` to `out` exactly as the workload's setup()
// would. False, appending nothing, when the type is not flow-style.
bool generate_flows(const FlowGenContext& ctx, std::vector<FlowRecord>& out);

// The WorkloadType entries of the six types, for the registry.
[[nodiscard]] const WorkloadType& incast_workload_type();
[[nodiscard]] const WorkloadType& permutation_workload_type();
[[nodiscard]] const WorkloadType& all_to_all_workload_type();
[[nodiscard]] const WorkloadType& cdf_workload_type();
[[nodiscard]] const WorkloadType& flows_file_workload_type();
[[nodiscard]] const WorkloadType& flow_workload_type();

}  // namespace rdmasim
