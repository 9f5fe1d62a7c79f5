// The UET keys: read, echoed and refused where they would do nothing. A
// UET key on another fabric, an EV set of 0, a trim size below the headers
// the NACK needs, and ordered delivery over spraying are refused at their
// key (exit 2 at the command line).
#include <gtest/gtest.h>

#include <string>

#include "config/error.h"
#include "config/scenario.h"
#include "fabric/fabric.h"
#include "fabric/schema.h"
#include "support/fabric_errors.h"

namespace rdmasim {
namespace {

std::string scenario(const std::string& profile, const std::string& fabric_extra) {
  return testing::leaf_spine_scenario(profile, fabric_extra);
}
InputError error_of(const std::string& profile, const std::string& fabric_extra) {
  return testing::fabric_error_of(profile, fabric_extra);
}

TEST(UetConfig, UetKeysOnOtherFabricsAreRefused) {
  for (const char* profile : {"rocev2-dcqcn", "ib-ndr", "iwarp-cubic"}) {
    const InputError uet = error_of(profile, "  uet: {mode: rod}\n");
    EXPECT_EQ(uet.key(), "fabric.uet") << profile;
    EXPECT_NE(uet.message().find("applies to UET profiles"), std::string::npos) << uet.message();
    EXPECT_EQ(error_of(profile, "  trimming: {enabled: true}\n").key(), "fabric.trimming") << profile;
  }
  // And RC's and TCP's keys on UET.
  EXPECT_EQ(error_of("uet-nscc", "  mtu: 4096\n").key(), "fabric.mtu");
  EXPECT_EQ(error_of("uet-nscc", "  recovery: irn\n").key(), "fabric.recovery");
  EXPECT_EQ(error_of("uet-nscc", "  tcp: {sack: true}\n").key(), "fabric.tcp");
}

TEST(UetConfig, BadValuesAreRefusedAtTheirKey) {
  EXPECT_EQ(error_of("uet-nscc", "  spray: {evs: 0}\n").key(), "fabric.spray.evs");
  const InputError trim = error_of("uet-nscc", "  trimming: {size: 40B}\n");
  EXPECT_EQ(trim.key(), "fabric.trimming.size");
  EXPECT_NE(trim.message().find("at least 58B"), std::string::npos) << trim.message();
  EXPECT_EQ(error_of("uet-nscc", "  uet: {mode: rdm}\n").key(), "fabric.uet.mode");
  EXPECT_EQ(error_of("uet-nscc", "  uet: {psn_window: 1000}\n").key(), "fabric.uet.psn_window");
  EXPECT_EQ(error_of("uet-nscc", "  uet: {mtu: 100B}\n").key(), "fabric.uet.mtu");
  // Keys that would do nothing under the mode or with trimming off.
  EXPECT_EQ(error_of("uet-nscc", "  uet: {mode: rod, sack_loss_threshold: 8}\n").key(),
            "fabric.uet.sack_loss_threshold");
  EXPECT_EQ(error_of("uet-nscc", "  uet: {mode: rudi, ack_every: 2}\n").key(), "fabric.uet.ack_every");
  EXPECT_EQ(error_of("uet-nscc", "  trimming: {enabled: false, threshold: 1MB}\n").key(),
            "fabric.trimming.threshold");
  // uud returns no ACKs: NSCC would never hear from the network.
  EXPECT_EQ(error_of("uet-nscc", "  uet: {mode: uud}\n").key(), "fabric.cc");
  // Ordered delivery keeps one path: spraying would reorder every packet.
  EXPECT_EQ(error_of("uet-nscc", "  uet: {mode: rod}\n").key(), "fabric.path_selection");
}

TEST(UetConfig, TheProfileEchoesItsUetBlocksAndReadsBackTheSame) {
  const Scenario s = load_scenario_text(
      scenario("uet-nscc", "  uet: {mode: rudi, rto: 100us}\n  trimming: {threshold: bdp}\n"), "t.yaml");
  EXPECT_EQ(s.fabric.uet.mode, DeliveryMode::kRudi);
  EXPECT_EQ(s.fabric.uet.rto, Time::from_us(100));
  EXPECT_EQ(s.fabric.sw.trim.threshold_bytes, 0u) << "bdp: resolved by the fabric";
  const auto j = fabric_params_json(s.fabric);
  EXPECT_EQ(j["uet"]["mode"], "rudi");
  EXPECT_EQ(j["trimming"]["size"], "64B");
  EXPECT_EQ(j["cc"], "nscc");
  EXPECT_FALSE(j.contains("mtu")) << "RC's mtu is refused on UET; fabric.uet.mtu is the packet size";
}

}  // namespace
}  // namespace rdmasim
