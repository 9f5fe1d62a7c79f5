#include "metrics/incident.h"

#include <fmt/format.h>

#include <algorithm>

namespace rdmasim {

IncidentMonitor::IncidentMonitor(Simulation& sim, const Fabric& fabric, Time bin, int double_every)
    : sim_(sim), fabric_(fabric), first_bin_(bin), bin_(bin), double_every_(double_every) {
  const Network& net = fabric.net();
  for (size_t n = 0; n < net.num_nodes(); ++n) {
    const Node& node = net.node(n);
    if (node.kind() != NodeKind::kHost) continue;
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const Port& p = node.port(i);
      into_hosts_.push_back(&p.peer()->port(p.peer_index()));
    }
  }
  samples_.push_back(sample());  // time zero: every counter at its start
  sim.schedule(bin, this, 0);
}

IncidentSample IncidentMonitor::sample() const {
  IncidentSample s;
  s.t = sim_.now();
  for (const Port* p : into_hosts_) s.delivered_bytes += p->counters().tx_data_payload_bytes;
  const Verbs verbs = fabric_.verbs();
  s.retransmitted_bytes = verbs.total_stats().retransmitted_bytes;
  for (QpId q = 0; q < verbs.num_qps(); ++q) s.busy_qps += verbs.qp(q).awaiting_delivery() ? 1 : 0;
  const Network& net = fabric_.net();
  size_t k = 0;
  if (xmit_wait_.empty()) {
    size_t ports = 0;
    for (size_t n = 0; n < net.num_nodes(); ++n) ports += net.node(n).num_ports();
    xmit_wait_.assign(ports, Time::zero());
  }
  for (size_t n = 0; n < net.num_nodes(); ++n) {
    const Node& node = net.node(n);
    if (node.kind() == NodeKind::kSwitch)
      s.lossless_drops += static_cast<const Switch&>(node).counters().lossless_drops;
    for (size_t i = 0; i < node.num_ports(); ++i, ++k) {
      const Port& p = node.port(i);
      s.fault_drops += p.counters().fault_drop_packets;  // on InfiniBand, the credit view's included
      // Each link once: its lower-numbered end.
      if (!p.up() && (p.peer()->id() > node.id() || (p.peer()->id() == node.id() && p.peer_index() > i)))
        ++s.links_down;
      bool paused = false;
      for (int tc = 0; tc < kNumTcs && !paused; ++tc) paused = p.paused(static_cast<uint8_t>(tc));
      if (p.credit() != nullptr) {
        // Credit-starved for half the bin or more: InfiniBand's pause.
        const Time w = p.xmit_wait(s.t);
        paused = paused || w - xmit_wait_[k] >= bin_ / 2;
        xmit_wait_[k] = w;
      }
      s.ports_paused += paused ? 1 : 0;
    }
  }
  return s;
}

void IncidentMonitor::on_event(uint32_t, uint64_t) {
  samples_.push_back(sample());  // closes a bin of width bin_
  if (double_every_ > 0 && ++in_width_ == double_every_) {
    bin_ = bin_ * 2;
    in_width_ = 0;
  }
  sim_.schedule(sim_.now() + bin_, this, 0);
}

void IncidentMonitor::finish() {
  if (sim_.now() > samples_.back().t) samples_.push_back(sample());
}

std::string IncidentMonitor::csv() const {
  std::string out =
      "time_us,delivered_gbps,ports_paused,links_down,retransmitted_bytes,fault_drops,lossless_drops\n";
  for (size_t i = 1; i < samples_.size(); ++i) {
    const IncidentSample& a = samples_[i - 1];
    const IncidentSample& b = samples_[i];
    const double gbps =
        static_cast<double>(b.delivered_bytes - a.delivered_bytes) * 8.0 / (b.t - a.t).sec() / 1e9;
    out += fmt::format("{:.3f},{:.3f},{},{},{},{},{}\n", b.t.us(), gbps, b.ports_paused, b.links_down,
                       b.retransmitted_bytes, b.fault_drops, b.lossless_drops);
  }
  return out;
}

