// Congestion spreading (the RoCEv2 issue's victim-flow scenario): a flow that
// shares no bottleneck with an incast is slowed by PFC back-pressure, and
// congestion control at the incast's senders reduces the damage.
//
// Leaf-spine with a non-blocking 1 Tb/s spine link and 4 MiB switch buffers:
// 8 hosts under leaf0 send 4 MiB each to host 9 under leaf1 while host 0
// (also under leaf0) sends 4 MiB to host 10 (leaf1). The only congested link is
// leaf1 -> host 9; the victim's path merely shares leaf0's uplink, which PFC
// pauses when leaf1's ingress fills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rdmasim {

struct VictimRun {
  double victim_gbps = 0;  // the victim's 4 MiB over its completion time
  uint64_t drops = 0;      // every switch, every class
  uint64_t xoff = 0;       // PFC XOFF frames sent by switches
  size_t done = 0;         // flows completed (of 9)
  std::string invariants;  // empty when they held
};

// The shipped scenarios/victim-flow.yaml with `--set` overrides: pfc, the
// RDMA class lossless or not; cc: "none", "dcqcn" or "hpcc", each with its
// RoCEv2 profile's settings ("none" also turns ECN off).
[[nodiscard]] VictimRun run_victim_flow(bool pfc, const std::string& cc);

// What validate reads of a shipped scenario run with overrides.
struct ShippedRun {
  size_t flows = 0;
  size_t done = 0;
  uint64_t drops = 0;  // switch buffer drops, every class
  uint64_t xoff = 0;   // PFC XOFF frames sent by switches
  std::string invariants;
};
[[nodiscard]] ShippedRun run_shipped_scenario(const std::string& file,
                                              const std::vector<std::string>& overrides);

}  // namespace rdmasim
