#include "cc/timely.h"

#include <algorithm>

namespace rdmasim {

void Timely::on_connect(CcFlow& c) {
  if (st_.size() <= c.id) st_.resize(c.id + 1);
  st_[c.id] = State{};
  st_[c.id].rate_bps = static_cast<double>(c.line_rate.bps());
  c.pace_rate = c.line_rate;
}

void Timely::on_ack(CcFlow& c, const AckSample& ack) {
  State& s = st_[c.id];
  if (ack.echoed_sent_at == Time::zero()) return;  // no timestamp echoed
  const double rtt = static_cast<double>((host_->now() - ack.echoed_sent_at).ps());
  if (!s.have_prev) {
    s.prev_rtt_ps = rtt;
    s.have_prev = true;
    s.una_at_update = c.una;
    return;
  }
  // One update per segment of ACKed data, as TIMELY updates per completion.
  if (static_cast<int64_t>(c.una - s.una_at_update) * host_->mtu() < cfg_.segment_bytes) return;
  s.una_at_update = c.una;
  const double diff = rtt - s.prev_rtt_ps;
  s.prev_rtt_ps = rtt;
  s.rtt_diff_ps = (1 - cfg_.ewma_alpha) * s.rtt_diff_ps + cfg_.ewma_alpha * diff;
  const double gradient = s.rtt_diff_ps / static_cast<double>(cfg_.min_rtt.ps());
  const double delta = static_cast<double>(cfg_.delta.bps());
  if (rtt < static_cast<double>(cfg_.t_low.ps())) {
    s.rate_bps += delta;
    s.negative_run = 0;
  } else if (rtt > static_cast<double>(cfg_.t_high.ps())) {
    s.rate_bps *= 1 - cfg_.beta * (1 - static_cast<double>(cfg_.t_high.ps()) / rtt);
    s.negative_run = 0;
  } else if (gradient <= 0) {
    ++s.negative_run;
    s.rate_bps += (s.negative_run >= cfg_.hai_after ? cfg_.hai_after : 1) * delta;
  } else {
    // A burst can make the normalized gradient exceed 1/beta; one update
    // never cuts by more than half, so the rate cannot collapse to the floor.
    s.rate_bps *= std::max(0.5, 1 - cfg_.beta * gradient);
    s.negative_run = 0;
  }
  s.rate_bps = std::clamp(s.rate_bps, static_cast<double>(cfg_.min_rate.bps()),
                          static_cast<double>(c.line_rate.bps()));
  c.pace_rate = Rate::from_bps(static_cast<int64_t>(s.rate_bps));
}

}  // namespace rdmasim
