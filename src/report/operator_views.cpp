#include "report/operator_views.h"

#include <fmt/format.h>

#include <vector>

#include "link/credit.h"
#include "net/switch.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

struct Line {
  std::string name;
  uint64_t value;
};

void add(std::vector<Line>& out, std::string name, uint64_t v) {
  if (v != 0) out.push_back({std::move(name), v});
}

// The host's RDMA hardware counters (mlx5 hw_counters names), summed over
// its QPs as requester and as responder.
struct HostRdma {
  uint64_t local_ack_timeout_err = 0;
  uint64_t packet_seq_err = 0;  // NAKs received: the responder saw a PSN gap
  uint64_t out_of_sequence = 0;
  uint64_t np_cnp_sent = 0;
  uint64_t rp_cnp_handled = 0;
  uint64_t retransmitted_packets = 0;
};

std::vector<HostRdma> host_rdma(const Experiment& e) {
  const Verbs v = e.fabric().verbs();
  std::vector<HostRdma> h(static_cast<size_t>(e.fabric().num_hosts()));
  for (QpId q = 0; q < v.num_qps(); ++q) {
    const QueuePair qp = v.qp(q);
    const QpStats s = qp.stats();
    const QpPath p = qp.path();
    HostRdma& req = h[static_cast<size_t>(p.src)];
    HostRdma& rsp = h[static_cast<size_t>(p.dst)];
    req.local_ack_timeout_err += s.timeouts;
    req.packet_seq_err += s.naks_received;
    req.rp_cnp_handled += s.cnps_received;
    req.retransmitted_packets += s.retransmitted_packets;
    rsp.out_of_sequence += s.out_of_order_discards;
    rsp.np_cnp_sent += s.cnps_sent;
  }
  return h;
}

}  // namespace

std::string operator_counters(const Experiment& e) {
  const Network& net = e.fabric().net();
  const Time now = e.sim().now();
  const std::vector<HostRdma> rdma = host_rdma(e);
  std::string out = fmt::format(
      "# Per-port counters at the end of the run ({:.3f} us), as `ethtool -S` (mlx5 names) and SONiC's\n"
      "# `show queue counters` report them; zero counters and idle ports left out.\n"
      "# pause_duration in microseconds; rx_*_pause_duration: this port held off by its peer.\n",
      now.us());
  int host = 0;
  for (size_t n = 0; n < net.num_nodes(); ++n) {
    const Node& node = net.node(n);
    const bool sw = node.kind() == NodeKind::kSwitch;
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const Port& p = node.port(i);
      const PortCounters& c = p.counters();
      std::vector<Line> l;
      add(l, "tx_packets_phy", c.tx_packets);
      add(l, "tx_bytes_phy", c.tx_bytes);
      add(l, "rx_packets_phy", c.rx_packets);
      add(l, "rx_bytes_phy", c.rx_bytes);
      add(l, "rx_crc_errors_phy", c.corrupt_drop_packets);
      add(l, "rx_oversize_pkts_phy", c.oversize_drop_packets);
      add(l, "link_down_discards", c.fault_drop_packets);
      // Packet trimming (UET): SONiC's trimming counters, per egress port.
      add(l, "trimmed_packets", c.trimmed_packets);
      add(l, "trim_dropped_packets", c.trim_drop_packets);
      for (int tc = 0; tc < kNumTcs; ++tc) {
        const auto t = static_cast<uint8_t>(tc);
        add(l, fmt::format("rx_prio{}_pause", tc), c.pfc_rx_frames[tc]);
        add(l, fmt::format("tx_prio{}_pause", tc), c.pfc_tx_frames[tc]);
        add(l, fmt::format("rx_prio{}_pause_duration", tc),
            static_cast<uint64_t>(p.paused_time(t, now).us()));
        add(l, fmt::format("tx_prio{}_pause_duration", tc),
            static_cast<uint64_t>(p.peer()->port(p.peer_index()).paused_time(t, now).us()));
        if (sw) {
          add(l, fmt::format("queue{}_dropped_packets", tc), c.drop_packets[tc]);
          add(l, fmt::format("queue{}_dropped_bytes", tc), c.drop_bytes[tc]);
          add(l, fmt::format("queue{}_lossless_dropped_packets", tc), c.lossless_drop_packets[tc]);
          add(l, fmt::format("queue{}_ecn_marked_packets", tc), c.ecn_marked_packets[tc]);
          add(l, fmt::format("queue{}_watermark_bytes", tc), c.queue_watermark_bytes[tc]);
        }
      }
      if (!sw && i == 0) {
        const HostRdma& r = rdma[static_cast<size_t>(host)];
        add(l, "out_of_sequence", r.out_of_sequence);
        add(l, "packet_seq_err", r.packet_seq_err);
        add(l, "local_ack_timeout_err", r.local_ack_timeout_err);
        add(l, "np_cnp_sent", r.np_cnp_sent);
        add(l, "rp_cnp_handled", r.rp_cnp_handled);
        add(l, "rdma_retransmitted_packets", r.retransmitted_packets);
      }
      if (l.empty()) continue;
      out += fmt::format("\n{} {}:{} (to {}, {:g} Gb/s{})\n", sw ? "switch" : "nic", node.name(), i,
                         p.peer()->name(), p.rate().gbps(), p.up() ? "" : ", DOWN");
      for (const Line& x : l) out += fmt::format("     {}: {}\n", x.name, x.value);
    }
    if (!sw) ++host;
  }
  return out;
}

