// The link flow-control hooks a part may leave empty (link_flow_control.h
// lists the whole contract). A part derives from this and defines only what
// it does; its own member hides the empty one here.
#pragma once

#include <cstdint>

#include "net/packet.h"

namespace rdmasim {

struct NoOpLinkHooks {
  template <class P>
  void on_enqueue(P& /*port*/, Packet* /*p*/) noexcept {}
  template <class P>
  void on_transmit(P& /*port*/, Packet* /*p*/) noexcept {}
  template <class P>
  void on_release(P& /*port*/, uint8_t /*cls*/, uint32_t /*wire*/) noexcept {}
  template <class P>
  void on_buffered(P& /*port*/, uint8_t /*cls*/) noexcept {}
  template <class P>
  void on_left_buffer(P& /*port*/, uint8_t /*cls*/) noexcept {}
  template <class P>
  void on_timer(P& /*port*/, uint32_t /*kind*/, uint64_t /*arg*/) noexcept {}
  template <class P>
  void on_corrupt(P& /*port*/, const Packet& /*p*/) noexcept {}
  template <class P>
  void on_link_down(P& /*port*/) noexcept {}
  void on_fault_drop(const Packet& /*p*/) noexcept {}
};

}  // namespace rdmasim