namespace {

constexpr size_t kPreFaultBins = 10;

double gbps(const IncidentSample& a, const IncidentSample& b) {
  return static_cast<double>(b.delivered_bytes - a.delivered_bytes) * 8.0 / (b.t - a.t).sec() / 1e9;
}

std::optional<Time> first_after(const std::vector<RecoveryEvent>& log, Time at, Time end,
                                std::initializer_list<const char*> kinds) {
  for (const RecoveryEvent& e : log) {
    if (e.at < at || e.at >= end) continue;
    for (const char* k : kinds)
      if (e.what == k) return e.at - at;
  }
  return std::nullopt;
}

}  // namespace

FaultImpact fault_impact(const std::vector<IncidentSample>& samples, Time at, Time end,
                         const std::vector<RecoveryEvent>& log, std::string what) {
  FaultImpact f;
  f.at = at;
  f.what = std::move(what);
  f.detected_after = first_after(log, at, end, {"detected", "sm_sweep"});
  f.repaired_after = first_after(log, at, end, {"local_repair"});
  f.rerouted_after = first_after(log, at, end, {"reconverged", "lft_install"});
  // Bins [i-1, i]: before the fault are those that end by `at`.
  size_t first_post = 1;
  while (first_post < samples.size() && samples[first_post].t <= at) ++first_post;
  const size_t pre_from = first_post > kPreFaultBins + 1 ? first_post - kPreFaultBins : 1;
  double pre = 0;
  size_t pre_bins = 0;
  for (size_t i = pre_from; i < first_post; ++i, ++pre_bins) pre += gbps(samples[i - 1], samples[i]);
  if (pre_bins > 0) f.pre_fault_gbps = pre / static_cast<double>(pre_bins);
  f.min_gbps = f.pre_fault_gbps.value_or(0.0);
  f.busy_at_fault = samples[first_post - 1].busy_qps;
  size_t last = first_post;
  for (size_t i = first_post; i < samples.size() && samples[i - 1].t < end; ++i) {
    last = i;
    const double r = gbps(samples[i - 1], samples[i]);
    f.peak_ports_paused = std::max(f.peak_ports_paused, samples[i].ports_paused);
    if (f.recovered_after || !f.pre_fault_gbps || *f.pre_fault_gbps <= 0 || f.busy_at_fault == 0) continue;
    const uint32_t busy = samples[i].busy_qps;
    if (busy == 0) continue;  // nothing left to send
    // With fewer connections left than at the fault, a lower rate may be the
    // workload running out (and the slowest flows are the last left); only
    // a stall, nothing delivered at all, is judged then, and once it dipped,
    // delivering again is its recovery.
    const bool full = busy >= f.busy_at_fault;
    const bool stalled = samples[i].delivered_bytes == samples[i - 1].delivered_bytes;
    if (!full && !stalled && !f.dipped) continue;
    if (stalled || (full && r < IncidentMonitor::kRecovered * *f.pre_fault_gbps)) {
      f.dipped = true;
      f.min_gbps = std::min(f.min_gbps, r);
    } else if (f.dipped) {
      f.recovered_after = samples[i].t - at;
    } else {
      f.min_gbps = std::min(f.min_gbps, r);
    }
  }
  // No traffic before the fault: there is no rate to fall from or return to.
  if (!f.dipped && pre_bins > 0 && *f.pre_fault_gbps > 0 && f.busy_at_fault > 0)
    f.recovered_after = Time::zero();
  if (first_post < samples.size() && last < samples.size()) {
    const IncidentSample& a = samples[first_post - 1];
    const IncidentSample& b = samples[last];
    f.retransmitted_bytes = b.retransmitted_bytes - a.retransmitted_bytes;
    f.fault_drops = b.fault_drops - a.fault_drops;
    f.lossless_drops = b.lossless_drops - a.lossless_drops;
  }
  return f;
}

}  // namespace rdmasim
