#include "cc/newreno/newreno.h"

#include <algorithm>
#include <cmath>

namespace rdmasim {

void NewReno::on_connect(CcFlow& f) {
  if (st_.size() <= f.id) st_.resize(f.id + 1);
  st_[f.id] = State{};
  st_[f.id].una = f.una;
  apply(f, st_[f.id]);
}

void NewReno::on_ack(CcFlow& f, const AckSample&) {
  State& s = st_[f.id];
  if (f.una <= s.una) return;  // nothing new acknowledged
  const auto acked = static_cast<double>(f.una - s.una);
  s.una = f.una;
  if (s.in_recovery) {
    // A partial ACK keeps the reduced window; the full ACK ends the episode
    // (RFC 6582 §3.2 steps 3 and 4, without the dupack inflation RC never sees).
    if (f.una >= s.recover) s.in_recovery = false;
    apply(f, s);
    return;
  }
  if (s.cwnd < s.ssthresh)
    s.cwnd += acked;  // slow start: one packet per packet acknowledged
  else
    s.cwnd += acked / s.cwnd;  // congestion avoidance: about one packet per window
  apply(f, s);
}

void NewReno::on_loss(CcFlow& f) {
  State& s = st_[f.id];
  if (s.in_recovery) return;  // one reduction per loss episode
  const auto flight = static_cast<double>(f.nxt - f.una);
  s.ssthresh = std::max(flight / 2, kMinSsthresh);
  s.cwnd = s.ssthresh;
  s.recover = f.nxt;
  s.in_recovery = true;
  apply(f, s);
}

void NewReno::on_rto(CcFlow& f) {
  State& s = st_[f.id];
  const auto flight = static_cast<double>(f.nxt - f.una);
  s.ssthresh = std::max(flight / 2, kMinSsthresh);
  s.cwnd = 1;
  s.in_recovery = false;
  apply(f, s);
}

void NewReno::apply(CcFlow& f, const State& s) const {
  f.cwnd_bytes = static_cast<int64_t>(std::max(1.0, std::floor(s.cwnd))) * host_->mtu();
}

}  // namespace rdmasim
