#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "net/tc_scheduler.h"

namespace rdmasim {
namespace {

std::vector<Packet> make(int n, uint8_t tc, uint16_t wire) {
  std::vector<Packet> v(static_cast<size_t>(n));
  for (auto& p : v) {
    p.tc = tc;
    p.wire = wire;
  }
  return v;
}

TEST(TcScheduler, StrictPriorityServesHighestClassFirst) {
  TcSchedulerConfig cfg;
  cfg.strict = {false, false, false, false, false, true, false, true};
  TcScheduler s(&cfg);
  auto lo = make(3, 3, 1000);
  auto hi = make(2, 7, 100);
  auto mid = make(2, 5, 100);
  for (auto& p : lo) s.push(&p);
  for (auto& p : mid) s.push(&p);
  for (auto& p : hi) s.push(&p);
  std::vector<int> order;
  while (Packet* p = s.pop()) order.push_back(p->tc);
  EXPECT_EQ(order, (std::vector<int>{7, 7, 5, 5, 3, 3, 3}));
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.total_bytes(), 0u);
}

TEST(TcScheduler, DwrrSharesBytesByWeight) {
  TcSchedulerConfig cfg;
  cfg.strict.fill(false);
  cfg.weight = {1, 3, 1, 1, 1, 1, 1, 1};
  TcScheduler s(&cfg);
  auto a = make(4000, 0, 1000);
  auto b = make(4000, 1, 1000);
  for (int i = 0; i < 4000; ++i) {
    s.push(&a[i]);
    s.push(&b[i]);
  }
  std::array<uint64_t, 8> bytes{};
  for (int i = 0; i < 4000; ++i) bytes[s.pop()->tc] += 1000;
  // While both are backlogged, class 1 gets 3x the bytes of class 0.
  EXPECT_NEAR(static_cast<double>(bytes[1]) / bytes[0], 3.0, 0.01);
}

TEST(TcScheduler, PausedClassesAreSkipped) {
  TcSchedulerConfig cfg;
  TcScheduler s(&cfg);
  auto a = make(1, 3, 100);
  auto b = make(1, 7, 100);
  s.push(&a[0]);
  s.push(&b[0]);
  EXPECT_EQ(s.pop(~(1u << 7))->tc, 3);  // class 7 not eligible
  EXPECT_EQ(s.pop(~(1u << 7)), nullptr);
  EXPECT_EQ(s.pop()->tc, 7);
}

}  // namespace
}  // namespace rdmasim
