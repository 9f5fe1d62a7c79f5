// TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the
// Datacenter", SIGCOMM 2015): rate control from the RTT and its gradient.
// Below T_low the rate grows by delta; above T_high it falls in proportion
// to how far the RTT overshoots; in between the sign of the smoothed RTT
// gradient decides (additive increase, hyper-additive after N negative
// gradients in a row, or a multiplicative cut proportional to the gradient).
// RTT samples come from ACKs echoing the data packet's send time.
#pragma once

#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct TimelyConfig {
  double ewma_alpha = 0.875;                // weight of the newest RTT difference
  double beta = 0.8;                        // multiplicative-decrease factor
  Rate delta = Rate::from_bps(10'000'000);  // additive step
  Time t_low = Time::from_us(50);
  Time t_high = Time::from_us(500);
  Time min_rtt = Time::from_us(20);   // normalizes the gradient
  int hai_after = 5;                  // N: negative gradients before hyper-additive increase
  int64_t segment_bytes = 64 * 1024;  // one rate update per this many bytes ACKed
  Rate min_rate = Rate::from_bps(10'000'000);

  // The fabric.timely keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.real({"ewma_alpha", "weight of the newest RTT difference in the smoothed RTT gradient"}, ewma_alpha,
           0.0, 1.0);
    v.real({"beta",
            "multiplicative decrease: cut by beta x normalized gradient, or by beta x (1 - t_high/RTT) above "
            "t_high"},
           beta, 0.0, 1.0);
    v.rate({"delta", "additive increase step per rate update (N x delta in hyper-additive increase)"}, delta);
    v.time({"t_low", "RTT below which the rate grows by delta whatever the gradient"}, t_low);
    v.time({"t_high", "RTT above which the rate is cut by beta x (1 - t_high/RTT) whatever the gradient"},
           t_high);
    v.time({"min_rtt", "minRTT that normalizes the gradient (smoothed RTT difference / min_rtt)"}, min_rtt,
           true);
    v.count(
        {"hai_after", "N: negative gradients in a row before hyper-additive increase (N x delta per update)"},
        hai_after, 1, 1000);
    v.size({"segment", "bytes ACKed between rate updates (TIMELY updates once per completed segment)"},
           segment_bytes);
    v.rate({"min_rate", "floor of the sending rate"}, min_rate);
    v.check(t_high > t_low, "t_high", "expected t_high above t_low");
  }
};

class Timely final : public CongestionControl {
 public:
  explicit Timely(const TimelyConfig& cfg) : cfg_(cfg) {}
  [[nodiscard]] const char* name() const override { return "timely"; }
  [[nodiscard]] const char* feedback() const override { return "rtt-echo"; }
  void on_connect(CcFlow& c) override;
  void on_ack(CcFlow& c, const AckSample& ack) override;

 private:
  struct State {
    double rate_bps = 0;
    double prev_rtt_ps = 0;
    double rtt_diff_ps = 0;
    int negative_run = 0;
    uint64_t una_at_update = 0;
    bool have_prev = false;
  };
  TimelyConfig cfg_;
  std::vector<State> st_;
};

}  // namespace rdmasim
