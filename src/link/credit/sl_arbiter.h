// InfiniBand VL arbitration for a channel adapter's own traffic. The NIC's
// classes are SLs; the SL2VL table maps them to VLs, and the port's
// VLArbitration tables share the link between the VLs. OpenSM programs a
// CA port from qos_ca_sl2vl / qos_ca_vlarb_high / qos_ca_vlarb_low, which
// default to the switches' tables; rdmasim uses the one fabric.ib table.
#pragma once

#include <cstdint>

#include "link/credit.h"
#include "net/class_arbiter.h"

namespace rdmasim {

class SlArbiter final : public ClassArbiter {
 public:
  explicit SlArbiter(const CreditConfig& cfg) : cfg_(cfg), vl_(&cfg) {}

  int choose(uint32_t ready_sls) override {
    uint32_t vls = 0;
    for (uint32_t m = ready_sls; m != 0; m &= m - 1) vls |= 1u << cfg_.sl2vl[__builtin_ctz(m) & 15];
    const int vl = vl_.choose(vls);
    if (vl < 0) return -1;
    // SLs that share a VL take turns on it.
    for (int i = 1; i <= kNumSls; ++i) {
      const int sl = (last_sl_ + i) % kNumSls;
      if (((ready_sls >> sl) & 1u) && cfg_.sl2vl[sl] == vl) {
        last_sl_ = sl;
        return sl;
      }
    }
    return -1;
  }
  void charge(int /*cls*/, uint32_t wire) override { vl_.charge(wire); }

 private:
  const CreditConfig& cfg_;
  VlArbiter vl_;
  int last_sl_ = kNumSls - 1;
};

}  // namespace rdmasim
