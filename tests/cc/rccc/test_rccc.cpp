// RCCC's receiver-side scheduler (cc/rccc) against hand values: the budget
// is budget_bdp x the receiver's BDP, shared equally among the senders
// still sending to it; every active sender hears of a change in their
// number; a share that moves by less than one MTU is not re-sent.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "cc/rccc/rccc.h"

namespace rdmasim {
namespace {

struct Grants {
  std::vector<std::pair<uint32_t, int64_t>> sent;
  void operator()(uint32_t flow, int64_t bytes) { sent.emplace_back(flow, bytes); }
};

RcccScheduler scheduler(double budget_bdp, int64_t initial = 0) {
  RcccConfig c;
  c.enabled = true;
  c.budget_bdp = budget_bdp;
  c.initial_credit = initial;
  // Two hosts at 100 Gb/s, base RTT 8 us: BDP 100,000 B.
  return RcccScheduler(c, Time::from_us(8), {Rate::from_gbps(100), Rate::from_gbps(100)}, 4096);
}

TEST(Rccc, SharesTheBudgetEquallyAndTellsEverySenderWhenTheirNumberChanges) {
  RcccScheduler s = scheduler(1.5);  // 150,000 B
  Grants g;
  s.on_arrival(0, 10, 100, std::ref(g));
  ASSERT_EQ(g.sent.size(), 1u);
  EXPECT_EQ(g.sent[0], (std::pair<uint32_t, int64_t>{10, 150'000}));
  s.on_arrival(0, 12, 100, std::ref(g));  // a second sender: both get half
  ASSERT_EQ(g.sent.size(), 3u);
  EXPECT_EQ(g.sent[1], (std::pair<uint32_t, int64_t>{10, 75'000}));
  EXPECT_EQ(g.sent[2], (std::pair<uint32_t, int64_t>{12, 75'000}));
  s.on_arrival(0, 10, 99, std::ref(g));  // nothing changed: nothing sent
  EXPECT_EQ(g.sent.size(), 3u);
  s.on_arrival(1, 20, 5, std::ref(g));  // another receiver has its own budget
  EXPECT_EQ(g.sent.back(), (std::pair<uint32_t, int64_t>{20, 150'000}));
  EXPECT_EQ(s.active(0), 2u);
  s.on_arrival(0, 12, 0, std::ref(g));  // 12 is done: 10 gets it all back
  EXPECT_EQ(g.sent.back(), (std::pair<uint32_t, int64_t>{10, 150'000}));
  EXPECT_EQ(s.active(0), 1u);
  EXPECT_EQ(s.grants_sent(), g.sent.size());
}

TEST(Rccc, NoShareBelowOneMtuAndNoUpdateSmallerThanOne) {
  RcccScheduler s = scheduler(0.25);  // 25,000 B
  Grants g;
  for (uint32_t f = 0; f < 10; ++f) s.on_arrival(0, f, 50, std::ref(g));
  // 25,000 / 10 = 2,500 < one MTU: each sender may still have a packet out.
  EXPECT_EQ(g.sent.back().second, 4096);
  const size_t before = g.sent.size();
  s.on_arrival(0, 10, 50, std::ref(g));  // 11 senders: 2,272 -> still 4096, not re-sent
  EXPECT_EQ(g.sent.size(), before + 1) << "only the newcomer hears";
}

TEST(Rccc, InitialCreditIsAQuarterBdpUnlessSet) {
  EXPECT_EQ(scheduler(1.5).initial_credit(), 25'000);
  EXPECT_EQ(scheduler(1.5, 9000).initial_credit(), 9000);
}

}  // namespace
}  // namespace rdmasim
