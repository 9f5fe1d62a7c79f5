// In-band network telemetry at egress, as HPCC uses it (Li et al., SIGCOMM
// 2019, §3.2): a data packet that carries a telemetry stack gets one record
// of the port it leaves (its tx counter including this packet, the queue it
// leaves behind over all classes, its rate). ACKs carry their stack back
// untouched. Stacks live in the network's IntTable (net/int_telemetry.h).
#pragma once

#include <cstdint>

#include "net/congestion_point/overflow.h"
#include "net/int_telemetry.h"
#include "net/packet.h"

namespace rdmasim {

class IntPoint {
 public:
  template <class S, class O>
  void on_enqueue(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {}
  template <class S, class O>
  void on_dequeue(S& sw, Packet& p, O& out, bool /*departs*/) {
    if (p.int_slot == 0 || p.type != PktType::kData) return;
    sw.telemetry().push(
        p.int_slot, IntHop{sw.now(), out.counters().tx_bytes + p.wire, out.queues().total_bytes(), out.rate(),
                           static_cast<uint64_t>(sw.id()) << 16 | out.index()});
  }
  template <class S, class O>
  OverflowAction on_overflow(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {
    return OverflowAction::kDrop;
  }
};

}  // namespace rdmasim
