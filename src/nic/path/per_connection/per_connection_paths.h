// per-connection: one fixed entropy per QP for its whole life, what RoCEv2
// NICs do today (the UDP source port derived from the QP number, IBTA Annex
// A17 §A17.4.3): ECMP keeps every packet of a QP on one path, so a QP never
// reorders, and two QPs that hash onto one link share it until they end.
#pragma once

#include <cstdint>

#include "nic/path/path_signal.h"

namespace rdmasim {

class PerConnectionPaths {
 public:
  void connect(uint32_t /*qp*/, uint32_t /*base*/) noexcept {}
  [[nodiscard]] uint32_t entropy(uint32_t /*qp*/, uint32_t base, uint64_t /*seq*/) const noexcept {
    return base;
  }
  void on_ack(uint32_t /*qp*/, const PathAck& /*a*/) noexcept {}
  void on_rto(uint32_t /*qp*/) noexcept {}
};

}  // namespace rdmasim
