// InfiniBand linear forwarding table: one egress per destination LID, as the
// subnet manager programmed it (the first port of the route entry).
#pragma once

#include "net/packet.h"

namespace rdmasim {

class LftForwarding {
 public:
  template <class S>
  [[nodiscard]] int select(const S& sw, const Packet& p) const noexcept {
    return sw.routes().first(p.dst);
  }
};

}  // namespace rdmasim
