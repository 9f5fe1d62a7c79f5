#include "cc/nscc/nscc.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rdmasim {

namespace {

double bytes_in(Rate r, Time t) { return static_cast<double>(r.bps()) * static_cast<double>(t.ps()) / 8e12; }

}  // namespace

Nscc::Nscc(const NsccConfig& cfg) : cfg_(cfg) {
  if (cfg_.base_rtt <= Time::zero()) throw std::invalid_argument("nscc: base_rtt must be resolved (> 0)");
  // With trimming the queue is cut at 1 BDP, one base RTT of delay; the
  // target sits below it so that delay still tells "ours" from "not ours".
  target_ =
      cfg_.target_qdelay > Time::zero() ? cfg_.target_qdelay : Time::from_ps(cfg_.base_rtt.ps() * 3 / 4);
}

double Nscc::min_window() const { return static_cast<double>(cfg_.min_window) * host_->mtu(); }

void Nscc::on_connect(CcFlow& f) {
  if (st_.size() <= f.id) st_.resize(f.id + 1);
  State& s = st_[f.id];
  s = State{};
  s.base_rtt = cfg_.base_rtt;
  const double bdp = bytes_in(f.line_rate, cfg_.base_rtt);
  s.a = bdp / kReferenceBdp;
  s.max_wnd = std::max(cfg_.max_window_bdp * bdp, min_window());
  // UET starts at line rate: the first window is the largest (htsim initNscc, cwnd 0 = maxwnd).
  s.cwnd = s.max_wnd;
  s.una = f.una;
  s.last_eta = host_->now();
  apply(f, s);
}

void Nscc::on_ack(CcFlow& f, const AckSample& ack) {
  State& s = st_[f.id];
  const Time now = host_->now();
  int64_t acked = ack.acked_bytes;
  if (acked <= 0 && f.una > s.una) acked = static_cast<int64_t>(f.una - s.una) * host_->mtu();
  acked = std::max<int64_t>(acked, 0);
  s.una = std::max(s.una, f.una);
  s.achieved += acked;
  s.ignore_bytes -= acked;

  // Without an RTT echo the average stands in for the sample (htsim processAck).
  auto delay = Time::from_ps(std::llround(s.avg_delay));
  if (ack.echoed_sent_at > Time::zero() && now > ack.echoed_sent_at) {
    const Time rtt = now - ack.echoed_sent_at;
    if (rtt < s.base_rtt) {
      // A shorter path than the longest one the config assumed: its own BDP
      // bounds the window (htsim update_base_rtt).
      s.base_rtt = rtt;
      s.max_wnd = std::max(cfg_.max_window_bdp * bytes_in(f.line_rate, rtt), min_window());
    }
    delay = rtt - s.base_rtt;
    sample_delay(s, delay, ack.ece);
  }

  if (quick_adapt(f, s, false, ack.ece, delay)) {
    apply(f, s);
    return;
  }
  const bool over = delay >= target_;
  if (!ack.ece && over) {
    // Queuing, but nobody marks: share fairly, a fixed amount per window (AIMD's AI).
    s.cwnd += cfg_.fair_increase * host_->mtu() * s.a * static_cast<double>(acked) / s.cwnd;
    s.fast_run = 0;
    s.fast = false;
  } else if (!ack.ece) {
    proportional_or_fast(s, acked, delay);
  } else if (over) {
    multiplicative_decrease(s, now);
  }
  // Marked below target: the mark is from a queue this flow's delay does not
  // show (another hop, a transient); moving the path is the answer, not the window.

  // A small steady probe in every quadrant, once per base RTT (htsim
  // fulfill_adjustment, period network RTT).
  if (now - s.last_eta >= cfg_.base_rtt) {
    s.cwnd += cfg_.eta * host_->mtu() * s.a;
    s.last_eta = now;
  }
  apply(f, s);
}

void Nscc::proportional_or_fast(State& s, int64_t acked, Time delay) const {
  if (delay < kFastIncreaseDelay) {
    // A whole window acknowledged with no queue at all: the path is empty,
    // grow by a fraction of each ACK (multiplicative per RTT).
    s.fast_run += acked;
    if (s.fast || static_cast<double>(s.fast_run) > s.cwnd) {
      s.cwnd += static_cast<double>(acked) * cfg_.fast_increase * s.a;
      s.fast = true;
      return;
    }
  } else {
    s.fast_run = 0;
  }
  s.fast = false;
  // alpha = prop x MTU x a x b / target with b = target / 12us: the headroom
  // (target - delay) is what the window grows by, in proportion.
  const double b = target_.sec() / kReferenceRtt.sec();
  const double alpha = cfg_.prop_increase * host_->mtu() * s.a * b / static_cast<double>(target_.ps());
  s.cwnd += alpha * static_cast<double>(acked) * static_cast<double>((target_ - delay).ps()) / s.cwnd;
}

