#include "cc/cubic/cubic.h"

#include <algorithm>
#include <cmath>

namespace rdmasim {

void Cubic::on_connect(CcFlow& f) {
  if (st_.size() <= f.id) st_.resize(f.id + 1);
  st_[f.id] = State{};
  st_[f.id].una = f.una;
  st_[f.id].high_sent = f.nxt;
  apply(f, st_[f.id]);
}

void Cubic::on_send(CcFlow& f, int64_t) {
  State& s = st_[f.id];
  // A resend never reaches past high_sent; timing only new data keeps an
  // ACK of the first copy from being read as a sample of the second.
  if (f.nxt <= s.high_sent) return;
  // t must not count time the application left the window idle (§4.2,
  // §5.8): a flow that had everything acknowledged resumes its curve where
  // the last ACK left it. (A window only partly used is not detected.)
  if (s.in_epoch && s.una >= s.high_sent) s.t_epoch += host_->now() - s.last_ack;
  s.high_sent = f.nxt;
  if (s.timing) return;
  s.timing = true;
  s.timed_seq = f.nxt - 1;
  s.timed_at = host_->now();
}

void Cubic::on_ack(CcFlow& f, const AckSample&) {
  State& s = st_[f.id];
  if (f.una <= s.una) return;  // nothing new acknowledged: not a "new ACK" (§4.1.2)
  const Time now = host_->now();
  if (s.timing && f.una > s.timed_seq) {
    const double r = (now - s.timed_at).sec();
    // RFC 6298 §2.2-2.3 with alpha = 1/8, written so equal samples leave SRTT exact.
    s.srtt = s.srtt == 0 ? r : s.srtt + (r - s.srtt) / 8;
    s.timing = false;
  }
  double acked = static_cast<double>(f.una - s.una);
  s.una = f.una;
  s.last_ack = now;
  if (s.in_recovery) {
    // The window cut on entering recovery holds until everything outstanding
    // then is acknowledged (RFC 6582 §3.2 steps 3-4, as NewReno).
    if (f.una >= s.recover) s.in_recovery = false;
    apply(f, s);
    return;
  }
  if (s.cwnd < s.ssthresh) {
    // Slow start ends at ssthresh (RFC 5681 §3.1); what the same ACK covers
    // beyond it belongs to congestion avoidance, or one ACK could overshoot.
    const double grow = std::min(acked, s.ssthresh - s.cwnd);
    s.cwnd += grow;
    acked -= grow;
  }
  if (acked > 0) congestion_avoidance(s, acked, now);
  apply(f, s);
}

void Cubic::congestion_avoidance(State& s, double acked, Time now) const {
  if (!s.in_epoch) {
    // The stage begins at its first ACK, once recovery is over: t_epoch and
    // cwnd_epoch are where the curve starts (§4.2), W_est too (§4.3).
    s.in_epoch = true;
    s.t_epoch = now;
    s.cwnd_epoch = s.cwnd;
    s.w_est = s.cwnd;
    if (s.after_timeout) {
      // No loss marks a saturation point to climb back to (§4.8).
      s.w_max = s.cwnd;
      s.k = 0;
      s.after_timeout = false;
    } else {
      s.k = std::cbrt((s.w_max - s.cwnd_epoch) / cfg_.c);  // eq. 2
    }
    s.alpha = s.w_est >= s.cwnd_prior ? 1 : 3 * (1 - cfg_.beta) / (1 + cfg_.beta);
  }
  const double t = (now - s.t_epoch).sec();
  s.w_est += s.alpha * acked / s.cwnd;  // eq. 4
  // Past the window Reno would have reached, grow as fast as Reno (§4.3).
  if (s.w_est >= s.cwnd_prior) s.alpha = 1;
  // One RTT ahead, so that a round of ACKs lands on the curve; the bounds
  // keep growth non-decreasing and below slow start's (§4.2).
  s.target = std::clamp(w_cubic(s, t + s.srtt), s.cwnd, 1.5 * s.cwnd);
  if (w_cubic(s, t) < s.w_est) {
    // Reno-friendly region (§4.3). The RFC sets cwnd to W_est; the window
    // may have run a little ahead of W_cubic(t) toward the target, and an
    // ACK should never shrink it.
    s.cwnd = std::max(s.cwnd, s.w_est);
  } else {
    // Concave and convex regions (§4.4, §4.5): (target - cwnd)/cwnd per
    // segment, so one RC ACK covering several packets grows the window as
    // much as one ACK per packet would.
    s.cwnd += (s.target - s.cwnd) / s.cwnd * acked;
  }
}

void Cubic::on_loss(CcFlow& f) {
  State& s = st_[f.id];
  if (s.in_recovery) return;  // one reduction per loss episode
  // Fast convergence (§4.7): a loss below the last saturation point means
  // the flow's share shrank; aiming lower yields bandwidth to newcomers.
  s.w_max = cfg_.fast_convergence && s.cwnd < s.w_max ? s.cwnd * (1 + cfg_.beta) / 2 : s.cwnd;
  s.cwnd_prior = s.cwnd;
  // From flight, not cwnd (§4.6): cwnd may exceed what is actually in flight.
  const auto flight = static_cast<double>(f.nxt - f.una);
  s.ssthresh = std::max(flight * cfg_.beta, kMinSsthresh);
  s.cwnd = s.ssthresh;
  s.recover = f.nxt;
  s.in_recovery = true;
  s.in_epoch = false;
  s.after_timeout = false;
  s.timing = false;  // the timed packet may be resent (Karn)
  apply(f, s);
}

void Cubic::on_rto(CcFlow& f) {
  State& s = st_[f.id];
  // Reno's one segment, but CUBIC's ssthresh (§4.8); the next stage starts
  // with K = 0 (see congestion_avoidance).
  s.cwnd_prior = s.cwnd;
  const auto flight = static_cast<double>(f.nxt - f.una);
  s.ssthresh = std::max(flight * cfg_.beta, kMinSsthresh);
  s.cwnd = 1;
  s.in_recovery = false;
  s.in_epoch = false;
  s.after_timeout = true;
  s.timing = false;
  apply(f, s);
}

double Cubic::w_cubic(const State& s, double t) const {
  const double d = t - s.k;
  return cfg_.c * d * d * d + s.w_max;  // eq. 1
}

void Cubic::apply(CcFlow& f, const State& s) const {
  // The slack keeps a product such as 90 x 0.7 (62.99999999999999) from
  // losing the whole packet it stands for.
  f.cwnd_bytes = static_cast<int64_t>(std::max(1.0, std::floor(s.cwnd + 1e-9))) * host_->mtu();
}

}  // namespace rdmasim
