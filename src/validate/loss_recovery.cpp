#include "validate/loss_recovery.h"

#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "validate/recording_sink.h"

namespace rdmasim {

LossRecoveryRun run_loss_recovery(LossRecovery mode, double loss, int messages, int64_t bytes, Time horizon,
                                  uint64_t seed) {
  FabricConfig cfg = find_profile("ethernet-lossy").config;
  cfg.rc.recovery = mode;
  // Above a whole 4 MB message's time on the wire: go-back-0 ACKs only at a message's end.
  cfg.rc.rto = Time::from_ms(1);
  Simulation sim(seed);
  // h0 -- sw0 -- h1: topology node 2 is the switch, its port 1 the receiver's link.
  Fabric f(sim, make_chain(1, LinkSpec{Rate::from_gbps(100), Time::from_us(1)}), cfg);
  constexpr int kSwitch = 2;
  f.set_link_loss(kSwitch, 1, loss);
  RecordingSink sink;
  QueuePair qp = f.verbs().create_qp(0, 1, &sink);
  for (int m = 0; m < messages; ++m) qp.post_write(bytes, static_cast<uint64_t>(m));
  sim.run(horizon);
  LossRecoveryRun r;
  r.mode = mode;
  r.loss = loss;
  r.messages = messages;
  r.completed = static_cast<int>(sink.done.size());
  const Time took = r.completed == messages ? sink.done.back().completed : horizon;
  r.goodput_gbps = static_cast<double>(bytes) * r.completed * 8 / took.sec() / 1e9;
  r.retransmitted_packets = qp.stats().retransmitted_packets;
  r.wire_losses = f.node_by_topo_id(1).port(0).counters().corrupt_drop_packets;
  r.invariants = f.check_invariants();
  return r;
}

}  // namespace rdmasim
