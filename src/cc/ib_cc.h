// InfiniBand congestion control (IBTA Vol.1 Annex A10): a switch port whose
// VL queue is above a threshold sets FECN on the packets it forwards; the
// destination returns the mark as BECN (here on the ACK, as ConnectX does for
// RC); the source steps its congestion control table index (CCTI) up by
// ccti_increase per BECN, each CCT entry being an inter-packet delay, and
// steps it down by one every ccti_timer until ccti_min.
#pragma once

#include <cstdint>
#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct IbCcConfig {
  // Switch: mark FECN while the egress VL queue holds more than this. The
  // annex expresses it as a 4-bit level of the port's buffer; bytes here.
  uint64_t threshold_bytes = 8 * 1024;
  // CA (Annex A10 CACongestionSetting / CongestionControlTable).
  uint32_t ccti_increase = 1;
  uint32_t ccti_limit = 127;
  uint32_t ccti_min = 0;
  Time ccti_timer = Time::from_ps(20 * 1'024'000);  // units of 1.024 us
  // CCT entry i delays the next packet by cct_step * i sixteenths of its own
  // serialization time (a linear table; rate = line x 16 / (16 + step x i)).
  uint32_t cct_step = 1;

  // The fabric.ibcc keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.size({"threshold",
            "a switch sets FECN on packets joining an egress VL queue above this, at congestion-root ports "
            "only"},
           threshold_bytes, INT64_MAX, "expected a positive queue threshold, e.g. 32KiB");
    v.count({"ccti_increase", "CCTI steps a source adds per BECN received (Annex A10 CCTI_Increase)"},
            ccti_increase, 1, 255);
    v.count({"ccti_limit", "highest CCTI (CCTI_Limit): the longest inter-packet delay a source can reach"},
            ccti_limit, 0, 16383);
    v.count({"ccti_min", "CCTI floor the timer steps down to (CCTI_Min)"}, ccti_min, 0, 16383);
    v.check(ccti_min <= ccti_limit, "ccti_min", "expected ccti_min <= ccti_limit");
    v.time({"ccti_timer",
            "a source's CCTI steps down by one each period (CCTI_Timer, 1.024 us units in Annex A10)"},
           ccti_timer, true);
    v.count({"cct_step",
             "linear CCT: entry i delays the next packet by cct_step x i / 16 of its serialization time"},
            cct_step, 1, 1024);
  }
};

class IbCc final : public CongestionControl {
 public:
  explicit IbCc(const IbCcConfig& cfg) : cfg_(cfg) {}
  [[nodiscard]] const char* name() const override { return "ibcc"; }
  [[nodiscard]] const char* feedback() const override { return "ecn-echo"; }  // BECN
  void on_connect(CcFlow& c) override;
  void on_ack(CcFlow& c, const AckSample& ack) override;
  void on_timer(CcFlow& c, uint32_t tag) override;
  [[nodiscard]] uint32_t ccti(uint32_t conn) const { return st_[conn].ccti; }
  [[nodiscard]] uint64_t becns(uint32_t conn) const { return st_[conn].becns; }

 private:
  struct State {
    uint32_t ccti = 0;
    uint64_t becns = 0;
    bool timer_armed = false;
  };
  void apply(CcFlow& c);
  IbCcConfig cfg_;
  std::vector<State> st_;
};

}  // namespace rdmasim
