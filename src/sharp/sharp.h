// SHARP-style in-network aggregation as a switch capability (Graham et al.,
// "Scalable Hierarchical Aggregation Protocol (SHArP)", COMHPC 2016; SHARPv2
// streaming aggregation on Switch-IB 2 / Quantum). A communicator asks for an
// aggregation group over the switches its NICs hang off: the leaf switch of
// every NIC, and one switch adjacent to all those leaves as the root when
// there is more than one leaf. Each switch holds a limited number of groups;
// when any switch of the tree is full, the request fails and the caller falls
// back to a host algorithm (as NCCL's CollNet does).
//
// The data path is packet-level (sharp/sharp_data_path.h): this file holds
// the groups and their trees.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/units.h"
#include "topo/topology.h"

namespace rdmasim {

// fabric.sharp: part of the fabric (FabricConfig::sharp), on for the
// InfiniBand profiles, whose switches offer it; off elsewhere.
struct SharpConfig {
  bool enabled = false;  // the fabric's switches offer SHARP
  // A switch's aggregation unit reduces at this share of its port rate:
  // streaming aggregation reaches ~95% of network bandwidth for large
  // messages (Graham et al.; VALIDATION.md §C.11).
  double aggregation_efficiency = 0.95;
  // Per-switch reduction latency: assumption (no primary figure found),
  // configurable.
  Time switch_latency = Time::from_ns(500);
  // Bytes a host may have outstanding in one operation (sent, result not yet
  // back): SHARP's outstanding transactions, and so what each switch of the
  // tree buffers per operation. Assumption: NVIDIA publishes the OST payload
  // for low-latency operations (2 KiB on Quantum) but not the streaming
  // aggregation buffer; 256 KiB covers a 400G tree's round trip (~5 us).
  int64_t window_bytes = 256 * 1024;
  // Concurrent aggregation groups a switch can hold: assumption (SHARP
  // switches hold a small number of streaming-aggregation trees),
  // configurable; exceeding it makes the request fall back to a host algorithm.
  int max_groups_per_switch = 2;
  // The class (IB SL, RoCE priority) SHARP's packets travel in; -1: the
  // fabric's data class. NVIDIA's SHARP deployment guidance puts streaming
  // aggregation on an SL of its own (an SL2VL / VLArb question for the SM).
  int traffic_class = -1;
};

struct SharpGroup {
  int id = -1;
  std::vector<int> switches;  // topology node ids holding this group: the leaves first
  std::vector<int> parent;    // per entry of `switches`: its parent's node id; -1 at the root
  std::vector<int> leaf_of;   // per endpoint in `hosts`: its leaf switch node id
  std::vector<int> hosts;     // endpoint indices
  int root = -1;              // topology node id
};

class SharpManager {
 public:
  SharpManager(const Topology& topo, SharpConfig cfg);
  // Allocates a group over the leaves of `hosts` (endpoint indices): a
  // switch above every leaf as root (two levels), or else, as on a fabric
  // with a core tier, a switch above each leaf and a root above all of those
  // (three levels); the lowest-numbered switches with room. nullopt when
  // SHARP is disabled, no such tree exists, or a switch of it already holds
  // max_groups_per_switch groups.
  [[nodiscard]] std::optional<SharpGroup> allocate(const std::vector<int>& hosts);
  void release(const SharpGroup& g);
  [[nodiscard]] const SharpConfig& config() const { return cfg_; }
  [[nodiscard]] int groups_on(int switch_node) const { return used_[switch_node]; }

 private:
  SharpConfig cfg_;
  std::vector<int> used_;  // groups per topology node
  // Whether a tree leaves -> one switch above each -> `root` has room; fills
  // the middle switch per leaf.
  bool three_levels(const std::vector<int>& leaves, int root, std::vector<int>& mid) const;

  std::vector<std::vector<int>> adj_;  // switch neighbours per node, sorted, once each
  std::vector<int> tier_;              // per node: 1 leaf, 2 spine, 3 core
  std::vector<int> host_leaf_;         // per endpoint: attached switch node
  int next_id_ = 0;
};

}  // namespace rdmasim
