// VALIDATION.md §A.1: unloaded one-way latency equals, per hop, serialization
// of the wire bytes + propagation + switch pipeline latency; a cut-through
// switch serializes only the header before forwarding. Exact to the ps.
#include <gtest/gtest.h>

#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "support/rc_of.h"
#include "support/recorder.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

using testing::Recorder;

struct Case {
  int hops;
  bool cut_through;
};

class LatencyTest : public ::testing::TestWithParam<Case> {};

TEST_P(LatencyTest, OnePacketWriteIsExact) {
  const Case k = GetParam();
  const Rate rate = Rate::from_gbps(100);
  const Time prop = Time::from_ns(1000);
  const Time sw_lat = Time::from_ns(600);
  Simulation sim(1);
  FabricConfig cfg;
  cfg.sw.cut_through = k.cut_through;
  cfg.sw.latency = sw_lat;
  Fabric f(sim, make_chain(k.hops - 1, LinkSpec{rate, prop}), cfg);
  Recorder rec;
  const uint32_t qp = rc_of(f).create_qp(0, 1, &rec, 3);
  const int64_t payload = 1000;
  rc_of(f).post(qp, Opcode::kWrite, payload, 7);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.received.size(), 1u);
  ASSERT_EQ(rec.done.size(), 1u);

  // Hand computation. RoCEv2 WRITE-only: 62 B headers + 16 B RETH + payload,
  // + 20 B preamble/IFG = 1098 B; at 100 Gb/s a byte takes 80 ps.
  const int64_t wire = 62 + 16 + payload + 20;
  const int64_t ser = wire * 80;
  const int64_t ct_ser = 64 * 80;
  const int switches = k.hops - 1;
  int64_t one_way = 0;
  if (k.cut_through)
    one_way = switches * (ct_ser + prop.ps() + sw_lat.ps()) + ser + prop.ps();
  else
    one_way = k.hops * (ser + prop.ps()) + switches * sw_lat.ps();
  EXPECT_EQ(rec.received[0].completed.ps(), one_way);

  // ACK (62 + 4 B AETH, + 20 B = 86 B) comes back the same way.
  const int64_t ack_ser = 86 * 80;
  int64_t ack_way = 0;
  if (k.cut_through)
    ack_way = switches * (ct_ser + prop.ps() + sw_lat.ps()) + ack_ser + prop.ps();
  else
    ack_way = k.hops * (ack_ser + prop.ps()) + switches * sw_lat.ps();
  EXPECT_EQ(rec.done[0].completed.ps(), one_way + ack_way);
  EXPECT_EQ(f.ideal_completion(qp, Opcode::kWrite, payload).ps(), one_way + ack_way);
  EXPECT_EQ(f.check_invariants(), "");
}

INSTANTIATE_TEST_SUITE_P(Hops, LatencyTest,
                         ::testing::Values(Case{1, false}, Case{3, false}, Case{5, false}, Case{1, true},
                                           Case{3, true}, Case{5, true}),
                         [](const auto& info) {
                           return std::to_string(info.param.hops) + "hops_" +
                                  (info.param.cut_through ? "cut_through" : "store_and_forward");
                         });

}  // namespace
}  // namespace rdmasim
