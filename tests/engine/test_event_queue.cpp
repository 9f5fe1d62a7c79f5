#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "engine/event_queue.h"
#include "engine/rng.h"

namespace rdmasim {
namespace {

struct Nop : EventHandler {
  void on_event(uint32_t, uint64_t) override {}
};

TEST(EventQueue, PopsInTimeOrderAndEqualTimesInInsertionOrder) {
  EventQueue q;
  Nop h;
  Rng rng(9, "eq");
  struct Ref {
    int64_t t;
    uint64_t id;
  };
  std::vector<Ref> ref;
  // Interleave pushes and pops, with many equal times, as a simulation does.
  uint64_t next_id = 0;
  std::vector<Ref> popped;
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 500; ++k) {
      const int64_t t = static_cast<int64_t>(round * 10 + rng.below(40));
      q.push(Time::from_ps(t), &h, static_cast<uint32_t>(next_id % 7), next_id);
      ref.push_back({t, next_id++});
    }
    for (int k = 0; k < 450; ++k) {
      const Event e = q.pop();
      popped.push_back({e.time_ps(), e.arg});
      EXPECT_EQ(e.kind(), e.arg % 7);
    }
  }
  while (!q.empty()) {
    const Event e = q.pop();
    popped.push_back({e.time_ps(), e.arg});
  }
  ASSERT_EQ(popped.size(), ref.size());
  // Among events present together, order is (time, insertion). Check that each
  // pop is not earlier than the previous unless it was pushed after it.
  for (size_t i = 1; i < popped.size(); ++i) {
    const bool later_time = popped[i].t > popped[i - 1].t;
    const bool same_time_fifo = popped[i].t == popped[i - 1].t && popped[i].id > popped[i - 1].id;
    const bool pushed_after = popped[i].id > popped[i - 1].id;  // could not have been popped earlier
    EXPECT_TRUE(later_time || same_time_fifo || pushed_after) << i;
  }
  std::vector<uint64_t> ids;
  for (const auto& p : popped) ids.push_back(p.id);
  std::sort(ids.begin(), ids.end());
  for (size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], i);  // every event exactly once
}

// A sequence number taken early and used later (a frame queued behind
// another on a wire) puts the event where an immediate push would have: ahead
// of equal-time events pushed in between, behind those pushed before.
TEST(EventQueue, ATakenSequenceNumberKeepsTheOrderOfAnImmediatePush) {
  EventQueue q;
  Nop h;
  const Time t = Time::from_ps(100);
  q.push(t, &h, 0, 1);                     // before: runs first
  const uint64_t reserved = q.take_seq();  // the deferred one's place
  q.push(t, &h, 0, 3);                     // pushed in between
  q.push(Time::from_ps(50), &h, 0, 0);     // earlier in time
  q.push_at_seq(t, reserved, &h, 0, 2);    // queued last, runs second at t
  std::vector<uint64_t> order;
  while (!q.empty()) order.push_back(q.pop().arg);
  EXPECT_EQ(order, (std::vector<uint64_t>{0, 1, 2, 3}));
}

// Events far ahead wait in a second heap (EventQueue::kNearSpan). Whatever
// heap an event went to, every pop is the least (time, insertion) pending,
// including equal times pushed before and after the clock came near them.
TEST(EventQueue, EventsFarAheadPopInTheSameOrderAsNearOnes) {
  EventQueue q;
  Nop h;
  Rng rng(17, "eq-far");
  std::set<std::pair<int64_t, uint64_t>> pending;  // (time, insertion)
  int64_t now = 0;
  uint64_t next_id = 0;
  size_t popped = 0;
  // Times on a coarse grid so that equal times are common on both sides of
  // the split: 0 .. 4 x kNearSpan ahead, or a deadline-like 10 x kNearSpan.
  const int64_t grid = EventQueue::kNearSpan / 8;
  // A backlog of a few hundred, as in a run, then as many pushes as pops.
  for (int round = 0; round < 4000; ++round) {
    for (int k = 0; k < (round < 100 ? 8 : 3); ++k) {
      const int64_t ahead =
          rng.below(10) == 0 ? 10 * EventQueue::kNearSpan : static_cast<int64_t>(rng.below(33)) * grid;
      const int64_t t = (now + ahead) / grid * grid + (ahead > 0 ? grid : 0);
      q.push(Time::from_ps(t), &h, 0, next_id);
      pending.insert({t, next_id++});
    }
    for (int k = 0; k < 3 && !q.empty(); ++k) {
      const Event e = q.pop();
      ASSERT_EQ(std::make_pair(e.time_ps(), e.arg), *pending.begin()) << "pop " << popped;
      pending.erase(pending.begin());
      now = e.time_ps();
      ++popped;
    }
  }
  while (!q.empty()) {
    ASSERT_EQ(q.top_time().ps(), pending.begin()->first);
    const Event e = q.pop();
    ASSERT_EQ(std::make_pair(e.time_ps(), e.arg), *pending.begin());
    pending.erase(pending.begin());
  }
  EXPECT_TRUE(pending.empty());
}

}  // namespace
}  // namespace rdmasim
