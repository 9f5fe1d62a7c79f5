// How a NIC port shares its link between the traffic classes it has work
// for. A NIC builds each packet only when the port can send it, so the
// arbiter chooses a class before the packet (and its size) exists, and is
// charged the packet's size afterwards: deficit round robin with the
// overdraft carried into the class's next turn, whose long-run shares are
// the weights' to within one packet per round (Shreedhar & Varghese, 1995).
#pragma once

#include <array>
#include <cstdint>

#include "net/tc_scheduler.h"

namespace rdmasim {

class ClassArbiter {
 public:
  virtual ~ClassArbiter() = default;
  // The class to serve among `ready` (bit per class, at least two set), or
  // -1 when no configured entry serves any of them.
  virtual int choose(uint32_t ready) = 0;
  // The class `choose` returned sent a packet of `wire` bytes.
  virtual void charge(int cls, uint32_t wire) = 0;
};

// Ethernet ETS (IEEE 802.1Qaz) on the NIC's egress, with the same settings
// as the switches' (fabric.scheduler): a NIC in DCBX willing mode takes the
// ETS configuration its switch advertises. Strict classes first, the higher
// first; deficit round robin over the rest.
class EtsArbiter final : public ClassArbiter {
 public:
  explicit EtsArbiter(const TcSchedulerConfig& cfg) : cfg_(cfg), strict_(cfg.strict_mask()) {}
  int choose(uint32_t ready) override {
    ready &= (1u << kNumTcs) - 1;
    if (ready == 0) return -1;
    if (const uint32_t s = ready & strict_; s != 0) return 31 - __builtin_clz(s);
    // Weights are at least 1 (WeightsCodec), so every visit adds credit and
    // the loop ends once a ready class has some.
    for (;;) {
      const int tc = rr_;
      if ((ready >> tc) & 1u) {
        if (!fresh_visit_) {
          deficit_[tc] += int64_t{cfg_.weight[tc]} * cfg_.quantum_bytes;
          fresh_visit_ = true;
        }
        if (deficit_[tc] > 0) return tc;
      } else {
        deficit_[tc] = 0;  // an idle class keeps no credit (nor overdraft) for later
      }
      advance();
    }
  }
  void charge(int cls, uint32_t wire) override {
    if ((strict_ >> cls) & 1u) return;
    deficit_[cls] -= wire;
    if (deficit_[cls] <= 0) advance();
  }

 private:
  void advance() {
    rr_ = (rr_ + 1) % kNumTcs;
    fresh_visit_ = false;
  }
  const TcSchedulerConfig& cfg_;
  uint32_t strict_ = 0;
  std::array<int64_t, kNumTcs> deficit_{};
  int rr_ = 0;
  bool fresh_visit_ = false;
};

}  // namespace rdmasim
