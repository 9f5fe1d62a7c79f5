// What building a network will cost in memory, from its sizes alone, so a
// run too large for the machine is refused before it allocates instead of
// ending in std::bad_alloc minutes later.
#pragma once

#include <cstdint>
#include <string>

#include "topo/topology.h"

namespace rdmasim {

struct FabricConfig;

struct MemoryEstimate {
  uint64_t bytes = 0;  // the process after the build: binary, network, routes
  std::string reason;  // the terms, e.g. "1,280 switches x 8,192 hosts routes, 49,152 ports"
};

// Calibrated on fat-trees of k = 8..32 (docs/PERFORMANCE.md): within 10% of
// the measured peak RSS of a build there. Packets queued at run time add 64 B
// each and are not included.
[[nodiscard]] MemoryEstimate estimate_build_memory(const Topology& t, const FabricConfig& cfg);

// What the flows' queue pairs will cost once started: `qps` QPs (both ends'
// transport and NIC state, the flow record, its first packets). Measured on
// all-to-all over fat-trees of k = 8, 12, 16 (16 K to 1 M flows): 2.69 KiB
// per flow of one QP, to 1%.
[[nodiscard]] MemoryEstimate estimate_flow_memory(uint64_t qps);

// The memory this process may use: `limit_bytes` when non-zero, else the
// machine's MemAvailable (/proc/meminfo); 0 when unknown.
[[nodiscard]] uint64_t memory_budget(uint64_t limit_bytes);

}  // namespace rdmasim
