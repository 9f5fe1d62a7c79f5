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
  c.cwnd_bytes = static_cast<int64_t>(static_cast<uint32_t>(s.window)) * host_->mtu();
}

void Dctcp::on_ack(CcFlow& c, const AckSample& ack) {
  State& s = st_[c.id];
  ++s.acks;
  if (ack.ece) ++s.marked;
  if (c.una < s.window_end) return;
  // One window of ACKs observed: update alpha, then cut or grow once.
  const double f = s.acks ? static_cast<double>(s.marked) / s.acks : 0.0;
  s.alpha = (1 - cfg_.g) * s.alpha + cfg_.g * f;
  if (s.marked > 0)
    s.window = std::max<double>(cfg_.min_window, s.window * (1 - s.alpha / 2));
  else
    s.window += 1;
  s.acks = s.marked = 0;
  s.window_end = c.una + static_cast<uint64_t>(std::ceil(s.window));
  // The window counts whole packets: RC sends nothing smaller.
  c.cwnd_bytes = static_cast<int64_t>(std::max<double>(1, std::floor(s.window))) * host_->mtu();
}

}  // namespace rdmasim
