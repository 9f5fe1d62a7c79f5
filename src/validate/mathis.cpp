#include "validate/mathis.h"

#include <algorithm>
#include <cmath>

#include "fabric/fabric.h"
#include "fabric/profiles.h"

namespace rdmasim {

MathisRun run_mathis(const MathisSetup& setup) {
  MathisRun r;
  r.loss = setup.loss;
  r.constant = std::sqrt(1.5);
  FabricConfig cfg = find_profile("iwarp-cubic").config;
  cfg.cc = "newreno";
  cfg.tcp.min_rto = setup.min_rto;
  cfg.tcp.delayed_ack = setup.delayed_ack;
  Simulation sim(setup.seed);
  // client -- sw0 -- server; topology node 2 is the switch, its port 1 the server's link.
  Fabric f(sim, make_chain(1, LinkSpec{Rate::from_gbps(100), Time::from_us(50)}), cfg);
  constexpr int kSwitch = 2;
  f.set_link_loss(kSwitch, 1, setup.loss);
  const Port& to_switch = f.node_by_topo_id(kSwitch).port(1);
  f.set_link_loss(to_switch.peer()->id(), to_switch.peer_index(), setup.loss);
  QueuePair qp = f.verbs().create_qp(0, 1, nullptr);
  // The base RTT the ACK clock runs on: the unloaded exchange of one full
  // segment and its ACK, less the doorbell's wait (an ACK-clocked segment
  // leaves at once).
  r.rtt = f.ideal_completion(qp.id(), Opcode::kWrite, kMathisSegmentPayload) - cfg.nic.tx_latency;
  const double formula_segs = r.constant / std::sqrt(setup.loss) / r.rtt.sec();
  r.formula_gbps = formula_segs * kMathisSegmentPayload * 8 / 1e9;
  // Windows counted in expected loss events (one per 1/p segments) at the
  // formula's rate, so each p is measured over as many sawtooth cycles.
  auto span = [&](double losses) { return Time::from_sec_f(losses / setup.loss / formula_segs); };
  const Time warm = span(setup.warmup_losses);
  r.window = span(setup.measure_losses);
  // Far more than the run can move (the run is at most ~7 s at < 10 Gb/s).
  qp.post_write(int64_t{1} << 40, 0);
  sim.run(warm);
  const QpStats start = qp.stats();
  sim.run(warm + r.window);
  const QpStats end = qp.stats();
  r.segments = end.in_order_received - start.in_order_received;
  r.measured_gbps = static_cast<double>(r.segments) * kMathisSegmentPayload * 8 / r.window.sec() / 1e9;
  r.retransmitted = end.retransmitted_packets - start.retransmitted_packets;
  r.timeouts = end.timeouts - start.timeouts;
  const Network& net = f.net();
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i) {
      const PortCounters& c = net.node(n).port(i).counters();
      r.wire_losses += c.corrupt_drop_packets;
      for (const uint64_t q : c.queue_watermark_bytes) r.max_queue_bytes = std::max(r.max_queue_bytes, q);
    }
  r.invariants = f.check_invariants();
  return r;
}

}  // namespace rdmasim
