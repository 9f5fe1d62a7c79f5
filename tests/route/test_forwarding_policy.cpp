// The forwarding policies on a hand-built route table and stub ports.
#include <gtest/gtest.h>

#include <array>

#include "engine/rng.h"
#include "route/forwarding/forwarding_policy.h"
#include "route/route_table.h"

namespace rdmasim {
namespace {

struct StubQueues {
  uint64_t bytes = 0;
  [[nodiscard]] uint64_t total_bytes() const { return bytes; }
};
struct StubFlowControl {
  uint64_t credit = 0;
  [[nodiscard]] uint64_t credit_bytes(uint8_t /*cls*/, Time /*now*/) const { return credit; }
};
struct StubPort {
  StubQueues q;
  StubFlowControl fc;
  Time busy;
  bool is_up = true;
  [[nodiscard]] const StubQueues& queues() const { return q; }
  [[nodiscard]] const StubFlowControl& flow_control() const { return fc; }
  [[nodiscard]] Time busy_until() const { return busy; }
  [[nodiscard]] Rate rate() const { return Rate::from_gbps(100); }  // 12.5 bytes per ns
  [[nodiscard]] bool up() const { return is_up; }
};
struct StubSwitch {
  RouteTable table;
  std::array<StubPort, 6> ports;
  Time t = Time::from_ns(1000);
  [[nodiscard]] const RouteTable& routes() const { return table; }
  [[nodiscard]] const StubPort& port(size_t i) const { return ports[i]; }
  [[nodiscard]] Time now() const { return t; }
};

StubSwitch make() {
  StubSwitch sw;
  sw.table.reset(3);
  sw.table.set(0, {3});
  sw.table.set(1, {1, 2, 4});  // LFT port 1, then the alternatives
  return sw;                   // destination 2: no route
}

Packet to(int dst, uint32_t hash) {
  Packet p;
  p.dst = dst;
  p.flow_hash = hash;
  return p;
}

TEST(EcmpForwarding, HashesTheFlowWithTheSwitchSeed) {
  const StubSwitch sw = make();
  const ForwardingPolicy ecmp(EcmpForwarding(0x1234));
  EXPECT_EQ(ecmp.select(sw, to(0, 99)), 3);
  EXPECT_EQ(ecmp.select(sw, to(2, 99)), -1);
  const std::array<int, 3> group{1, 2, 4};
  for (uint32_t h = 0; h < 64; ++h)
    EXPECT_EQ(ecmp.select(sw, to(1, h)), group[mix64(uint64_t{h} ^ 0x1234) % 3]);
  // Seeds differ per switch, so the same flow lands on different ports somewhere.
  const ForwardingPolicy other(EcmpForwarding(0x5678));
  int differ = 0;
  for (uint32_t h = 0; h < 64; ++h) differ += ecmp.select(sw, to(1, h)) != other.select(sw, to(1, h));
  EXPECT_GT(differ, 0);
}

TEST(LftForwarding, TakesTheSubnetManagersPort) {
  const StubSwitch sw = make();
  const ForwardingPolicy lft(LftForwarding{});
  for (uint32_t h = 0; h < 16; ++h) EXPECT_EQ(lft.select(sw, to(1, h)), 1);
  EXPECT_EQ(lft.select(sw, to(0, 5)), 3);
  EXPECT_EQ(lft.select(sw, to(2, 5)), -1);
}

// SHIELD's Fast Link Fault Recovery: the LFT port while it is up, else the
// entry's first alternative that is; with none up, the dead LFT port.
TEST(LftForwarding, TakesTheFirstLiveAlternativeWhenTheLftPortIsDown) {
  StubSwitch sw = make();
  const ForwardingPolicy lft(LftForwarding{});
  sw.ports[1].is_up = false;
  EXPECT_EQ(lft.select(sw, to(1, 7)), 2);
  sw.ports[2].is_up = false;
  EXPECT_EQ(lft.select(sw, to(1, 7)), 4);
  sw.ports[4].is_up = false;
  EXPECT_EQ(lft.select(sw, to(1, 7)), 1);
  sw.ports[3].is_up = false;
  EXPECT_EQ(lft.select(sw, to(0, 7)), 3) << "no alternative listed";
}

TEST(AdaptiveForwarding, PicksTheLeastLoadedUpPortTiesKeepTheLftPort) {
  StubSwitch sw = make();
  const ForwardingPolicy ar(AdaptiveForwarding{});
  EXPECT_EQ(ar.select(sw, to(1, 0)), 1);  // idle: as the LFT
  sw.ports[1].q.bytes = 5000;
  sw.ports[2].q.bytes = 3000;
  sw.ports[4].q.bytes = 4000;
  EXPECT_EQ(ar.select(sw, to(1, 0)), 2);
  // 100 ns of a packet still on port 2's wire = 1250 bytes: 4250 > 4000.
  sw.ports[2].busy = sw.t + Time::from_ns(100);
  EXPECT_EQ(ar.select(sw, to(1, 0)), 4);
  // Downstream credit offsets the queue: port 1 has 2048 bytes of room left.
  sw.ports[1].fc.credit = 2048;  // 5000 - 2048 = 2952
  EXPECT_EQ(ar.select(sw, to(1, 0)), 1);
  sw.ports[1].is_up = false;
  EXPECT_EQ(ar.select(sw, to(1, 0)), 4);
  EXPECT_EQ(ar.select(sw, to(2, 0)), -1);
}

}  // namespace
}  // namespace rdmasim
