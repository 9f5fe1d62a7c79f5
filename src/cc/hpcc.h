// HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019),
// Algorithm 1. Every switch egress stamps the data packet with its queue
// length, cumulative tx bytes, timestamp and line rate (INT); the ACK brings
// the stack back. Per ACK the sender estimates each link's normalized
// inflight bytes
//     U_j = min(qlen, qlen_prev) / (B_j T) + txRate_j / B_j
// takes the most loaded link, smooths it over one base RTT T
//     U <- (1 - tau/T) U + (tau/T) max_j U_j,
// and sets the window W = Wc / (U / eta) + W_AI (when U >= eta or after
// maxStage additive steps) or W = Wc + W_AI. Wc, the reference window, moves
// once per RTT (when the ACK passes the PSN that was next when it last
// moved); the ACKs in between react from the same reference ("fast react").
// The window bounds bytes in flight and paces at R = W / T.
#pragma once

#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct HpccConfig {
  // The HPCC simulator's defaults (alibaba-edu/High-Precision-Congestion-
  // Control, mix/config.txt: U_TARGET 0.95, MI_THRESH 0, RATE_AI 50Mb/s,
  // MIN_RATE 100Mb/s; the paper's §5.1 uses the same eta and maxStage).
  double eta = 0.95;                          // target utilization
  int max_stage = 0;                          // additive-increase steps before a multiplicative one
  Rate rate_ai = Rate::from_bps(50'000'000);  // W_AI = R_AI x T
  Rate min_rate = Rate::from_bps(100'000'000);
  // Base RTT T (and Winit = line rate x T). 0 = the fabric's longest unloaded
  // RTT, one T for every flow (the simulator's GLOBAL_T 1).
  Time base_rtt = Time::zero();
  // INT bytes every data packet and ACK carries: that simulator's IntHeader
  // (5 hops x 8 B + 2 B).
  uint32_t int_header_bytes = 42;
  // What a switch egress reports: the port's whole queue and transmitted
  // bytes, as the paper and its ns-3 code do (false), or those of the
  // packet's own traffic class (true), so that a class held to its ETS
  // share sees its own queue build and HPCC settles at that share.
  bool class_int = false;

  // The fabric.hpcc keys (config/params.h).
  template <class V>
  void visit(V& v) {
    v.real(
        {"eta", "target utilization: the window scales by eta/U of the most loaded link on the path (INT)"},
        eta, 0.01, 1.0);
    v.count({"max_stage",
             "maxStage: additive steps W = Wc + W_AI allowed while U < eta before a multiplicative update"},
            max_stage, 0, 1000);
    v.rate({"rate_ai", "R_AI: additive increase W_AI = R_AI x T added to the window at every update"},
           rate_ai);
    v.rate({"min_rate", "floor of the window as a rate: W never falls below min_rate x T"}, min_rate);
    // T divides the window into a rate: 0s has no meaning of its own, and
    // time_or refuses it rather than read it as auto.
    v.time_or({"base_rtt",
               "base RTT T: smoothing horizon, initial window line rate x T, pacing W/T; auto: longest "
               "unloaded RTT"},
              base_rtt, "auto");
    v.size(
        {"int_header", "INT header bytes every data packet and ACK carries (the HPCC simulator's IntHeader)"},
        int_header_bytes, 1024);
    // Echoed only when set: results of runs before the key stay byte-identical.
    if (!V::kEchoes || class_int)
      v.choice({"int",
                "what each hop's INT record reports: port, the whole port's queue and tx bytes (HPCC paper, "
                "its ns-3 code); class, the packet's traffic class's own (with ETS weights, HPCC then keeps "
                "each class to its share)"},
               class_int, {{"port", false}, {"class", true}});
  }
};

class Hpcc final : public CongestionControl {
 public:
  explicit Hpcc(const HpccConfig& cfg) : cfg_(cfg) {}
  [[nodiscard]] const char* name() const override { return "hpcc"; }
  [[nodiscard]] const char* feedback() const override { return "int-echo"; }
  [[nodiscard]] bool wants_int() const override { return true; }

  void on_connect(CcFlow& c) override;
  void on_ack(CcFlow& c, const AckSample& ack) override;

  [[nodiscard]] double utilization(uint32_t conn) const { return st_[conn].u; }
  [[nodiscard]] double window_bytes(uint32_t conn) const { return st_[conn].w; }
  [[nodiscard]] const HpccConfig& config() const { return cfg_; }

 private:
  // The scalars every ACK reads fill the first line; the previous ACK's
  // telemetry follows on lines of its own (IntStack is line-aligned).
  struct alignas(64) State {
    double w = 0;   // current window, bytes
    double wc = 0;  // reference window, bytes
    double u = 0;   // smoothed normalized inflight
    // Window bounds and step in bytes, fixed for the flow's life (its line
    // rate and T are), computed once instead of per ACK.
    double w_ai = 0;   // W_AI = R_AI x T
    double w_lo = 0;   // floor: min_rate x T, at most w_max
    double w_max = 0;  // line rate x T
    uint64_t last_update_psn = 0;
    int inc_stage = 0;
    bool have_ref = false;
    IntStack last;  // L: the previous ACK's telemetry
  };
  void apply(CcFlow& c, const State& s) const;
  static void remember(State& s, const IntStack& in);
  [[nodiscard]] static bool same_path(const IntStack& a, const IntStack& b);
  [[nodiscard]] double bdp_bytes(Rate r) const;  // r x T

  HpccConfig cfg_;
  std::vector<State> st_;
};

}  // namespace rdmasim