void Nscc::multiplicative_decrease(State& s, Time now) const {
  s.fast_run = 0;
  s.fast = false;
  // The average, not the sample, sizes the cut: one late packet is not a
  // standing queue. Once per base RTT, so that the cut is seen before the next.
  const auto target = static_cast<double>(target_.ps());
  if (s.avg_delay <= target || (s.cut_once && now - s.last_cut <= s.base_rtt)) return;
  s.cwnd *= std::max(1 - cfg_.gamma * (s.avg_delay - target) / s.avg_delay, kMaxCut);
  s.cut_once = true;
  s.last_cut = now;
}

void Nscc::sample_delay(State& s, Time delay, bool marked) const {
  // An unmarked long delay is a queue that no switch considers congested
  // (below its ECN threshold, or off the data path): it counts as a quarter
  // base RTT, so it cannot inflate the average that sizes decreases.
  const double x = !marked && delay > target_ ? kUnmarkedSample * static_cast<double>(s.base_rtt.ps())
                                              : static_cast<double>(delay.ps());
  s.avg_delay += cfg_.delay_ewma * (x - s.avg_delay);
}

bool Nscc::quick_adapt(CcFlow& f, State& s, bool loss, bool marked, Time delay) {
  // After a quick adapt, marks and trims of what was already in flight
  // describe the queue it answered: they are not counted again.
  if (marked && s.ignore_bytes > 0) return true;
  const Time now = host_->now();
  if (s.qa_started && now <= s.qa_end) return false;
  bool done = false;
  const double gate = s.max_wnd / static_cast<double>(int64_t{1} << cfg_.qa_gate);
  const bool signal = s.qa_armed || loss || delay.ps() > std::llround(cfg_.qa_delay * target_.ps());
  if (s.qa_started && signal && static_cast<double>(s.achieved) < gate) {
    // Far less got through than the window allows (incast): what did get
    // through in the last interval is what the path can take now.
    s.cwnd = std::max(static_cast<double>(s.achieved), min_window());
    s.ignore_bytes = static_cast<int64_t>(f.nxt - f.una) * host_->mtu();
    s.qa_armed = false;
    // Not in htsim: the window just collapsed, so "a whole window without a
    // queue" must be seen again before fast increase resumes.
    s.fast_run = 0;
    s.fast = false;
    done = true;
  }
  // The next interval: one base RTT plus the target queue drains it.
  s.achieved = 0;
  s.qa_end = now + s.base_rtt + target_;
  s.qa_started = true;
  return done;
}

void Nscc::on_trim(CcFlow& f) {
  State& s = st_[f.id];
  s.ignore_bytes -= host_->mtu();
  // The packet met a queue at the trimming threshold, 1 BDP: one base RTT
  // of delay, marked (htsim updateCwndOnNack).
  sample_delay(s, cfg_.base_rtt, true);
  s.qa_armed = true;
  if (!quick_adapt(f, s, true, true, Time::zero())) take_one_packet(s);
  apply(f, s);
}

void Nscc::on_loss(CcFlow& f) {
  // A loss not known to be congestion (a hole, a drop): one packet less
  // (htsim mark_packet_for_retransmission).
  take_one_packet(st_[f.id]);
  apply(f, st_[f.id]);
}

void Nscc::on_rto(CcFlow& f) {
  State& s = st_[f.id];
  // htsim takes one packet off per timeout. Arming quick adapt as a trim
  // does is this model's assumption: nothing got through for a whole RTO,
  // so the window should fall to what did.
  s.qa_armed = true;
  if (!quick_adapt(f, s, true, false, Time::zero())) take_one_packet(s);
  apply(f, s);
}

void Nscc::take_one_packet(State& s) const { s.cwnd -= static_cast<double>(host_->mtu()); }

void Nscc::apply(CcFlow& f, State& s) const {
  s.cwnd = std::clamp(s.cwnd, min_window(), s.max_wnd);
  f.cwnd_bytes = static_cast<int64_t>(std::floor(s.cwnd));
}

}  // namespace rdmasim
