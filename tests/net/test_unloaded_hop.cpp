#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/rng.h"
#include "net/unloaded_hop.h"

namespace rdmasim {
namespace {

// Packet by packet, every one of the n crossing every hop.
Time every_packet(const std::vector<UnloadedHop>& hops, uint64_t n, uint32_t first, uint32_t middle,
                  uint32_t last) {
  std::vector<Time> port_free(hops.size(), Time::zero());
  Time done = Time::zero();
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t wire = i == 0 ? first : i + 1 == n ? last : middle;
    Time ready = Time::zero();
    Time tail = Time::zero();
    for (size_t h = 0; h < hops.size(); ++h) cross_unloaded_hop(hops[h], wire, ready, tail, port_free[h]);
    done = ready;
  }
  return done;
}

// The steady-state skip gives the packet-by-packet time to the picosecond on
// paths of mixed rates, cable lengths, pipelines and cut-through, for packet
// sizes on both sides of the cut-through threshold.
TEST(UnloadedPipeline, SkippingTheSteadyStateIsExact) {
  Rng rng(11, "pipeline");
  const int64_t gbps[] = {25, 50, 100, 200, 400, 800};
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<UnloadedHop> hops(1 + rng.below(7));
    for (auto& h : hops) {
      h.rate = Rate::from_gbps(gbps[rng.below(6)]);
      h.delay = Time::from_ps(static_cast<int64_t>(rng.below(2'000'000)));
      h.ingress = Time::from_ps(static_cast<int64_t>(rng.below(1'000'000)));
      h.cut_through = rng.below(2) == 0 ? 0 : static_cast<uint32_t>(64 + rng.below(512));
    }
    const uint64_t n = 1 + rng.below(rng.below(2) == 0 ? 40 : 5000);
    const auto size = [&] { return static_cast<uint32_t>(64 + rng.below(4200)); };
    const uint32_t first = size(), middle = size(), last = size();
    const Time want = every_packet(hops, n, first, middle, last);
    const Time got = unloaded_pipeline(
        hops.size(), [&](size_t h) { return hops[h]; }, n, first, middle, last);
    std::string path;
    for (const auto& h : hops)
      path += fmt::format(" [{} Gb/s, {} ps + {} ps, cut-through {} B]", h.rate.bps() / 1'000'000'000,
                          h.delay.ps(), h.ingress.ps(), h.cut_through);
    ASSERT_EQ(got.ps(), want.ps()) << "trial " << trial << ": " << n << " packets of " << first << "/"
                                   << middle << "/" << last << " B through" << path;
  }
}

// A stream too long for 64-bit picoseconds (a pebibyte at 10 Mb/s: 2.5
// years) has no ideal time, never(): it used to wrap to a small positive
// value (1.27 ms), which flows.csv printed as the flow's ideal. One just
// inside the limit keeps its exact time, packets x serialisation + latency.
TEST(UnloadedPipeline, AStreamPastTheTimeRangeIsNeverNotWrapped) {
  const std::vector<UnloadedHop> hops{{Rate::from_bps(10'000'000), Time::from_ns(100), Time::zero(), 0},
                                      {Rate::from_bps(10'000'000), Time::from_ns(100), Time::zero(), 0}};
  const auto at = [&](size_t h) { return hops[h]; };
  const uint64_t pebibyte_packets = (uint64_t{1} << 50) / 1000;
  EXPECT_EQ(unloaded_pipeline(hops.size(), at, pebibyte_packets, 1000, 1000, 1000), Time::never());
  // 10^8 packets of 1,000 B at 10 Mb/s: 0.8 ms each, 80,000 s in all.
  const uint64_t n = 100'000'000;
  const Time ser = hops[0].rate.tx_time(Bytes(1000));
  EXPECT_EQ(ser, Time::from_us(800));
  EXPECT_EQ(unloaded_pipeline(hops.size(), at, n, 1000, 1000, 1000),
            ser * static_cast<int64_t>(n) + ser + Time::from_ns(200));
}

}  // namespace
}  // namespace rdmasim
