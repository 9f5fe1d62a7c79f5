// Plain Ethernet with priority flow control off (iWARP, UET, a lossy RoCE
// class): every class may always send, nothing is returned upstream, and a
// full switch buffer drops. A PAUSE frame that reaches such a MAC is consumed
// and ignored, as a port with PFC disabled does.
#pragma once

#include <cstdint>

#include "engine/units.h"
#include "link/no_op_hooks.h"
#include "net/packet.h"

namespace rdmasim {

class LossyFlowControl : public NoOpLinkHooks {
 public:
  template <class P>
  Packet* next(P& port, Time /*now*/) {
    Packet* p = port.dequeue(0xff);
    return p != nullptr ? p : port.pull(0xff);
  }
  template <class P>
  bool on_receive(P& port, Packet* p) {
    if (p->type != PktType::kPfc) return false;
    port.net().deliver(p);
    return true;
  }
  [[nodiscard]] Time pause_left(uint8_t /*tc*/, Time /*now*/) const noexcept { return Time::zero(); }
  [[nodiscard]] uint64_t credit_bytes(uint8_t /*cls*/, Time /*now*/) const noexcept { return 0; }
};

}  // namespace rdmasim
