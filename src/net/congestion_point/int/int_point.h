// In-band network telemetry at egress, as HPCC uses it (Li et al., SIGCOMM
// 2019, §3.2): a data packet that carries a telemetry stack gets one record
// of the port it leaves (its tx counter including this packet, the queue it
// leaves behind over all classes, its rate). ACKs carry their stack back
// untouched. Stacks live in the network's IntTable (net/int_telemetry.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/congestion_point/overflow.h"
#include "net/int_telemetry.h"
#include "net/packet.h"
#include "net/tc_scheduler.h"

namespace rdmasim {

class IntPoint {
 public:
  IntPoint() = default;
  // Per class (fabric.hpcc.int: class): each record reports the packet's
  // traffic class's queue and the bytes that class has sent from the port,
  // counted here since the port keeps one total.
  explicit IntPoint(size_t ports) : class_tx_(ports) {}

  template <class S, class O>
  void on_enqueue(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {}
  template <class S, class O>
  void on_dequeue(S& sw, Packet& p, O& out, bool departs) {
    if (class_tx_.empty()) {
      if (p.int_slot == 0 || p.type != PktType::kData) return;
      sw.telemetry().push(p.int_slot, IntHop{sw.now(), out.counters().tx_bytes + p.wire,
                                             out.queues().total_bytes(), out.rate(), port_id(sw, out)});
      return;
    }
    uint64_t& sent = class_tx_[out.index()][p.tc];
    if (departs) sent += p.wire;
    if (p.int_slot == 0 || p.type != PktType::kData) return;
    sw.telemetry().push(p.int_slot, IntHop{sw.now(), departs ? sent : sent + p.wire, out.queues().bytes(p.tc),
                                           out.rate(), port_id(sw, out)});
  }
  template <class S, class O>
  OverflowAction on_overflow(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {
    return OverflowAction::kDrop;
  }

 private:
  template <class S, class O>
  static uint32_t port_id(const S& sw, const O& out) {
    return static_cast<uint32_t>(sw.id()) << 16 | out.index();
  }
  std::vector<std::array<uint64_t, kNumTcs>> class_tx_;  // empty: per port
};

}  // namespace rdmasim
