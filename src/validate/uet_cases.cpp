#include "validate/uet_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "config/scenario.h"
#include "config/shipped_path.h"
#include "run/experiment.h"

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
  out.push_back(
      {"D.13",
       "permutation, k=4 fat-tree, 16 x 8 MiB: last / ideal for ECMP | 8 QPs | PLB | Eth AR | UET | IB AR",
       fmt::format("{:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f}", ecmp.last_over_ideal,
                   qps8.last_over_ideal, plb.last_over_ideal, ar.last_over_ideal, uet.last_over_ideal,
                   ib_ar.last_over_ideal),
       "ECMP > 2.5, UET < 1.3", clean && ecmp.last_over_ideal > 2.5 && uet.last_over_ideal < 1.3});
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
  e.fabric().transport().report(j);
  const auto& u = j["uet"];
  const auto trimmed = u.value("trimmed_received", uint64_t{0});
  const auto nacked = u.value("trim_nacks_sent", uint64_t{0});
  const auto resent = u.value("trim_retransmits", uint64_t{0});
  // Payload over the makespan against the receiver link's payload rate (400G x 4096 / 4218).
  const double busy =
      done > 0 ? static_cast<double>(bytes) * 8 / (last - first).sec() / (400e9 * 4096 / 4218) : 0;
  out.push_back(
      {"D.12", "16-to-1 incast on uet-nscc (trimming): trims NACKed and resent, timeouts, receiver busy",
       fmt::format("{} trims, {} NACKed, {} resent; {} drops, {} timeouts; {:.1f}% busy", trimmed, nacked,
                   resent, drops, st.timeouts, busy * 100),
       "trims > 0, every trim NACKed and resent, 0 drops, 0 timeouts, >= 90% busy",
       done == 16 && e.invariant_error().empty() && trimmed > 0 && nacked == trimmed && resent == nacked &&
           st.retransmitted_packets == resent && drops == 0 && st.timeouts == 0 && busy >= 0.9});
}

}  // namespace

void uet_cases(std::vector<ValidationResult>& out) {
  permutation_case(out);
  incast_case(out);
}

}  // namespace rdmasim
