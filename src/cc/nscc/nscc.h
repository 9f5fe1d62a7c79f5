// NSCC, Ultra Ethernet Transport's Network Signal-based Congestion Control
// (Ultra Ethernet Specification 1.0, 2025, congestion management: NSCC),
// derived from SMaRTT (Bonato et al., "SMaRTT-REPS: Sender-based Marked
// Rapidly-adapting Trimmed & Timed Transport with Recycled Entropies",
// arXiv 2404.01630, 2024). A window of bytes, steered per ACK by two signals
// on two timescales: the ECN-Echo of the packet (a queue on the path right
// now) and its queuing delay, RTT - base RTT, against a target:
//
//                   delay >= target            delay < target
//   not marked      fair increase              proportional increase
//                   (+fi per window)           (+alpha (target - delay) per
//                                              window; +fast% of each ACK once
//                                              a whole window saw no queue)
//   ECN marked      multiplicative decrease    no change (the mark came from
//                   (x max(1 - gamma (avg -    a queue that is not ours to
//                   target)/avg, 0.5), at most drain: SMaRTT's "wait")
//                   once per base RTT)
//
// plus a small eta every base RTT, and quick adapt: once per base RTT +
// target, if a trim (or a delay above 4 x target) was seen and the bytes
// acknowledged over that interval are under max window / 2^qa_gate, the
// window becomes what was acknowledged; marks on the packets already in
// flight are then disregarded. A trim otherwise takes one packet off.
//
// Constants and the exact rules follow UEC's reference simulator, whose
// defaults "aim to follow the UEC specification defaults" (its README):
// github.com/ultraethernet/uet-htsim, htsim/sim/uec.cpp (read in the fork
// f-forcher/uet-htsim @0225931): UecSrc::initNsccParams, initNscc,
// updateCwndOnAck_NSCC, updateCwndOnNack_NSCC, quick_adapt, fair_increase,
// proportional_increase, fast_increase, multiplicative_decrease,
// fulfill_adjustment, update_delay, update_base_rtt. Its gains are given for
// a reference network of 100 Gb/s x 12 us and scale by a = BDP / that BDP
// ("must be set to BDP/(100Gbps*12us)"). Its fabric defaults are the ones
// rdmasim's VALIDATION quotes: ECN ramp 0.2-0.8 BDP, trimming at 1 BDP.
// The spec's and the paper's own text were not at hand: where they might
// differ, htsim is what this follows (e.g. b = target / 12 us as its code
// computes it; a comment there has 12 us / target). Differences from htsim,
// each marked where it is made: increases are applied per ACK (htsim
// gathers them over 8 packets before dividing by the window), a quick adapt
// restarts the fast-increase run, and a retransmission timeout also arms
// quick adapt (an assumption; htsim only takes one packet off).
#pragma once

#include <cstdint>
#include <vector>

#include "cc/congestion_control.h"

namespace rdmasim {

struct NsccConfig {
  // 0 = the fabric's longest unloaded RTT as a lone packet measures it
  // (Fabric::unloaded_rtt; htsim: network_max_unloaded_rtt).
  Time base_rtt = Time::zero();
  // 0 = 0.75 x base RTT (htsim initNsccParams with trimming; 1 x without).
  Time target_qdelay = Time::zero();
  double max_window_bdp = 1.5;  // htsim initNscc: maxwnd = 1.5 x BDP
  int min_window = 1;           // packets; htsim: min_cwnd = one MTU
  double fair_increase = 5;     // fi = 5 MSS x a per window of ACKs
  double prop_increase = 4;     // alpha = 4 MSS x a x b / target, b = target / 12 us
  double fast_increase = 0.25;  // fi_scale = 0.25 x a of each ACK
  double eta = 0.15;            // 0.15 MSS x a per base RTT
  double gamma = 0.8;           // multiplicative decrease gain
  double delay_ewma = 0.0125;   // delay_alpha: weight of a sample in avg_delay
  int qa_gate = 3;              // quick adapt only below max window / 2^3
  double qa_delay = 4;          // qa_threshold = 4 x target

