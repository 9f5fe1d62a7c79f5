#include "cc/ib_cc.h"

#include <algorithm>

namespace rdmasim {

void IbCc::on_connect(CcFlow& c) {
  if (st_.size() <= c.id) st_.resize(c.id + 1);
  st_[c.id] = State{};
  // CCTI_Min is the floor of the index (IBTA Annex A10): a flow starts there, not below it.
  st_[c.id].ccti = cfg_.ccti_min;
  apply(c);
}

void IbCc::apply(CcFlow& c) {
  const uint32_t entry = st_[c.id].ccti * cfg_.cct_step;
  if (entry == 0) {
    c.pace_rate = Rate::from_bps(0);  // line rate
    return;
  }
  const __int128 bps = static_cast<__int128>(c.line_rate.bps()) * 16 / (16 + entry);
  c.pace_rate = Rate::from_bps(static_cast<int64_t>(bps));
}

void IbCc::on_ack(CcFlow& c, const AckSample& ack) {
  if (!ack.ece) return;  // no BECN
  State& s = st_[c.id];
  ++s.becns;
  s.ccti = std::min(cfg_.ccti_limit, s.ccti + cfg_.ccti_increase);
  apply(c);
  if (!s.timer_armed) {
    s.timer_armed = true;
    host_->schedule_cc_timer(c, host_->now() + cfg_.ccti_timer, 0);
  }
}

void IbCc::on_timer(CcFlow& c, uint32_t) {
  State& s = st_[c.id];
  s.timer_armed = false;
  if (s.ccti > cfg_.ccti_min) {
    --s.ccti;
    apply(c);
  }
  if (s.ccti > cfg_.ccti_min) {
    s.timer_armed = true;
    host_->schedule_cc_timer(c, host_->now() + cfg_.ccti_timer, 0);
  }
}

}  // namespace rdmasim
