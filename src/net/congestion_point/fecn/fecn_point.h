// InfiniBand congestion control's switch side (IBTA Vol.1 Annex A10): a
// packet that joins an egress VL queue above the threshold gets FECN (the CE
// bit here), deterministically, but only where the port is a root of
// congestion: a port merely starved of credit by congestion further on (the
// victim mask) does not mark.
#pragma once

#include <cstdint>

#include "net/congestion_point/overflow.h"
#include "net/packet.h"

namespace rdmasim {

class FecnPoint {
 public:
  explicit FecnPoint(uint64_t threshold_bytes) noexcept : threshold_(threshold_bytes) {}

  template <class S, class O>
  void on_enqueue(S& sw, Packet& p, O& out) {
    if (!(p.flags & kEct)) return;
    if (const auto* cs = out.credit()) {
      const Packet* head = out.queues().head(p.tc);
      if (!cs->congestion_root(p.tc, head != nullptr ? head->wire : 0, sw.now())) return;
    }
    if (sw.mmu().egress_bytes(out.index(), p.tc) > threshold_) sw.note_ecn_mark(p, out);
  }
  template <class S, class O>
  void on_dequeue(S& /*sw*/, Packet& /*p*/, O& /*out*/, bool /*departs*/) noexcept {}
  template <class S, class O>
  OverflowAction on_overflow(S& /*sw*/, Packet& /*p*/, O& /*out*/) noexcept {
    return OverflowAction::kDrop;
  }

 private:
  uint64_t threshold_;
};

}  // namespace rdmasim
