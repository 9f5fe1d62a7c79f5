#include "validate/uet_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "config/scenario.h"
#include "config/shipped_path.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "run/experiment.h"
#include "topo/topology.h"
#include "validate/recording_sink.h"
#include "verbs/verbs.h"

namespace rdmasim {

PermutationSpread run_permutation_spread(const std::string& profile, const std::string& fabric_extra,
                                         int qps) {
  const std::string yaml =
      "name: multipath\nseed: 1\nduration: 100ms\n"
      "topology: {type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n"
      "fabric:\n  profile: " +
      profile + "\n" + fabric_extra +
      "workload:\n  - {type: permutation, size: 8MiB, qps: " + std::to_string(qps) + "}\n";
  Experiment e(load_scenario_text(yaml, "<permutation>"));
  e.run();
  PermutationSpread s;
  double last = 0, ideal = 0;
  for (const auto& f : e.flows()) {
    if (!f.finished()) continue;
    ++s.finished;
    last = std::max(last, f.fct().us());
    ideal = std::max(ideal, f.ideal.us());
  }
  s.last_over_ideal = ideal > 0 ? last / ideal : 0;
  s.retransmitted = e.fabric().verbs().total_stats().retransmitted_packets;
  s.invariants = e.invariant_error();
  return s;
}

UetIncastRun run_uet_incast(const std::string& profile, int senders, int64_t bytes, Time from, Time to,
                            bool tuned) {
  Simulation sim(11);
  FabricConfig cfg = find_profile(profile).config;
  if (tuned) {
    Simulation probe_sim(1);
    const Fabric probe(probe_sim, make_star(senders + 1, cfg.link), cfg);
    const double bdp = static_cast<double>(cfg.link.rate.bytes_in(probe.unloaded_rtt()).count());
    cfg.sw.ecn.kmin_bytes = static_cast<uint64_t>(0.2 * bdp);
    cfg.sw.ecn.kmax_bytes = static_cast<uint64_t>(0.8 * bdp);
    cfg.sw.trim.threshold_bytes = static_cast<uint64_t>(bdp);
  }
  Fabric f(sim, make_star(senders + 1, cfg.link), cfg);
  RecordingSink rec;
  std::vector<QueuePair> qps;
  qps.reserve(static_cast<size_t>(senders));
  for (int s = 0; s < senders; ++s) {
    qps.push_back(f.verbs().create_qp(s, senders, &rec, cfg.rc.data_tc));
    qps.back().post_write(bytes, static_cast<uint64_t>(s));
  }
  const Switch& sw = *f.switches()[0];
  const Port* rx = nullptr;  // the switch port toward the receiver
  for (size_t i = 0; i < sw.num_ports(); ++i)
    if (sw.port(i).peer() == &f.nic(senders)) rx = &sw.port(i);
  sim.run(from);
  std::vector<uint64_t> at_from;
  at_from.reserve(qps.size());
  for (const QueuePair& q : qps) at_from.push_back(q.stats().in_order_received);
  const uint64_t payload_from = rx->counters().tx_data_payload_bytes;
  double queue_sum = 0, max_queue = 0;
  int samples = 0;
  for (Time t = from; t < to; t += Time::from_us(1)) {
    sim.run(t);
    const auto q = static_cast<double>(rx->queues().total_bytes());
    queue_sum += q;
    max_queue = std::max(max_queue, q);
    ++samples;
  }
  sim.run(to);
  UetIncastRun r;
  const double window = (to - from).sec();
  const double mtu = static_cast<double>(cfg.uet.mtu);
  const double share = mtu / static_cast<double>(cfg.framing.data_wire(cfg.uet.mtu, false));
  for (size_t i = 0; i < qps.size(); ++i)
    r.share_gbps.push_back(static_cast<double>(qps[i].stats().in_order_received - at_from[i]) * mtu * 8 /
                           window / 1e9);
  const double line = static_cast<double>(cfg.link.rate.bps());
  r.busy =
      static_cast<double>(rx->counters().tx_data_payload_bytes - payload_from) * 8 / window / (line * share);
  r.mean_queue_us = samples > 0 ? queue_sum / samples / (line / 8) * 1e6 : 0;
  r.max_queue_us = max_queue / (line / 8) * 1e6;
  // NSCC's target by the rule (VALIDATION D.12): 0.75 x the base RTT with trimming.
  if (cfg.cc == "nscc") {
    const Time base = cfg.nscc.base_rtt != Time::zero() ? cfg.nscc.base_rtt : f.unloaded_rtt();
    r.target = cfg.nscc.target_qdelay != Time::zero()
                   ? cfg.nscc.target_qdelay
                   : Time::from_ps(cfg.sw.trim.enabled ? base.ps() * 3 / 4 : base.ps());
  }
  sim.run(to + Time::from_ms(50));
  r.done = rec.done.size();
  for (const QueuePair& q : qps) {
    r.timeouts += q.stats().timeouts;
    r.retransmitted += q.stats().retransmitted_packets;
  }
  for (size_t i = 0; i < sw.num_ports(); ++i) r.trimmed += sw.port(i).counters().trimmed_packets;
  r.drops = sw.counters().buffer_drops;
  nlohmann::ordered_json j;
  f.verbs().report(j);
  r.uet = j["uet"];
  r.invariants = f.check_invariants();
  return r;
}

namespace {

// D.13: one ECMP path per flow against the multipath answers, on the same
// fat-tree and flows. Congestion control off on the RoCE runs (the paths
// alone, PFC keeping them lossless, as the htsim experiment); UET runs its
// profile (NSCC, trimming).
void permutation_case(std::vector<ValidationResult>& out) {
  constexpr const char* kNoCc = "  cc: none\n  ecn: {enabled: false}\n";
  const PermutationSpread ecmp = run_permutation_spread("rocev2-dcqcn", kNoCc);
  const PermutationSpread qps8 = run_permutation_spread("rocev2-dcqcn", kNoCc, 8);
  const PermutationSpread plb =
      run_permutation_spread("rocev2-dctcp", "  path_selection: plb\n  plb: {forced_rounds: 12}\n");
  const PermutationSpread ar =
      run_permutation_spread("rocev2-dcqcn", std::string(kNoCc) + "  adaptive_routing: true\n");
  const PermutationSpread uet = run_permutation_spread("uet-nscc", "");
  const PermutationSpread ib_ar = run_permutation_spread("ib-ndr", "  ib: {adaptive_routing: true}\n");
  bool clean = true;
  for (const PermutationSpread* s : {&ecmp, &qps8, &plb, &ar, &uet, &ib_ar})
    clean = clean && s->finished == 16 && s->invariants.empty();
  out.emplace_back(
      "D.13",
      "permutation, k=4 fat-tree, 16 x 8 MiB: last / ideal for ECMP | 8 QPs | PLB | Eth AR | UET | IB AR",
      fmt::format("{:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f}", ecmp.last_over_ideal,
                  qps8.last_over_ideal, plb.last_over_ideal, ar.last_over_ideal, uet.last_over_ideal,
                  ib_ar.last_over_ideal),
      "ECMP > 2.5, UET < 1.3", clean && ecmp.last_over_ideal > 2.5 && uet.last_over_ideal < 1.3);
}

// D.12: the shipped 16-to-1 incast on uet-nscc: trims instead of drops,
// each NACKed and resent, no timeout, the receiver's link busy.
void incast_case(std::vector<ValidationResult>& out) {
  Experiment e(load_scenario_file(find_shipped("scenarios/uet-incast.yaml"), {}));
  e.run();
  size_t done = 0;
  Time first = Time::never(), last = Time::zero();
  int64_t bytes = 0;
  for (const FlowRecord& f : e.flows()) {
    if (!f.finished()) continue;
    ++done;
    first = std::min(first, f.spec.start);
    last = std::max(last, f.spec.start + f.fct());
    bytes += f.spec.size_bytes;
  }
  uint64_t drops = 0;
  for (const Switch* sw : e.fabric().switches()) drops += sw->counters().buffer_drops;
  const QpStats st = e.fabric().verbs().total_stats();
  nlohmann::ordered_json j;
  e.fabric().verbs().report(j);
  const auto& u = j["uet"];
  const auto trimmed = u.value("trimmed_received", uint64_t{0});
  const auto nacked = u.value("trim_nacks_sent", uint64_t{0});
  const auto resent = u.value("trim_retransmits", uint64_t{0});
  // Payload over the makespan against the receiver link's payload rate (400G x 4096 / 4218).
  const double busy =
      done > 0 ? static_cast<double>(bytes) * 8 / (last - first).sec() / (400e9 * 4096 / 4218) : 0;
  out.emplace_back(
      "D.12", "16-to-1 incast on uet-nscc (trimming): trims NACKed and resent, timeouts, receiver busy",
      fmt::format("{} trims, {} NACKed, {} resent; {} drops, {} timeouts; {:.1f}% busy", trimmed, nacked,
                  resent, drops, st.timeouts, busy * 100),
      "trims > 0, every trim NACKed and resent, 0 drops, 0 timeouts, >= 90% busy",
      done == 16 && e.invariant_error().empty() && trimmed > 0 && nacked == trimmed && resent == nacked &&
          st.retransmitted_packets == resent && drops == 0 && st.timeouts == 0 && busy >= 0.9);
}

// D.12 with RCCC: 16 senders into one 400G port; after the first round,
// the receiver's queue stays within its grant budget, well below NSCC's.
void rccc_case(std::vector<ValidationResult>& out) {
  const UetIncastRun nscc = run_uet_incast("uet-nscc", 16, 8 << 20, Time::from_us(50), Time::from_us(1500));
  const UetIncastRun rccc =
      run_uet_incast("uet-nscc-rccc", 16, 8 << 20, Time::from_us(50), Time::from_us(1500));
  out.emplace_back(
      "D.12", "16-to-1 incast, 400G: receiver queue after 50 us (max) and trims, NSCC -> NSCC + RCCC",
      fmt::format("{:.2f} -> {:.2f} us; {} -> {} trims; {:.1f}% busy, {} timeouts", nscc.max_queue_us,
                  rccc.max_queue_us, nscc.trimmed, rccc.trimmed, rccc.busy * 100, rccc.timeouts),
      "RCCC max < 0.5 x NSCC's, fewer trims, >= 95% busy, 0 timeouts",
      rccc.done == 16 && nscc.done == 16 && rccc.invariants.empty() && nscc.invariants.empty() &&
          rccc.max_queue_us < 0.5 * nscc.max_queue_us && rccc.trimmed < nscc.trimmed && rccc.busy >= 0.95 &&
          rccc.timeouts == 0);
}

}  // namespace

void uet_cases(std::vector<ValidationResult>& out) {
  permutation_case(out);
  incast_case(out);
  rccc_case(out);
}

}  // namespace rdmasim
