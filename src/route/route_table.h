// A node's forwarding table: for each destination endpoint, the group of
// equal-cost egress ports. Groups are stored once per distinct port set, so a
// 1,024-host fat-tree needs a few MiB in all.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "engine/rng.h"

namespace rdmasim {

class RouteTable {
 public:
  void reset(int num_destinations) {
    group_of_.assign(static_cast<size_t>(num_destinations), kNoRoute);
    storage_.clear();
    index_.clear();
  }
  // Returns the group's handle, which `assign` gives other destinations.
  uint32_t set(int dst, const std::vector<uint16_t>& ports) {
    if (ports.empty()) {
      group_of_[dst] = kNoRoute;
      return kNoRoute;
    }
    auto [it, inserted] = index_.try_emplace(ports, static_cast<uint32_t>(storage_.size()));
    if (inserted) {
      storage_.push_back(static_cast<uint16_t>(ports.size()));
      storage_.insert(storage_.end(), ports.begin(), ports.end());
    }
    group_of_[dst] = it->second;
    return it->second;
  }
  // The group `set` returned for another destination (no lookup).
  void assign(int dst, uint32_t group) { group_of_[dst] = group; }
  [[nodiscard]] std::span<const uint16_t> ports(int dst) const {
    const uint32_t g = group_of_[dst];
    if (g == kNoRoute) return {};
    return {&storage_[g + 1], storage_[g]};
  }
  // The first port of the destination's group (the LFT port), -1 when there is no route.
  [[nodiscard]] int first(int dst) const {
    const uint32_t g = group_of_[dst];
    return g == kNoRoute ? -1 : storage_[g + 1];
  }
  // ECMP: a port from the group chosen by the flow hash mixed with this
  // node's seed (equal seeds everywhere reproduce hash polarization).
  // Returns -1 when there is no route.
  [[nodiscard]] int select(int dst, uint64_t flow_hash, uint64_t seed) const {
    const uint32_t g = group_of_[dst];
    if (g == kNoRoute) return -1;
    const uint16_t n = storage_[g];
    if (n == 1) return storage_[g + 1];
    const uint64_t h = mix64(flow_hash ^ seed);
    // Fat-tree groups are powers of two: a mask, not a division, same result.
    return storage_[g + 1 + ((n & (n - 1)) == 0 ? h & (n - 1) : h % n)];
  }
  // Starts loading dst's entry: the port at the wire's end calls it as a
  // frame arrives, so the (usually cold) entry is in cache when the switch
  // routes the frame.
  void prefetch(int dst) const { __builtin_prefetch(group_of_.data() + dst); }
  [[nodiscard]] size_t destinations() const { return group_of_.size(); }
  [[nodiscard]] size_t memory_bytes() const {
    return group_of_.size() * sizeof(uint32_t) + storage_.size() * sizeof(uint16_t);
  }
  // Drops the dedup index once the table is built.
  void freeze() { index_.clear(); }

 private:
  static constexpr uint32_t kNoRoute = 0xffffffffu;
  std::vector<uint32_t> group_of_;
  std::vector<uint16_t> storage_;
  std::map<std::vector<uint16_t>, uint32_t> index_;
};

}  // namespace rdmasim
