#include "cc/hpcc.h"

#include <algorithm>
#include <cmath>

namespace rdmasim {

double Hpcc::bdp_bytes(Rate r) const {
  // bps x ps / 8e12: exact in doubles for realistic rates and RTTs.
  return static_cast<double>(r.bps()) * static_cast<double>(cfg_.base_rtt.ps()) / 8e12;
}

void Hpcc::on_connect(CcFlow& c) {
  if (st_.size() <= c.id) st_.resize(c.id + 1);
  State& s = st_[c.id];
  s = State{};
  s.w_ai = bdp_bytes(cfg_.rate_ai);
  s.w_max = bdp_bytes(c.line_rate);
  s.w_lo = std::min(bdp_bytes(cfg_.min_rate), s.w_max);
  // Winit = B_NIC x T: a new flow starts at line rate (paper §3.3).
  s.w = s.wc = s.w_max;
  apply(c, s);
}

void Hpcc::on_ack(CcFlow& c, const AckSample& ack) {
  const IntStack* in = ack.telemetry;
  if (in == nullptr || in->n == 0) return;
  State& s = st_[c.id];
  if (!s.have_ref || !same_path(s.last, *in)) {
    // First feedback, or the path changed (adaptive routing, a re-route after
    // a failure): reports from other ports cannot be differenced.
    remember(s, *in);
    s.have_ref = true;
    s.last_update_psn = c.nxt;
    return;
  }
  const double t_ps = static_cast<double>(cfg_.base_rtt.ps());
  double u_max = -1;
  double tau = 0;
  for (int i = 0; i < in->n; ++i) {
    const IntHop& now = in->hop[i];
    const IntHop& prev = s.last.hop[i];
    const int64_t dt = (now.ts - prev.ts).ps();
    if (dt <= 0) continue;  // this hop has not reported anything newer
    const double b_bytes_per_ps = static_cast<double>(now.rate.bps()) / 8e12;
    const double tx_rate = static_cast<double>(now.tx_bytes - prev.tx_bytes) / static_cast<double>(dt);
    const double u = static_cast<double>(std::min(now.qlen, prev.qlen)) / (b_bytes_per_ps * t_ps) +
                     tx_rate / b_bytes_per_ps;
    if (u > u_max) {
      u_max = u;
      tau = static_cast<double>(dt);
    }
  }
  remember(s, *in);
  if (u_max < 0) return;
  tau = std::min(tau, t_ps);
  s.u = (1 - tau / t_ps) * s.u + tau / t_ps * u_max;

  // Per-RTT reference update once the ACK covers what was sent after the last one.
  const bool update_wc = ack.seq >= s.last_update_psn;
  double w;
  if (s.u >= cfg_.eta || s.inc_stage >= cfg_.max_stage) {
    w = s.u > 0 ? s.wc / (s.u / cfg_.eta) : s.wc;
    if (update_wc) s.inc_stage = 0;
  } else {
    w = s.wc;
    if (update_wc) ++s.inc_stage;
  }
  w += s.w_ai;
  s.w = std::clamp(w, s.w_lo, s.w_max);
  if (update_wc) {
    s.wc = s.w;
    s.last_update_psn = c.nxt;
  }
  apply(c, s);
}

bool Hpcc::same_path(const IntStack& a, const IntStack& b) {
  if (a.n != b.n) return false;
  for (int i = 0; i < a.n; ++i)
    if (a.hop[i].port_id != b.hop[i].port_id) return false;
  return true;
}

void Hpcc::remember(State& s, const IntStack& in) {
  s.last.n = in.n;  // only the hops in use: a full stack copy per ACK is measurable
  std::copy_n(in.hop.begin(), in.n, s.last.hop.begin());
}

void Hpcc::apply(CcFlow& c, const State& s) const {
  const auto mtu = static_cast<double>(host_->mtu());
  // W rounded up to whole packets: the sender cannot send part of one.
  c.cwnd_bytes = static_cast<int64_t>(std::max(1.0, std::ceil(s.w / mtu - 1e-9))) * host_->mtu();
  // R = W / T; at the full window the NIC simply runs at line rate.
  const Rate line = c.line_rate;
  const auto bps = std::llround(s.w * 8e12 / static_cast<double>(cfg_.base_rtt.ps()));
  c.pace_rate = bps >= line.bps() ? Rate() : Rate::from_bps(bps);
}

}  // namespace rdmasim
