// Adaptive routing: per packet, the least-loaded port of the destination's
// group. On InfiniBand the group is the LFT port first, then the subnet
// manager's alternatives; on Ethernet (fabric.adaptive_routing) the ECMP
// next hops. Load is the bytes waiting to leave a port (queued, and the
// rest of the packet on the wire) less the room its downstream buffer still
// offers on the packet's class. Ties keep the earlier port, so an idle fabric
// routes exactly as the static LFT does; ports that are down are skipped.
#pragma once

#include <cstdint>

#include "net/packet.h"

namespace rdmasim {

class AdaptiveForwarding {
 public:
  template <class S>
  [[nodiscard]] int select(const S& sw, const Packet& p) const {
    const auto group = sw.routes().ports(p.dst);
    if (group.empty()) return -1;
    const auto now = sw.now();
    int best = group[0];
    int64_t best_score = INT64_MAX;
    for (const uint16_t i : group) {
      const auto& o = sw.port(i);
      if (!o.up()) continue;
      int64_t score = static_cast<int64_t>(o.queues().total_bytes());
      if (o.busy_until() > now) score += o.rate().bytes_in(o.busy_until() - now).count();
      score -= static_cast<int64_t>(o.flow_control().credit_bytes(p.tc, now));
      if (score < best_score) {
        best_score = score;
        best = i;
      }
    }
    return best;
  }
};

}  // namespace rdmasim
