#include "validate/ib_experiments.h"

#include <algorithm>

#include "engine/rng.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "validate/recording_sink.h"
#include "workload/generators.h"

namespace rdmasim {

IbPermutationRun run_ib_permutation(int k, RoutingEngine engine, bool adaptive, int64_t bytes,
                                    uint64_t seed) {
  const Profile prof = find_profile("ib-ndr");
  FabricConfig cfg = prof.config;
  cfg.ib.sm.engine = engine;
  cfg.ib.sm.adaptive = adaptive;
  Simulation sim(seed);
  Fabric f(sim, make_fat_tree(k, prof.config.link, prof.config.link), cfg);
  Rng rng(seed, "ib-permutation");
  const auto flows = make_permutation(f.num_hosts(), Bytes(bytes), Time::zero(), rng);
  RecordingSink sink;
  for (const auto& fl : flows)
    f.verbs().create_qp(fl.src, fl.dst, &sink, cfg.rc.data_tc).post_write(bytes, 0);
  sim.run(Time::from_s(1));
  IbPermutationRun r;
  r.completed = sink.done.size();
  for (const auto& c : sink.done)
    r.gbps.push_back(static_cast<double>(bytes) * 8 / (c.completed - c.posted).sec() / 1e9);
  if (!r.gbps.empty()) {
    for (double g : r.gbps) r.mean_gbps += g / static_cast<double>(r.gbps.size());
    r.min_gbps = *std::min_element(r.gbps.begin(), r.gbps.end());
  }
  for (uint64_t d : f.net().ledger().dropped) r.dropped += d;
  r.out_of_order_placed += f.verbs().total_stats().out_of_order_placed;
  r.invariants = f.check_invariants();
  return r;
}

namespace {

// Samples the responders' in-order points (epsn) of the watched connections
// at a fixed interval, keeping for each the longest stretch without progress
// that started after `from`, and when progress first resumed after it.
class ProgressSampler final : public EventHandler {
 public:
  ProgressSampler(Fabric& f, std::vector<uint32_t> conns, Time every, Time from)
      : f_(f),
        conns_(std::move(conns)),
        every_(every),
        from_(from),
        last_(conns_.size(), 0),
        since_(conns_.size(), Time::zero()),
        stall_(conns_.size()),
        resumed_(conns_.size()) {}
  void start() { f_.sim().schedule(Time::zero(), this, 0); }
  void on_event(uint32_t, uint64_t) override {
    const Time now = f_.sim().now();
    bool active = false;
    for (size_t i = 0; i < conns_.size(); ++i) {
      const QpStats c = f_.verbs().qp(conns_[i]).stats();
      if (c.in_order_received != last_[i]) {
        if (since_[i] >= from_ && now - since_[i] > stall_[i]) {
          stall_[i] = now - since_[i];
          resumed_[i] = now;
        }
        last_[i] = c.in_order_received;
        since_[i] = now;
      }
      active = active || !f_.verbs().qp(conns_[i]).idle();
    }
    if (active) f_.sim().schedule(now + every_, this, 0);
  }
  Fabric& f_;
  std::vector<uint32_t> conns_;
  Time every_, from_;
  std::vector<uint64_t> last_;
  std::vector<Time> since_, stall_, resumed_;
};

}  // namespace

IbLinkFailureRun run_ib_link_failure(int k, bool adaptive, bool shield, int64_t bytes, Time fail_at,
                                     Time detect, Time compute, uint64_t seed) {
  FabricConfig cfg = find_profile("ib-ndr").config;
  cfg.ib.sm.adaptive = adaptive;
  cfg.ib.sm.shield = shield;
  cfg.ib.sm.detection_delay = detect;
  cfg.ib.sm.compute_time = compute;
  return run_link_failure(cfg, k, bytes, fail_at, seed, Time::from_s(2));
}

LinkFailureRun run_link_failure(const FabricConfig& cfg, int k, int64_t bytes, Time fail_at, uint64_t seed,
                                Time horizon) {
  Simulation sim(seed);
  Fabric f(sim, make_fat_tree(k, cfg.link, cfg.link), cfg);
  Rng rng(seed, "ib-link-failure");
  const auto flows = make_permutation(f.num_hosts(), Bytes(bytes), Time::zero(), rng);
  RecordingSink sink;
  std::vector<uint32_t> conns;
  for (const auto& fl : flows) {
    QueuePair qp = f.verbs().create_qp(fl.src, fl.dst, &sink, cfg.rc.data_tc);
    qp.post_write(bytes, 0);
    conns.push_back(qp.id());
  }
  LinkFailureRun r;
  r.profile = cfg.name;
  r.flows = flows.size();
  r.failed_at = fail_at;
  // The first aggregation -> core hop on any flow's path.
  const Topology& topo = f.topology();
  const Port* victim = nullptr;
  for (uint32_t q : conns) {
    const QpPath c = f.verbs().qp(q).path();
    for (const Port* p : f.path(c.src, c.dst, c.flow_hash, c.src_nic_port))
      if (topo.nodes[p->owner().id()].tier == 2 && topo.nodes[p->peer()->id()].tier == 3) {
        victim = p;
        break;
      }
    if (victim != nullptr) break;
  }
  std::vector<uint32_t> affected;
  if (victim != nullptr) {
    r.failed_link = victim->owner().name() + " -> " + victim->peer()->name();
    for (uint32_t q : conns) {
      const QpPath c = f.verbs().qp(q).path();
      // Data one way, ACKs the other: a flow is hit when either crosses the link.
      for (const auto& [src, dst] : {std::pair{c.src, c.dst}, std::pair{c.dst, c.src}})
        for (const Port* p : f.path(src, dst, c.flow_hash, src == c.src ? c.src_nic_port : 0))
          if (p == victim || (p->owner().id() == victim->peer()->id() && p->peer() == &victim->owner()))
            affected.push_back(q);
    }
    std::sort(affected.begin(), affected.end());
    affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
    f.schedule_link_state(fail_at, victim->owner().id(), victim->index(), false);
  }
  r.affected_flows = static_cast<int>(affected.size());
  ProgressSampler sampler(f, affected, Time::from_ns(100), fail_at);
  sampler.start();
  sim.run(horizon);
  r.completed = sink.done.size();
  for (const RecoveryEvent& e : f.recovery_log()) {
    if ((e.what == "detected" || e.what == "sm_sweep") && r.detected_at == Time::never())
      r.detected_at = e.at;
    if (e.what == "local_repair" && r.repaired_at == Time::never()) r.repaired_at = e.at;
    if ((e.what == "lft_install" || e.what == "reconverged") && r.rerouted_at == Time::never())
      r.rerouted_at = e.at;
  }
  for (size_t i = 0; i < affected.size(); ++i) {
    r.longest_stall = std::max(r.longest_stall, sampler.stall_[i]);
    r.recovered_at = std::max(r.recovered_at, sampler.resumed_[i]);
  }
  r.recovery = r.recovered_at > fail_at ? r.recovered_at - fail_at : Time::zero();
  const Network& net = f.net();
  for (size_t n = 0; n < net.num_nodes(); ++n)
    for (size_t i = 0; i < net.node(n).num_ports(); ++i)
      r.fault_drops += net.node(n).port(i).counters().fault_drop_packets;
  for (uint32_t q : conns) {
    const QpStats c = f.verbs().qp(q).stats();
    r.retransmitted_bytes += c.retransmitted_bytes;
    r.retransmitted_packets += c.retransmitted_packets;
    r.timeouts += c.timeouts;
  }
  r.invariants = f.check_invariants();
  return r;
}

Time vl_buffer_waits(const FabricConfig& cfg, int crossings) {
  // auto and credit-loop in-rack: at most the 128 KiB a port may advertise.
  const uint32_t set = cfg.ib.credit.vl_buffer_bytes;
  const uint64_t b = set != 0 && set != kVlBufferCreditLoop ? set : kMaxAdvertisedCredit;
  return cfg.link.rate.tx_time(Bytes(static_cast<int64_t>(b))) * static_cast<int64_t>(crossings);
}

IbHotSpotRun run_ib_hot_spot(bool ib_cc) {
  Simulation sim(5);
  FabricConfig cfg = find_profile("ib-ndr").config;
  cfg.cc = ib_cc ? "ibcc" : "none";
  cfg.ibcc.threshold_bytes = 64 * 1024;
  const LinkSpec host{Rate::from_gbps(400), Time::from_ns(25)};
  Fabric f(sim, make_dumbbell(9, 2, host, LinkSpec{Rate::from_gbps(4000), Time::from_ns(25)}), cfg);
  RecordingSink hot, victim;
  const int64_t bytes = 8 << 20;
  for (int s = 0; s < 8; ++s) f.verbs().create_qp(s, 9, &hot, 0).post_write(bytes, 0);
  f.verbs().create_qp(8, 10, &victim, 0).post_write(bytes, 0);
  sim.run(Time::from_ms(50));
  IbHotSpotRun r;
  if (victim.done.size() == 1)
    r.victim_gbps =
        static_cast<double>(bytes) * 8 / (victim.done[0].completed - victim.done[0].posted).sec() / 1e9;
  Time last;
  for (const auto& c : hot.done) last = std::max(last, c.completed);
  if (hot.done.size() == 8) r.hotspot_gbps = 8.0 * static_cast<double>(bytes) * 8 / last.sec() / 1e9;
  r.invariants = f.check_invariants();
  return r;
}

}  // namespace rdmasim