  // The fabric.nscc keys (config/params.h).
  template <class V>
  void visit(V& v) {
    // The BDP and the eta period scale with it (0s: no window), and a zero
    // target would make every sample a congestion signal: time_or refuses
    // 0s for both rather than read it as auto.
    v.time_or({"base_rtt",
               "base RTT: BDP = line rate x base RTT, max window, eta period; auto: longest unloaded RTT "
               "(UEC htsim network_max_unloaded_rtt)"},
              base_rtt, "auto");
    v.time_or({"target_qdelay",
               "target queuing delay the quadrants compare RTT - base RTT with; auto: 0.75 x base RTT, UEC "
               "htsim's with trimming (1 x base RTT without)"},
              target_qdelay, "auto");
    v.real(
        {"max_window_bdp", "max window, and the initial one (line rate), in BDPs (UEC htsim initNscc: 1.5)"},
        max_window_bdp, 0.1, 100);
    v.count({"min_window", "min window in packets (UEC htsim initNsccParams: one MTU)"}, min_window, 1,
            1'000'000);
    v.real({"fair_increase",
            "fair increase, unmarked and delay >= target: +fair_increase x MTU x a per window of ACKs "
            "(UEC htsim fi = 5 MSS x a)"},
           fair_increase, 0, 1000);
    v.real({"prop_increase",
            "proportional increase, unmarked and delay < target: +prop_increase x MTU x a x (target - "
            "delay) / 12us per window (UEC htsim alpha = 4 MSS x a x b / target)"},
           prop_increase, 0, 1000);
    v.real({"fast_increase",
            "after a window of ACKs with delay < 1us, each ACK grows the window by fast_increase x a of "
            "its bytes (UEC htsim fi_scale = 0.25 x a)"},
           fast_increase, 0, 10);
    v.real({"eta", "+eta x MTU x a every base RTT in every quadrant (UEC htsim eta = 0.15 MSS x a)"}, eta, 0,
           100);
    v.real({"gamma",
            "multiplicative decrease, marked and delay >= target: x max(1 - gamma (avg - target)/avg, 0.5) "
            "once per base RTT (UEC htsim gamma = 0.8)"},
           gamma, 0, 1);
    v.real({"delay_ewma", "weight of one delay sample in the average delay (UEC htsim delay_alpha = 0.0125)"},
           delay_ewma, 1e-6, 1);
    v.count({"qa_gate",
             "quick adapt only when the bytes acknowledged in base RTT + target are below max window / "
             "2^qa_gate (UEC htsim qa_gate = 3)"},
            qa_gate, 0, 30);
    v.real({"qa_delay",
            "a delay above qa_delay x target arms quick adapt without a trim (UEC htsim qa_threshold = 4 x "
            "target)"},
           qa_delay, 1, 1000);
  }
};

class Nscc final : public CongestionControl {
 public:
  // htsim's reference network: gains are given for 100 Gb/s x 12 us.
  static constexpr double kReferenceBdp = 150'000;  // bytes
  static constexpr Time kReferenceRtt = Time::from_us(12);
  static constexpr double kMaxCut = 0.5;  // htsim multiplicative_decrease: at most halves
  // htsim fast_increase: a delay under 1 us counts as "no queue".
  static constexpr Time kFastIncreaseDelay = Time::from_us(1);
  // htsim update_delay: an unmarked sample above target counts as base RTT / 4.
  static constexpr double kUnmarkedSample = 0.25;

  // cfg.base_rtt must be positive (the registry resolves auto).
  explicit Nscc(const NsccConfig& cfg);
  [[nodiscard]] const char* name() const override { return "nscc"; }
  [[nodiscard]] const char* feedback() const override { return "ecn-echo"; }

  void on_connect(CcFlow& f) override;
  void on_ack(CcFlow& f, const AckSample& ack) override;
  void on_loss(CcFlow& f) override;
  void on_trim(CcFlow& f) override;
  void on_rto(CcFlow& f) override;

  [[nodiscard]] double window(uint32_t flow) const { return st_[flow].cwnd; }  // bytes
  [[nodiscard]] double max_window(uint32_t flow) const { return st_[flow].max_wnd; }
  [[nodiscard]] double min_window() const;  // bytes
  [[nodiscard]] Time target_qdelay() const { return target_; }
  // The configured base RTT, or a shorter RTT this flow measured.
  [[nodiscard]] Time base_rtt(uint32_t flow) const { return st_[flow].base_rtt; }
  [[nodiscard]] double avg_delay_ps(uint32_t flow) const { return st_[flow].avg_delay; }
  [[nodiscard]] double scale(uint32_t flow) const { return st_[flow].a; }  // a = BDP / reference BDP
  [[nodiscard]] int64_t achieved(uint32_t flow) const { return st_[flow].achieved; }
  [[nodiscard]] bool qa_armed(uint32_t flow) const { return st_[flow].qa_armed; }
  [[nodiscard]] bool fast(uint32_t flow) const { return st_[flow].fast; }
  [[nodiscard]] const NsccConfig& config() const { return cfg_; }

 private:
  struct State {
    double cwnd = 0;       // bytes
    double max_wnd = 0;    // max_window_bdp x line rate x base_rtt
    double a = 1;          // scaling factor a, from the configured base RTT
    Time base_rtt;         // lowered by shorter RTT samples (htsim update_base_rtt)
    double avg_delay = 0;  // ps
    uint64_t una = 0;
    // Fast increase: bytes acknowledged in a row without a queue.
    int64_t fast_run = 0;
    bool fast = false;
    bool cut_once = false;
    Time last_cut;
    Time last_eta;
    // Quick adapt: bytes acknowledged since the interval began.
    bool qa_started = false;
    Time qa_end;
    int64_t achieved = 0;
    bool qa_armed = false;     // a trim or timeout was seen
    int64_t ignore_bytes = 0;  // marks on these bytes, in flight at the last quick adapt, are old news
  };
  bool quick_adapt(CcFlow& f, State& s, bool loss, bool marked, Time delay);
  void proportional_or_fast(State& s, int64_t acked, Time delay) const;
  void multiplicative_decrease(State& s, Time now) const;
  void sample_delay(State& s, Time delay, bool marked) const;
  void take_one_packet(State& s) const;
  void apply(CcFlow& f, State& s) const;

  NsccConfig cfg_;
  Time target_;
  std::vector<State> st_;
};

}  // namespace rdmasim
