// The hash of a UDP 5-tuple that RoCEv2 and UET packets carry for ECMP:
// switches mix it with their own seed to pick among equal-cost ports.
#pragma once

#include <cstdint>

#include "engine/rng.h"

namespace rdmasim {

inline uint32_t udp_flow_hash(int src, int dst, uint16_t sport, uint16_t dport) {
  constexpr uint8_t kUdp = 17;
  const uint64_t h =
      mix64(static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32 | static_cast<uint32_t>(dst));
  return static_cast<uint32_t>(
      mix64(h ^ (static_cast<uint64_t>(sport) << 24 | static_cast<uint64_t>(dport) << 8 | kUdp)));
}

}  // namespace rdmasim
