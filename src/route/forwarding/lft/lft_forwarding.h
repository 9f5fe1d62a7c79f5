// InfiniBand linear forwarding table: one egress per destination LID, as the
// subnet manager programmed it (the first port of the route entry). When
// that port is down and the entry lists alternatives (SHIELD's Fast Link
// Fault Recovery), the first one that is up; with none, the dead port, where
// the packet is lost until the SM reroutes.
#pragma once

#include "net/packet.h"

namespace rdmasim {

class LftForwarding {
 public:
  template <class S>
  [[nodiscard]] int select(const S& sw, const Packet& p) const noexcept {
    const int lft = sw.routes().first(p.dst);
    if (lft < 0 || sw.port(lft).up()) [[likely]]
      return lft;
    for (const uint16_t i : sw.routes().ports(p.dst))
      if (sw.port(i).up()) return i;
    return lft;
  }
};

}  // namespace rdmasim
