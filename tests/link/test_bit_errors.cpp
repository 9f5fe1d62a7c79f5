// Bit errors (links[].ber): a frame of w wire bytes is corrupted with
// probability 1 - (1 - ber)^(8w) and discarded by the receiving port, on
// every link type. Checked against that binomial: one WRITE whose data
// crosses a link with bit errors on its sending side only, so every frame
// that side sends is a data frame (credit updates and PAUSE are spared).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "config/scenario.h"
#include "run/experiment.h"

namespace rdmasim {
namespace {

struct BerOutcome {
  uint64_t frames = 0;     // data frames h0 sent (first copies and resends)
  uint64_t corrupted = 0;  // discarded at the switch on a bad FCS
  uint32_t wire = 0;       // bytes of a full data frame
  bool finished = false;
  std::string invariants;
};

BerOutcome run_ber(const std::string& profile, const std::string& mtu_line, double ber) {
  const std::string yaml = R"(name: ber
seed: 5
duration: 2s
topology: {type: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
fabric:
  profile: )" + profile + "\n" +
                           mtu_line +
                           R"(workload:
  - {type: flow, src: 0, dst: 1, size: 8MiB}
links:
  - {link: "h0:0", direction: out, ber: )" +
                           std::to_string(ber) + "}\n";
  Experiment e(load_scenario_text(yaml, "<ber>"));
  e.run();
  BerOutcome o;
  const Port& tx = e.fabric().node_by_topo_id(e.fabric().topology().hosts[0]).port(0);
  const Port& rx = tx.peer()->port(tx.peer_index());
  o.frames = tx.counters().tx_packets;
  if (tx.credit() != nullptr) o.frames -= tx.credit()->ctr.fcp_sent;
  o.frames -= tx.counters().pfc_tx_frames[3];  // a NIC sends none here, but they would be spared
  o.corrupted = rx.counters().corrupt_drop_packets;
  const FabricConfig& f = e.fabric().config();
  o.wire = f.framing.data_wire(f.rc.mtu, false);
  o.finished = e.flows().front().finished();
  o.invariants = e.invariant_error();
  return o;
}

void expect_binomial(const BerOutcome& o, double ber, const char* what) {
  const double p = -std::expm1(8.0 * o.wire * std::log1p(-ber));
  const double n = static_cast<double>(o.frames);
  const double mean = n * p;
  const double sd = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(o.corrupted), mean, 4 * sd)
      << what << ": " << o.frames << " frames of " << o.wire << " B, p = " << p;
  std::printf("%s: %llu data frames of %u B at BER %g: %llu corrupted, binomial %.1f +- %.1f\n", what,
              static_cast<unsigned long long>(o.frames), o.wire, ber,
              static_cast<unsigned long long>(o.corrupted), mean, sd);
  EXPECT_GT(o.corrupted, 0u) << what;
  EXPECT_TRUE(o.finished) << what;
  EXPECT_EQ(o.invariants, "") << what;
}

TEST(BitErrors, CorruptedFramesFollowTheBinomialOnEveryLinkType) {
  const double ber = 2e-6;
  // Ethernet lossy, RoCEv2 with PFC, and InfiniBand credits: the lost
  // frames' credits come back (FCTBS resync), so the link never runs dry.
  // A resend lost again waits for the local ACK timeout (67 ms on ib-ndr:
  // the responder NAKs a PSN gap once), hence the long duration.
  expect_binomial(run_ber("ethernet-lossy", "", ber), ber, "ethernet-lossy");
  expect_binomial(run_ber("rocev2-dcqcn", "", ber), ber, "rocev2-dcqcn");
  expect_binomial(run_ber("ib-ndr", "", ber), ber, "ib-ndr");
}

TEST(BitErrors, LargerFramesAreCorruptedMoreOften) {
  // The same BER costs a 4 KiB-MTU frame about four times what it costs a
  // 1 KiB one: the share of corrupted frames scales with their bits.
  const double ber = 2e-6;
  const BerOutcome small = run_ber("ethernet-lossy", "  mtu: 1KiB\n", ber);
  const BerOutcome big = run_ber("ethernet-lossy", "  mtu: 4KiB\n", ber);
  const double share_small = static_cast<double>(small.corrupted) / static_cast<double>(small.frames);
  const double share_big = static_cast<double>(big.corrupted) / static_cast<double>(big.frames);
  EXPECT_GT(share_big / share_small, 3.0);
  EXPECT_LT(share_big / share_small, 5.0);
}

}  // namespace
}  // namespace rdmasim
