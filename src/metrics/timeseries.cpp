#include "metrics/timeseries.h"

#include <fmt/format.h>

namespace rdmasim {

void QueueTimeseries::on_event(uint32_t, uint64_t) {
  ++samples_;
  const Time now = sim_.now();
  Spread spread{now.ps(), 0, 0};
  for (size_t n = 0; n < net_.num_nodes(); ++n) {
    const Node& node = net_.node(n);
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const Port& p = node.port(i);
      bool port_paused = false;
      for (int tc = 0; tc < kNumTcs; ++tc) {
        const uint64_t q = p.queues().bytes(tc);
        const bool paused = p.paused(static_cast<uint8_t>(tc));
        port_paused = port_paused || paused;
        if (q == 0 && !paused) continue;
        if (rows_.size() >= kMaxRows) {
          ++dropped_;
          continue;
        }
        rows_.push_back(Row{now.ps(), static_cast<uint32_t>(n), static_cast<uint16_t>(i),
                            static_cast<uint8_t>(tc), paused, q});
      }
      if (port_paused) ++(node.kind() == NodeKind::kSwitch ? spread.switch_ports : spread.host_ports);
    }
  }
  if (spread_.size() < kMaxRows) spread_.push_back(spread);
  sim_.schedule(now + interval_, this, 0);
}

std::string QueueTimeseries::ports_paused_csv() const {
  std::string out = "time_ns,ports_paused,switch_ports_paused,host_ports_paused\n";
  for (const Spread& s : spread_)
    out += fmt::format("{}.{:03d},{},{},{}\n", s.t_ps / 1000, s.t_ps % 1000, s.switch_ports + s.host_ports,
                       s.switch_ports, s.host_ports);
  return out;
}

std::string QueueTimeseries::csv() const {
  std::string out = "time_ns,node,port,tc,queue_bytes,paused\n";
  out.reserve(out.size() + rows_.size() * 40);
  for (const Row& r : rows_)
    out += fmt::format("{}.{:03d},{},{},{},{},{}\n", r.t_ps / 1000, r.t_ps % 1000, net_.node(r.node).name(),
                       r.port, r.tc, r.bytes, r.paused ? 1 : 0);
  return out;
}

}  // namespace rdmasim
