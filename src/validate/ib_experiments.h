// InfiniBand experiments shared by `rdmasim validate` and the tests: a
// fat-tree permutation under static (LFT) versus adaptive routing, and a
// link failure healed by the subnet manager.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/units.h"
#include "fabric/fabric.h"
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

struct LinkFailureRun {
  std::string profile;
  std::string failed_link;  // "agg0_0 -> core0"
  int affected_flows = 0;   // flows whose path crossed it (either way)
  Time failed_at;
  Time detected_at = Time::never();  // the fabric noticed: SM sweep, or port down seen (Ethernet)
  Time repaired_at = Time::never();  // Ethernet: the first switch's ECMP groups skip the port
  Time rerouted_at = Time::never();  // every switch routes around it: LFTs written, BGP converged
  Time recovered_at;                 // the last affected flow moved its in-order point again
  Time recovery;                     // recovered_at - failed_at
  Time longest_stall;                // longest time an affected flow's in-order point stood still
  uint64_t fault_drops = 0;          // packets lost to the failed link
  uint64_t retransmitted_bytes = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t timeouts = 0;
  size_t completed = 0;
  size_t flows = 0;
  std::string invariants;
};
using IbLinkFailureRun = LinkFailureRun;

// A permutation of `bytes` WRITEs on a k-ary fat-tree of `cfg`'s fabric; at
// `fail_at` the first aggregation-to-core link on a flow's path goes down and
// the fabric reroutes as it does (subnet manager, or ECMP repair and BGP).
// Runs until every flow is done or `horizon`.
[[nodiscard]] LinkFailureRun run_link_failure(const FabricConfig& cfg, int k, int64_t bytes, Time fail_at,
                                              uint64_t seed, Time horizon);
// The same on ib-ndr with this subnet-manager timing.
[[nodiscard]] IbLinkFailureRun run_ib_link_failure(int k, bool adaptive, bool shield, int64_t bytes,
                                                   Time fail_at, Time detect, Time compute, uint64_t seed);

// What a go-back-N round after a reroute may wait for on `cfg`'s in-rack
// InfiniBand links beyond their latency: the first packet past the gap, its
// NAK and the resend each queue behind at most one full VL buffer where the
// rerouted flows meet others (`auto`: the 128 KiB a port advertises).
[[nodiscard]] Time vl_buffer_waits(const FabricConfig& cfg, int crossings = 3);

struct IbHotSpotRun {
  double victim_gbps = 0;   // the flow that shares the path, not the destination
  double hotspot_gbps = 0;  // aggregate into the hot spot
  std::string invariants;
};

// Eight hosts on one ib-ndr switch WRITE 8 MiB each to one host on a second
// switch (the hot spot) while a ninth WRITEs 8 MiB to another host there,
// over a 4 Tb/s inter-switch link; the profile's VL buffers (128 KiB, the most
// a port may advertise), IB CC threshold 64 KiB.
[[nodiscard]] IbHotSpotRun run_ib_hot_spot(bool ib_cc);

}  // namespace rdmasim
