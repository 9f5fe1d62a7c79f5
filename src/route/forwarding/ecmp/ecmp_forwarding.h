// ECMP: the egress is the flow hash (5-tuple, UDP source port included) mixed
// with the switch's own seed, modulo the equal-cost group. Per-switch seeds
// spread flows at every tier; one seed everywhere reproduces polarization.
#pragma once

#include <cstdint>

#include "net/packet.h"

namespace rdmasim {

class EcmpForwarding {
 public:
  explicit EcmpForwarding(uint64_t seed) noexcept : seed_(seed) {}
  template <class S>
  [[nodiscard]] int select(const S& sw, const Packet& p) const noexcept {
    return sw.routes().select(p.dst, p.flow_hash, seed_);
  }
  [[nodiscard]] uint64_t seed() const noexcept { return seed_; }

 private:
  uint64_t seed_;
};

}  // namespace rdmasim
