// The flow-level model's view of a topology (fabric.model: flow): directed
// links with a capacity, and the links a connection's packets would cross.
//
// Paths are found the way the packet-level switches find them (route/
// shortest_path.cpp, route/forwarding/ecmp): shortest paths that never pass
// through another host, equal-cost ports in port order, and the port picked
// by the flow hash mixed with the switch's own seed. A flow therefore takes
// the same links in both models, which is what makes the two comparable.
// On InfiniBand (follow_lfts) a switch forwards by its LFT instead, one port
// per destination as the subnet manager computed it for the packet level.
//
// Memory grows with switches x the switches hosts attach to, never hosts^2:
// distances are kept per attachment switch, computed when a flow first needs
// them, so a 100,000-host fat-tree holds a few tens of MiB of them.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/units.h"
#include "route/route_table.h"
#include "topo/topology.h"

namespace rdmasim {

class FluidNetwork {
 public:
  // `seed`: the run's seed, from which each switch's ECMP seed follows as in
  // Fabric::build; `same_ecmp_seed`: fabric.ecmp_seed: same. Throws
  // std::invalid_argument for a host with more than one link (multi-port NICs
  // choose a port the flow-level model does not follow).
  FluidNetwork(const Topology& t, uint64_t seed, bool same_ecmp_seed);

  [[nodiscard]] uint32_t num_links() const { return static_cast<uint32_t>(to_.size()); }
  // Directed link l leaves node from(l) on its port and reaches to(l).
  [[nodiscard]] int to(uint32_t l) const { return to_[l]; }
  [[nodiscard]] Rate rate(uint32_t l) const { return rate_[l]; }
  [[nodiscard]] Time delay(uint32_t l) const { return delay_[l]; }
  // Capacity in bytes per picosecond, the unit the fluid model computes in.
  [[nodiscard]] double capacity(uint32_t l) const { return rate_[l].bps() / 8e12; }

  // The directed links from endpoint `src` to endpoint `dst` for a packet
  // carrying `flow_hash`, written over `out`. False when there is no route.
  bool path(int src, int dst, uint32_t flow_hash, std::vector<uint32_t>& out);

  // From now on switches forward by these tables (compute_lfts: the LFT port
  // first) instead of by ECMP; the flow hash is then unused.
  void follow_lfts(std::vector<RouteTable> lfts) { lfts_ = std::move(lfts); }

  [[nodiscard]] size_t memory_bytes() const;

 private:
  // Hop distances of every node to switch `w` over switches only (0xff: none).
  const std::vector<uint8_t>& distances_to(int w);

  const Topology& topo_;
  std::vector<uint32_t> first_;  // node n's ports are links first_[n] .. first_[n+1]-1
  std::vector<int> to_;
  std::vector<Rate> rate_;
  std::vector<Time> delay_;
  std::vector<uint64_t> seed_;  // per node (switches)
  std::vector<int> attach_;     // per endpoint: the switch its one link reaches (-1: back to back)
  std::unordered_map<int, std::vector<uint8_t>> dist_;
  std::vector<int> queue_;
  std::vector<uint16_t> group_;
  std::vector<RouteTable> lfts_;  // per node; empty: ECMP
};

}  // namespace rdmasim
