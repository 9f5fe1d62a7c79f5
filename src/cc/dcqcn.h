// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015), reaction point. The congestion point is the switches' RED
// ECN marking; the notification point is the receiver NIC's CNP generation.
//
// On a CNP: target rate Rt <- Rc, Rc <- Rc (1 - alpha/2), alpha <- (1-g) alpha + g,
// and the increase state restarts. Without CNPs alpha decays by (1-g) every
// alpha_timer. Rate increases come from a timer (every increase_timer) and a
// byte counter (every byte_counter bytes sent); while both have fired fewer
// than F times since the last cut the sender recovers fast (Rc <- (Rt+Rc)/2),
// then additively (Rt += R_AI), then hyper-additively (Rt += R_HAI) once both
// exceed F. Without a byte counter (the HPCC simulator's variant) the timer
// alone sets the stage.
#pragma once

#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct DcqcnConfig {
  double g = 1.0 / 256;                         // alpha EWMA gain
  Time alpha_timer = Time::from_us(55);         // alpha decay period
  Time increase_timer = Time::from_us(55);      // rate-increase timer T
  int64_t byte_counter = 10'000'000;            // rate-increase byte counter B; 0: off (timer only)
  int fast_recovery_steps = 5;                  // F
  Rate rate_ai = Rate::from_bps(40'000'000);    // R_AI
  Rate rate_hai = Rate::from_bps(200'000'000);  // R_HAI
  Rate min_rate = Rate::from_bps(10'000'000);
  Time cnp_interval = Time::from_us(50);  // NP: at most one CNP per QP per interval
  // RP: at most one rate cut per interval; a CNP inside it still moves alpha
  // and cuts when the interval ends (Mellanox rate_reduce_monitor_period, the
  // HPCC simulator's RATE_DECREASE_INTERVAL). 0: every CNP cuts, as in the
  // DCQCN paper, whose NP already spaces CNPs by cnp_interval.
  Time rate_decrease_interval = Time::zero();
  double initial_alpha = 1.0;
  // On a CNP the target rate takes the current rate (the DCQCN paper). When
  // false, only a CNP after at least one rate increase does; a second cut
  // before any increase keeps the older, higher target (Mellanox NICs'
  // clamp_tgt_rate 0 / clamp_tgt_rate_after_time_inc 1, which the HPCC
  // simulator's CLAMP_TARGET_RATE 0 reproduces).
  bool clamp_target_rate = true;
  // The reaction point starts at a QP's first CNP, with alpha = initial_alpha
  // and its first cut one rate_decrease_interval later (Mellanox NICs
  // rate-limit a QP only once it is notified; the HPCC simulator's
  // cnp_received_mlx). When false alpha decays from the QP's start, as the
  // DCQCN paper's RP runs from the first packet.
  bool start_at_first_cnp = false;

  // The fabric.dcqcn keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.real({"g",
            "alpha gain: a CNP sets alpha <- (1-g) alpha + g; each alpha_timer without one, alpha <- (1-g) "
            "alpha"},
           g, 1e-6, 1.0);
    v.time({"alpha_timer", "period of alpha's decay alpha <- (1-g) alpha while no CNP arrives"}, alpha_timer,
           true);
    v.time({"increase_timer", "rate-increase timer T: one increase step per period since the last cut"},
           increase_timer, true);
    v.size_or({"byte_counter",
               "rate-increase byte counter B: one increase step per B bytes sent; off: the timer alone"},
              byte_counter, "off");  // off: increases from the timer alone
    v.flag({"clamp_target_rate",
            "every cut sets target Rt to current Rc (paper); false: only a cut after an increase "
            "(clamp_tgt_rate 0)"},
           clamp_target_rate);
    v.flag({"start_at_first_cnp",
            "the reaction point starts at a QP's first CNP, as Mellanox NICs do; false: it runs from the "
            "QP's start"},
           start_at_first_cnp);
    v.count({"fast_recovery_steps",
             "F: increase events of fast recovery Rc <- (Rt+Rc)/2 before additive increase starts"},
            fast_recovery_steps, 0, 1000);
    v.rate({"rate_ai", "R_AI: target-rate step of additive increase"}, rate_ai);
    v.rate(
        {"rate_hai", "R_HAI: target-rate step of hyper increase, once timer and byte counter both passed F"},
        rate_hai);
    v.rate({"min_rate", "floor below which a CNP cut never takes the sending rate"}, min_rate);
    v.time({"cnp_interval",
            "notification point: the responder sends at most one CNP per QP per interval for CE-marked data"},
           cnp_interval);
    v.time({"rate_decrease_interval",
            "at most one cut per interval: a CNP inside it cuts at its end (Mellanox); 0: every CNP cuts"},
           rate_decrease_interval);
    v.real({"initial_alpha", "alpha a QP starts with (or takes at its first CNP under start_at_first_cnp)"},
           initial_alpha, 0.0, 1.0);
  }
};

class Dcqcn final : public CongestionControl {
 public:
  explicit Dcqcn(const DcqcnConfig& cfg) : cfg_(cfg) {}
  [[nodiscard]] const char* name() const override { return "dcqcn"; }
  [[nodiscard]] const char* feedback() const override { return "cnp"; }
  [[nodiscard]] Time cnp_interval() const override { return cfg_.cnp_interval; }

  void on_connect(CcFlow& c) override;
  void on_send(CcFlow& c, int64_t payload) override;
  void on_cnp(CcFlow& c) override;
  // Timer tags: the increase timer carries the epoch it was armed in (a cut
  // starts a new one); a deferred cut carries kCutTag.
  static constexpr uint32_t kCutTag = 0xFFFF'FFFFu;
  void on_timer(CcFlow& c, uint32_t tag) override;

  [[nodiscard]] double alpha(uint32_t conn) const { return st_[conn].alpha; }
  [[nodiscard]] const DcqcnConfig& config() const { return cfg_; }

 private:
  struct State {
    double rc_bps = 0;  // current rate
    double rt_bps = 0;  // target rate
    double alpha = 1.0;
    Time alpha_at;  // alpha is exact as of this time
    int timer_stage = 0;
    int byte_stage = 0;
    int64_t bytes = 0;
    uint32_t epoch = 0;  // tags increase-timer events; a cut starts a new epoch
    Time last_cut = Time::from_ps(-1);
    bool cut_pending = false;  // a CNP came within rate_decrease_interval of the last cut
    bool notified = false;     // a CNP has arrived
  };
  void decay_alpha(State& s, Time now) const;
  void cut(CcFlow& c, State& s, Time now);
  void increase(CcFlow& c, State& s);
  void apply(CcFlow& c, const State& s) const;

  DcqcnConfig cfg_;
  std::vector<State> st_;
};

}  // namespace rdmasim
