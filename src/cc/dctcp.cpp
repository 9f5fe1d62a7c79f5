#include "cc/dctcp.h"

#include <algorithm>
#include <cmath>

namespace rdmasim {

void Dctcp::on_connect(CcFlow& c) {
  if (st_.size() <= c.id) st_.resize(c.id + 1);
  State& s = st_[c.id];
  s = State{};
  s.window = std::max<double>(cfg_.initial_window, cfg_.min_window);
  s.window_end = static_cast<uint64_t>(s.window);
  s.last_una = c.una;
  c.cwnd_bytes = static_cast<int64_t>(static_cast<uint32_t>(s.window)) * host_->mtu();
}

void Dctcp::on_ack(CcFlow& c, const AckSample& ack) {
  State& s = st_[c.id];
  ++s.acks;
  if (ack.ece) ++s.marked;
  if (cfg_.tcp) {
    // Slow start until the first mark or loss (RFC 8257 §3.3 keeps TCP's).
    if (ack.ece && s.ssthresh > s.window) s.ssthresh = s.window;
    if (s.window < s.ssthresh && c.una > s.last_una) {
      s.window = std::min(s.window + static_cast<double>(c.una - s.last_una), s.ssthresh);
      set_window(c, s);
    }
    s.last_una = std::max(s.last_una, c.una);
  }
  if (c.una < s.window_end) return;
  // One window of ACKs observed: update alpha, then cut or grow once.
  const double f = s.acks ? static_cast<double>(s.marked) / s.acks : 0.0;
  s.alpha = (1 - cfg_.g) * s.alpha + cfg_.g * f;
  if (s.marked > 0)
    s.window = std::max<double>(cfg_.min_window, s.window * (1 - s.alpha / 2));
  else if (!cfg_.tcp || s.window >= s.ssthresh)
    s.window += 1;  // congestion avoidance (slow start grew it per ACK above)
  if (cfg_.tcp && s.marked > 0) s.ssthresh = s.window;
  s.acks = s.marked = 0;
  s.window_end = c.una + static_cast<uint64_t>(std::ceil(s.window));
  set_window(c, s);
}

void Dctcp::set_window(CcFlow& c, const State& s) const {
  // The window counts whole packets: RC sends nothing smaller.
  c.cwnd_bytes = static_cast<int64_t>(std::max<double>(1, std::floor(s.window))) * host_->mtu();
}

// RFC 8257 §3.4: a loss gets standard TCP's response, once per window.
void Dctcp::on_loss(CcFlow& c) {
  if (!cfg_.tcp) return;  // the RDMA variant answers marks only
  State& s = st_[c.id];
  if (c.una < s.recover) return;
  s.recover = c.nxt;
  s.window = std::max<double>(cfg_.min_window, std::max(2.0, static_cast<double>(c.nxt - c.una) / 2));
  s.ssthresh = s.window;
  s.window_end = c.nxt;
  set_window(c, s);
}

void Dctcp::on_rto(CcFlow& c) {
  if (!cfg_.tcp) return;
  State& s = st_[c.id];
  s.ssthresh = std::max(2.0, static_cast<double>(c.nxt - c.una) / 2);
  s.window = 1;  // RFC 5681 §3.1: the loss window
  s.recover = c.nxt;
  s.window_end = c.una + 1;
  set_window(c, s);
}

}  // namespace rdmasim