std::string ibdiagnet_report(const Experiment& e) {
  const Network& net = e.fabric().net();
  const Time now = e.sim().now();
  std::string ports;
  std::vector<std::string> warnings;
  int nodes = 0, links = 0;
  for (size_t n = 0; n < net.num_nodes(); ++n) {
    const Node& node = net.node(n);
    ++nodes;
    for (size_t i = 0; i < node.num_ports(); ++i) {
      const Port& p = node.port(i);
      const CreditState* cs = p.credit();
      if (cs == nullptr) continue;
      ++links;
      const IbPortCounters& c = cs->ctr;
      uint64_t xd = 0, rd = 0, xp = 0, rp = 0;
      for (const CreditLane& l : cs->lane) {
        xd += l.xmit_data_bytes / 4;  // PortXmitData counts 32-bit words
        rd += l.rcv_data_bytes / 4;
        xp += l.xmit_pkts;
        rp += l.rcv_pkts;
      }
      const uint64_t rcv_errors = p.counters().corrupt_drop_packets;
      const uint64_t discards = p.counters().fault_drop_packets;  // c.fault_drop_packets counts the same
      const double wait_us = p.xmit_wait(now).us();
      const std::string where = fmt::format("{}/P{} (to {})", node.name(), i, p.peer()->name());
      ports += fmt::format("{:<28} {:>14} {:>14} {:>10} {:>10} {:>6} {:>6} {:>6} {:>6} {:>8} {:>14.3f}\n",
                           where, xd, rd, xp, rp, c.symbol_errors, c.link_error_recovery, c.link_downed,
                           rcv_errors, discards, wait_us);
      auto warn = [&](const char* counter, uint64_t v) {
        if (v > 0) warnings.push_back(fmt::format("-W- {}: {} = {} (threshold 0)", where, counter, v));
      };
      warn("SymbolErrorCounter", c.symbol_errors);
      warn("LinkErrorRecoveryCounter", c.link_error_recovery);
      warn("LinkDownedCounter", c.link_downed);
      warn("PortRcvErrors", rcv_errors);
      warn("PortXmitDiscards", discards);
      // Credit-starved for a tenth of the run or more: congestion backing up
      // into this port (what ibdiagnet's congestion check flags).
      if (now > Time::zero() && wait_us >= 0.1 * now.us())
        warnings.push_back(fmt::format("-W- {}: PortXmitWait = {:.3f} us, {:.0f}% of the run (threshold 10%)",
                                       where, wait_us, 100.0 * wait_us / now.us()));
    }
  }
  std::string out = fmt::format(
      "# ibdiagnet-style report at the end of the run ({:.3f} us): the PM counters of every port.\n"
      "# PortXmitData/PortRcvData in 32-bit words as the PMA counts them; PortXmitWait in microseconds.\n\n",
      now.us());
  out += "-I- Performance Monitoring counters\n";
  out += fmt::format("{:<28} {:>14} {:>14} {:>10} {:>10} {:>6} {:>6} {:>6} {:>6} {:>8} {:>14}\n", "port",
                     "PortXmitData", "PortRcvData", "XmitPkts", "RcvPkts", "SymErr", "LnkRec", "LnkDwn",
                     "RcvErr", "XmitDisc", "PortXmitWait");
  out += ports;
  out += "\n-I- Warnings\n";
  for (const std::string& w : warnings) out += w + "\n";
  out += fmt::format("\n-I- Summary: {} nodes, {} ports, {} warnings\n", nodes, links, warnings.size());
  return out;
}

}  // namespace rdmasim
