// A switch's shared packet buffer. Lossy classes are admitted by the dynamic
// threshold rule of Choudhury & Hahne (IEEE/ACM ToN 1998): a queue may grow
// while its length is below alpha x (free shared buffer).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/tc_scheduler.h"

namespace rdmasim {

struct MmuConfig {
  uint64_t buffer_bytes = 32ull << 20;  // HPCC paper's 32 MB switch buffer
  // SONiC's default egress_lossy_profile uses dynamic_th 3, i.e. alpha = 2^3.
  double alpha = 8.0;
  // An ideal switch: admits everything whatever the buffer size says. Used by
  // the `ideal` reference profile, so a scenario's buffer cannot make it drop.
  bool unlimited = false;
};

class Mmu {
 public:
  Mmu(const MmuConfig& cfg, size_t num_ports) : cfg_(cfg), queue_bytes_(num_ports) {}

  // True (and the bytes accounted) if egress queue (port, tc) may take `bytes`.
  bool admit(uint16_t port, uint8_t tc, uint32_t bytes) {
    const uint64_t q = queue_bytes_[port][tc];
    if (!cfg_.unlimited) {
      if (used_ + bytes > cfg_.buffer_bytes) return false;
      const double free_bytes = static_cast<double>(cfg_.buffer_bytes - used_);
      if (static_cast<double>(q + bytes) > cfg_.alpha * free_bytes) return false;
    }
    queue_bytes_[port][tc] = q + bytes;
    used_ += bytes;
    if (used_ > peak_) peak_ = used_;
    return true;
  }
  void release(uint16_t port, uint8_t tc, uint32_t bytes) {
    queue_bytes_[port][tc] -= bytes;
    used_ -= bytes;
  }
  [[nodiscard]] uint64_t used() const { return used_; }
  [[nodiscard]] uint64_t peak() const { return peak_; }
  [[nodiscard]] const MmuConfig& config() const { return cfg_; }

 private:
  MmuConfig cfg_;
  std::vector<std::array<uint64_t, kNumTcs>> queue_bytes_;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
};

}  // namespace rdmasim
