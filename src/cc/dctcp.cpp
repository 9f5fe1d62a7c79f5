#include "cc/dctcp.h"

#include <algorithm>
#include <cmath>

#include "transport/rc.h"

namespace rdmasim {

void Dctcp::on_connect(RcConnection& c) {
  if (st_.size() <= c.id) st_.resize(c.id + 1);
  State& s = st_[c.id];
  s = State{};
  s.window = std::max<double>(cfg_.initial_window, cfg_.min_window);
  s.window_end = static_cast<uint64_t>(s.window);
  c.cwnd = static_cast<uint32_t>(s.window);
}

void Dctcp::on_ack(RcConnection& c, const Packet& ack) {
  State& s = st_[c.id];
  ++s.acks;
  if (ack.flags & kCe) ++s.marked;
  if (c.snd_una < s.window_end) return;
  // One window of ACKs observed: update alpha, then cut or grow once.
  const double f = s.acks ? static_cast<double>(s.marked) / s.acks : 0.0;
  s.alpha = (1 - cfg_.g) * s.alpha + cfg_.g * f;
  if (s.marked > 0)
    s.window = std::max<double>(cfg_.min_window, s.window * (1 - s.alpha / 2));
  else
    s.window += 1;
  s.acks = s.marked = 0;
  s.window_end = c.snd_una + static_cast<uint64_t>(std::ceil(s.window));
  c.cwnd = static_cast<uint32_t>(std::max<double>(1, std::floor(s.window)));
}

}  // namespace rdmasim
