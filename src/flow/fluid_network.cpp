#include "flow/fluid_network.h"

#include <stdexcept>

#include "engine/rng.h"

namespace rdmasim {

namespace {
constexpr uint8_t kFar = 0xff;
}

FluidNetwork::FluidNetwork(const Topology& t, uint64_t seed, bool same_ecmp_seed) : topo_(t) {
  // Ports in link order, as port_adjacency() numbers them.
  std::vector<uint32_t> degree(t.nodes.size(), 0);
  for (const TopoLink& l : t.links) {
    ++degree[l.a];
    ++degree[l.b];
  }
  first_.assign(t.nodes.size() + 1, 0);
  for (size_t n = 0; n < t.nodes.size(); ++n) first_[n + 1] = first_[n] + degree[n];
  to_.assign(first_.back(), -1);
  rate_.assign(first_.back(), Rate{});
  delay_.assign(first_.back(), Time::zero());
  std::vector<uint32_t> next(first_.begin(), first_.end() - 1);
  for (const TopoLink& l : t.links) {
    for (const auto& [from, peer] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      const uint32_t id = next[from]++;
      to_[id] = peer;
      rate_[id] = l.rate;
      delay_[id] = l.delay;
    }
  }
  seed_.assign(t.nodes.size(), 0);
  for (size_t n = 0; n < t.nodes.size(); ++n)
    seed_[n] = same_ecmp_seed ? mix64(seed) : mix64(seed ^ (n * 0x9e3779b97f4a7c15ull));
  attach_.assign(t.hosts.size(), -1);
  for (size_t i = 0; i < t.hosts.size(); ++i) {
    const int h = t.hosts[i];
    if (degree[h] != 1)
      throw std::invalid_argument("host '" + t.nodes[h].name + "' has " + std::to_string(degree[h]) +
                                  " links; the flow-level model needs one link per host (a NIC's choice "
                                  "among several ports is not modelled)");
    const int peer = to_[first_[h]];
    if (t.nodes[peer].kind == TopoNodeKind::kSwitch) attach_[i] = peer;
  }
}

const std::vector<uint8_t>& FluidNetwork::distances_to(int w) {
  auto [it, fresh] = dist_.try_emplace(w);
  std::vector<uint8_t>& d = it->second;
  if (!fresh) return d;
  d.assign(topo_.nodes.size(), kFar);
  queue_.clear();
  d[w] = 0;
  queue_.push_back(w);
  for (size_t head = 0; head < queue_.size(); ++head) {
    const int n = queue_[head];
    for (uint32_t l = first_[n]; l < first_[n + 1]; ++l) {
      const int m = to_[l];
      if (d[m] != kFar || topo_.nodes[m].kind != TopoNodeKind::kSwitch) continue;
      if (d[n] + 1 >= kFar) throw std::invalid_argument("a path longer than 254 switches");
      d[m] = static_cast<uint8_t>(d[n] + 1);
      queue_.push_back(m);
    }
  }
  return d;
}

bool FluidNetwork::path(int src, int dst, uint32_t flow_hash, std::vector<uint32_t>& out) {
  out.clear();
  const int src_node = topo_.hosts[src];
  const int dst_node = topo_.hosts[dst];
  uint32_t l = first_[src_node];
  out.push_back(l);
  if (to_[l] == dst_node) return true;  // back to back
  int n = to_[l];
  if (!lfts_.empty()) {
    // The subnet manager's choice: the LFT port, whatever the flow.
    for (size_t hops = 0; n != dst_node; ++hops) {
      const auto ports = lfts_[n].ports(dst);
      if (ports.empty() || hops > topo_.nodes.size()) return false;
      l = first_[n] + ports.front();
      out.push_back(l);
      n = to_[l];
    }
    return true;
  }
  const int w = attach_[dst];
  if (w < 0) return false;
  const std::vector<uint8_t>& d = distances_to(w);
  while (n != dst_node) {
    if (d[n] == kFar) return false;
    // The equal-cost group, in port order: at the destination's switch the
    // port to the host, elsewhere every switch one hop nearer to it.
    group_.clear();
    for (uint32_t p = first_[n]; p < first_[n + 1]; ++p) {
      const int m = to_[p];
      const bool next =
          d[n] == 0 ? m == dst_node : topo_.nodes[m].kind == TopoNodeKind::kSwitch && d[m] + 1 == d[n];
      if (next) group_.push_back(static_cast<uint16_t>(p - first_[n]));
    }
    if (group_.empty()) return false;
    const uint16_t port =
        group_.size() == 1 ? group_[0] : group_[mix64(flow_hash ^ seed_[n]) % group_.size()];
    l = first_[n] + port;
    out.push_back(l);
    n = to_[l];
  }
  return true;
}

size_t FluidNetwork::memory_bytes() const {
  size_t b = to_.size() * (sizeof(int) + sizeof(Rate) + sizeof(Time)) + first_.size() * sizeof(uint32_t) +
             seed_.size() * sizeof(uint64_t) + attach_.size() * sizeof(int);
  for (const auto& [w, d] : dist_) b += d.capacity() + 32;
  for (const RouteTable& t : lfts_) b += t.memory_bytes();
  return b;
}

}  // namespace rdmasim
