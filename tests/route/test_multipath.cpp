// Load balancing on a 3-tier fat-tree (VALIDATION.md §D.13, after
// csg-htsim's experiments/fattree-spraying): a permutation of large flows,
// one QP each. With one ECMP path per flow some links carry two or three
// flows while others idle, and the last flow finishes far from its ideal
// serialization time; spraying each flow's packets over many entropy values
// brings it close; Ethernet adaptive routing sits between. Congestion
// control is off on the Ethernet runs so the comparison is of the paths
// alone (PFC keeps them lossless), as the htsim experiment's is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "config/scenario.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

struct Spread {
  double last_over_ideal = 0;
  size_t finished = 0;
  uint64_t retransmitted = 0;
  std::string invariants;
};

Spread permutation(const std::string& profile, const std::string& fabric_extra, int qps = 1) {
  const std::string yaml = R"(name: multipath
seed: 1
duration: 100ms
topology: {type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}
fabric:
  profile: )" + profile + "\n" +
                           fabric_extra +
                           R"(workload:
  - {type: permutation, size: 8MiB, qps: )" +
                           std::to_string(qps) + "}\n";
  Experiment e(load_scenario_text(yaml, "<mp>"));
  e.run();
  Spread s;
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

constexpr const char* kNoCc = "  cc: none\n  ecn: {enabled: false}\n";

TEST(Multipath, SprayingBringsThePermutationCloseToIdealAndEcmpDoesNot) {
  const Spread ecmp = permutation("rocev2-dcqcn", kNoCc);
  const Spread qps8 = permutation("rocev2-dcqcn", kNoCc, 8);
  const Spread ar = permutation("rocev2-dcqcn", std::string(kNoCc) + "  adaptive_routing: true\n");
  const Spread spray = permutation("rocev2-dcqcn", std::string(kNoCc) + "  path_selection: spray\n");
  const Spread spray256 =
      permutation("rocev2-dcqcn", std::string(kNoCc) + "  path_selection: spray\n  spray: {evs: 256}\n");
  const Spread ib_ar = permutation("ib-ndr", "  ib: {adaptive_routing: true}\n");
  for (const Spread* s : {&ecmp, &qps8, &ar, &spray, &spray256, &ib_ar}) {
    EXPECT_EQ(s->finished, 16u);
    EXPECT_EQ(s->retransmitted, 0u);  // reordering is placed, never resent
    EXPECT_EQ(s->invariants, "");
  }
  std::printf(
      "last / ideal: ECMP 1 QP %.2f, 8 QPs %.2f, Ethernet AR %.2f, spray 64 EVs %.2f, 256 EVs %.2f, "
      "IB AR %.2f\n",
      ecmp.last_over_ideal, qps8.last_over_ideal, ar.last_over_ideal, spray.last_over_ideal,
      spray256.last_over_ideal, ib_ar.last_over_ideal);
  EXPECT_GT(ecmp.last_over_ideal, 2.5);   // collisions: some flows share a link all the way
  EXPECT_LT(spray.last_over_ideal, 1.3);  // close to the serialization time
  EXPECT_LT(spray256.last_over_ideal, 1.3);
  EXPECT_LT(spray.last_over_ideal, qps8.last_over_ideal);
  EXPECT_LT(ar.last_over_ideal, ecmp.last_over_ideal);
  EXPECT_LT(ib_ar.last_over_ideal, 1.5);
}

}  // namespace
}  // namespace rdmasim
