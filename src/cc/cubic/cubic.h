// CUBIC (RFC 9438): TCP's default loss-driven window control, in segments,
// as a transport-neutral CongestionControl. After a loss the window follows
// W_cubic(t) = C (t - K)^3 + W_max, a curve in wall-clock time since the
// congestion-avoidance epoch began (§4.2), so its growth per round trip
// rises with the RTT; where Reno would grow faster (short RTTs, small BDPs:
// most of a datacenter) the Reno-friendly estimate W_est takes over (§4.3).
// Like NewReno it needs no receiver feedback: losses arrive as on_loss (a NAK
// or SACK hole) and on_rto, and it times its own round trips (RFC 6298).
//   initial window 10 segments (RFC 6928 §2), ssthresh unbounded at first
//   (RFC 5681 §3.1), Reno slow start rather than HyStart++ (§4.10: SHOULD
//   HyStart++, MAY Reno's; with it a first loss overshoots further, and
//   beta 0.7 keeps more of the overshoot than Reno's 0.5), one reduction
//   per loss episode (RFC 6582 §3.2; §4.6 cuts "upon entering loss recovery").
#pragma once

#include <cstdint>
#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct CubicConfig {
  double c = 0.4;                // segments/s^3, RFC 9438 §5.1
  double beta = 0.7;             // RFC 9438 §4.6
  bool fast_convergence = true;  // RFC 9438 §4.7

  // The fabric.cubic keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.real({"c",
            "C in W_cubic(t) = C (t-K)^3 + W_max, segments/s^3: how fast the window climbs back to and "
            "past W_max (RFC 9438 §4.2, §5.1)"},
           c, 1e-3, 1e3);
    v.real({"beta",
            "beta_cubic: a loss sets ssthresh = flight x beta; alpha_cubic = 3 (1-beta)/(1+beta) "
            "(RFC 9438 §4.6, §4.3)"},
           beta, 0.01, 0.99);
    v.flag({"fast_convergence",
            "a loss below the last W_max lowers W_max to cwnd (1+beta)/2, leaving room for new flows "
            "(RFC 9438 §4.7)"},
           fast_convergence);
  }
};

class Cubic final : public CongestionControl {
 public:
  static constexpr double kInitialWindow = 10;  // segments, RFC 6928 §2
  static constexpr double kMinSsthresh = 2;     // segments, RFC 9438 §4.6

  explicit Cubic(const CubicConfig& cfg = {}) : cfg_(cfg) {}
  [[nodiscard]] const char* name() const override { return "cubic"; }
  void on_connect(CcFlow& f) override;
  void on_send(CcFlow& f, int64_t payload) override;
  void on_ack(CcFlow& f, const AckSample& ack) override;
  void on_loss(CcFlow& f) override;
  void on_rto(CcFlow& f) override;

  // RFC 9438 §4.1.2's variables, in segments and seconds.
  [[nodiscard]] double window(uint32_t flow) const { return st_[flow].cwnd; }
  [[nodiscard]] double ssthresh(uint32_t flow) const { return st_[flow].ssthresh; }
  [[nodiscard]] double w_max(uint32_t flow) const { return st_[flow].w_max; }
  [[nodiscard]] double k(uint32_t flow) const { return st_[flow].k; }
  [[nodiscard]] double w_est(uint32_t flow) const { return st_[flow].w_est; }
  [[nodiscard]] double cwnd_prior(uint32_t flow) const { return st_[flow].cwnd_prior; }
  [[nodiscard]] double cwnd_epoch(uint32_t flow) const { return st_[flow].cwnd_epoch; }
  [[nodiscard]] Time t_epoch(uint32_t flow) const { return st_[flow].t_epoch; }
  [[nodiscard]] bool in_epoch(uint32_t flow) const { return st_[flow].in_epoch; }
  [[nodiscard]] double target(uint32_t flow) const { return st_[flow].target; }  // of the last ACK
  [[nodiscard]] double srtt(uint32_t flow) const { return st_[flow].srtt; }      // 0: no sample yet
  [[nodiscard]] bool in_recovery(uint32_t flow) const { return st_[flow].in_recovery; }

 private:
  struct State {
    double cwnd = kInitialWindow;
    double ssthresh = 1e18;  // unbounded until the first loss
    double cwnd_prior = 0;
    double w_max = 0;
    double k = 0;
    double w_est = 0;
    double alpha = 0;  // alpha_cubic until W_est reaches cwnd_prior, then 1 (§4.3)
    double cwnd_epoch = 0;
    double target = 0;
    Time t_epoch;
    bool in_epoch = false;       // a congestion-avoidance stage has begun since the last cut
    bool after_timeout = false;  // the next stage starts with K = 0, W_max = cwnd_epoch (§4.8)
    uint64_t una = 0;            // where the last ACK left the window
    Time last_ack;               // when it did
    uint64_t recover = 0;        // highest sequence sent when the loss was reported
    bool in_recovery = false;
    // One RTT sample at a time, never from a resent packet (RFC 6298 §3, Karn).
    double srtt = 0;         // seconds
    uint64_t high_sent = 0;  // one past the highest sequence ever sent
    uint64_t timed_seq = 0;  // the packet being timed
    Time timed_at;
    bool timing = false;
  };
  void congestion_avoidance(State& s, double acked, Time now) const;
  [[nodiscard]] double w_cubic(const State& s, double t) const;
  void apply(CcFlow& f, const State& s) const;

  CubicConfig cfg_;
  std::vector<State> st_;
};

}  // namespace rdmasim
