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

#include "validate/uet_cases.h"

namespace rdmasim {
namespace {

using Spread = PermutationSpread;

Spread permutation(const std::string& profile, const std::string& fabric_extra, int qps = 1) {
  return run_permutation_spread(profile, fabric_extra, qps);
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

// The same permutation with the fabrics' own congestion control on: PLB
// re-paths DCTCP flows after congested rounds; UET sprays over 256 EVs
// under NSCC (and without it, to separate the paths from the control).
// Measured: DCTCP ECMP 3.12, DCTCP PLB 3.12, UET 1.28, UET without NSCC
// 1.39. PLB never re-paths here: DCTCP holds the colliding flows' queue
// near K, and only ~1.5% of each round's ACKs carry ECN-Echo (2,019 marks
// in the run), far below PLB's congested share (0.5, Linux's
// tcp_plb_cong_thresh; 0.05 changes nothing). Without NSCC, UET's senders
// overrun the collisions they still meet and pay trims and resends.
TEST(Multipath, PlbAndUetOnTheSamePermutation) {
  const Spread ecmp = permutation("rocev2-dctcp", "");
  // One long message never idles: PLB must re-path in flight (N = 12, as Linux).
  const Spread plb = permutation("rocev2-dctcp", "  path_selection: plb\n  plb: {forced_rounds: 12}\n");
  const Spread uet = permutation("uet-nscc", "");
  const Spread uet_paths = permutation("uet-nscc", "  cc: none\n  ecn: {enabled: false}\n");
  for (const Spread* s : {&ecmp, &plb, &uet, &uet_paths}) {
    EXPECT_EQ(s->finished, 16u);
    EXPECT_EQ(s->invariants, "");
  }
  std::printf("last / ideal: DCTCP ECMP %.2f, DCTCP PLB %.2f, UET NSCC spray 256 %.2f, UET no CC %.2f\n",
              ecmp.last_over_ideal, plb.last_over_ideal, uet.last_over_ideal, uet_paths.last_over_ideal);
  EXPECT_LT(uet.last_over_ideal, 1.3);
  EXPECT_LT(uet_paths.last_over_ideal, 1.5);
  EXPECT_LT(uet.last_over_ideal, ecmp.last_over_ideal);
  EXPECT_LE(plb.last_over_ideal, ecmp.last_over_ideal);
}

}  // namespace
}  // namespace rdmasim
