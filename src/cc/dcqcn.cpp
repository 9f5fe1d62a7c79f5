#include "cc/dcqcn.h"

#include <algorithm>
#include <cmath>

namespace rdmasim {

void Dcqcn::on_connect(CcFlow& c) {
  if (st_.size() <= c.id) st_.resize(c.id + 1);
  State& s = st_[c.id];
  s = State{};
  s.rc_bps = s.rt_bps = static_cast<double>(c.line_rate.bps());
  s.alpha = cfg_.initial_alpha;
  s.alpha_at = host_->now();
  apply(c, s);
}

void Dcqcn::decay_alpha(State& s, Time now) const {
  // alpha <- (1-g) alpha once per alpha_timer without a CNP; applied lazily,
  // for every whole period elapsed, instead of with a timer per QP.
  const int64_t periods = (now - s.alpha_at).ps() / cfg_.alpha_timer.ps();
  if (periods <= 0) return;
  s.alpha *= std::pow(1.0 - cfg_.g, static_cast<double>(periods));
  s.alpha_at += cfg_.alpha_timer * periods;
}

void Dcqcn::on_cnp(CcFlow& c) {
  State& s = st_[c.id];
  const Time now = host_->now();
  // A NIC that starts its reaction point at the first CNP sets alpha then and
  // leaves the first update to the alpha timer.
  const bool starts_now = cfg_.start_at_first_cnp && !s.notified;
  s.notified = true;
  if (starts_now)
    s.alpha = cfg_.initial_alpha;
  else
    decay_alpha(s, now);
  // With a rate-decrease interval, cuts happen on its ticks: a NIC whose RP
  // starts now makes its first cut one interval later, and a CNP within an
  // interval of the last cut waits for the next tick.
  const Time interval = cfg_.rate_decrease_interval;
  const bool first_tick = starts_now && interval > Time::zero();
  if (first_tick || (s.last_cut.ps() >= 0 && now < s.last_cut + interval)) {
    if (!s.cut_pending) host_->schedule_cc_timer(c, (first_tick ? now : s.last_cut) + interval, kCutTag);
    s.cut_pending = true;
  } else {
    cut(c, s, now);  // with alpha as it stands: the paper cuts, then updates alpha
  }
  if (!starts_now) s.alpha = (1 - cfg_.g) * s.alpha + cfg_.g;
  s.alpha_at = now;
}

void Dcqcn::cut(CcFlow& c, State& s, Time now) {
  if (cfg_.clamp_target_rate || s.timer_stage > 0 || s.byte_stage > 0) s.rt_bps = s.rc_bps;
  s.rc_bps = std::max(s.rc_bps * (1 - s.alpha / 2), static_cast<double>(cfg_.min_rate.bps()));
  s.timer_stage = 0;
  s.byte_stage = 0;
  s.bytes = 0;
  s.last_cut = now;
  s.cut_pending = false;
  if (++s.epoch == kCutTag) s.epoch = 0;
  host_->schedule_cc_timer(c, now + cfg_.increase_timer, s.epoch);
  apply(c, s);
}

void Dcqcn::on_send(CcFlow& c, int64_t payload) {
  State& s = st_[c.id];
  if (cfg_.byte_counter == 0 || s.rc_bps >= static_cast<double>(c.line_rate.bps())) return;
  s.bytes += payload;
  if (s.bytes >= cfg_.byte_counter) {
    s.bytes -= cfg_.byte_counter;
    increase(c, s);
    ++s.byte_stage;
  }
}

void Dcqcn::on_timer(CcFlow& c, uint32_t tag) {
  State& s = st_[c.id];
  if (tag == kCutTag) {
    if (s.cut_pending) {
      decay_alpha(s, host_->now());
      cut(c, s, host_->now());
    }
    return;
  }
  if (tag != s.epoch) return;  // a cut restarted the timer since
  increase(c, s);
  ++s.timer_stage;
  if (s.rc_bps < static_cast<double>(c.line_rate.bps()))
    host_->schedule_cc_timer(c, host_->now() + cfg_.increase_timer, s.epoch);
}

void Dcqcn::increase(CcFlow& c, State& s) {
  const double line = static_cast<double>(c.line_rate.bps());
  // The stages count the events before this one: F events recover fast.
  const int f = cfg_.fast_recovery_steps;
  const int most = cfg_.byte_counter == 0 ? s.timer_stage : std::max(s.timer_stage, s.byte_stage);
  const int least = cfg_.byte_counter == 0 ? s.timer_stage : std::min(s.timer_stage, s.byte_stage);
  if (most < f) {
    // fast recovery: towards the rate before the last cut
  } else if (least > f) {
    s.rt_bps += static_cast<double>(cfg_.rate_hai.bps());
  } else {
    s.rt_bps += static_cast<double>(cfg_.rate_ai.bps());
  }
  s.rt_bps = std::min(s.rt_bps, line);
  s.rc_bps = std::min((s.rt_bps + s.rc_bps) / 2, line);
  apply(c, s);
}

void Dcqcn::apply(CcFlow& c, const State& s) const {
  c.pace_rate = Rate::from_bps(static_cast<int64_t>(s.rc_bps));
}

}  // namespace rdmasim
