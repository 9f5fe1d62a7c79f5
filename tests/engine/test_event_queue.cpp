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
      popped.push_back({e.at_ps, e.arg});
      EXPECT_EQ(e.kind, e.arg % 7);
    }
  }
  while (!q.empty()) {
    const Event e = q.pop();
    popped.push_back({e.at_ps, e.arg});
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
  ids.reserve(popped.size());
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

// A queue checked against a reference: every pop must be the least (time,
// sequence) pending, whatever heap the event waited in.
class CheckedQueue {
 public:
  // Pushes at `t` with the next sequence; `seq` pushes with one taken earlier.
  void push(int64_t t) { push_at(t, q.take_seq()); }
  void push_at(int64_t t, uint64_t seq) {
    q.push_at_seq(Time::from_ps(t), seq, &h_, static_cast<uint32_t>(seq % 5), seq);
    pending_.insert({t, seq});
  }
  // Pops one event and checks it; returns its time.
  int64_t pop_checked() {
    EXPECT_EQ(q.top_time().ps(), pending_.begin()->first);
    const Event e = q.pop();
    EXPECT_EQ(std::make_pair(e.at_ps, e.arg), *pending_.begin()) << "pop " << popped_;
    EXPECT_EQ(e.kind, e.arg % 5);
    pending_.erase(pending_.begin());
    ++popped_;
    return e.at_ps;
  }
  void drain() {
    while (!q.empty()) pop_checked();
    EXPECT_TRUE(pending_.empty());
  }
  [[nodiscard]] size_t pending() const { return pending_.size(); }

  EventQueue q;

 private:
  Nop h_;
  std::set<std::pair<int64_t, uint64_t>> pending_;
  size_t popped_ = 0;
};

// Events far ahead wait in a second heap (EventQueue::kNearSpan), and near
// keys are relative to an epoch that moves as the clock runs. Whatever heap
// an event went to, every pop is the least (time, insertion) pending,
// including equal times pushed before and after the clock came near them.
TEST(EventQueue, EventsFarAheadAndAcrossEpochsPopInOrder) {
  CheckedQueue c;
  Rng rng(17, "eq-far");
  int64_t now = 0;
  // Times on a coarse grid so that equal times are common on both sides of
  // the split: 0 .. 4 x kNearSpan ahead, or a deadline-like 10 x kNearSpan.
  const int64_t grid = EventQueue::kNearSpan / 8;
  // A backlog of a few hundred, as in a run, then as many pushes as pops,
  // until the clock has run past two near epochs' time range.
  for (int round = 0; now < 2 * static_cast<int64_t>(EventQueue::kTimeRange); ++round) {
    for (int k = 0; k < (round < 100 ? 8 : 3); ++k) {
      const int64_t ahead =
          rng.below(10) == 0 ? 10 * EventQueue::kNearSpan : static_cast<int64_t>(rng.below(33)) * grid;
      c.push((now + ahead) / grid * grid + (ahead > 0 ? grid : 0));
    }
    for (int k = 0; k < 3 && !c.q.empty(); ++k) now = c.pop_checked();
  }
  EXPECT_GE(c.q.epoch_moves(), 2U);
  EXPECT_GT(c.pending(), 100U);  // the epoch moved with a full near heap
  c.drain();
}

// A sequence taken long before its event is pushed (a frame queued behind
// others on a wire) still orders it among equal times: near when the epoch
// can move to include it, far when the near events' sequences are too far
// apart for one epoch.
TEST(EventQueue, OldSequencesKeepTheirPlaceAmongEqualTimes) {
  CheckedQueue c;
  const int64_t t = 1000;
  const uint64_t old = c.q.take_seq();
  c.push(t);
  for (uint64_t i = 0; i < EventQueue::kSeqRange; ++i) c.q.take_seq();
  c.push(t);          // out of the epoch's range, which the event above holds: far
  c.push_at(t, old);  // in it: near
  c.push(t + 1);
  c.push(t);
  EXPECT_EQ(c.q.epoch_moves(), 0U);
  c.drain();
  // With nothing near, the epoch moves to a new sequence, and back to take an
  // older one (once the attempt that failed above is old enough to retry).
  const uint64_t older = c.q.take_seq();
  for (uint64_t i = 0; i < EventQueue::kSeqRange / 256; ++i) c.q.take_seq();
  c.push(2 * t);
  EXPECT_EQ(c.q.epoch_moves(), 1U);
  c.push_at(2 * t, older);
  EXPECT_EQ(c.q.epoch_moves(), 2U);
  c.push(2 * t);
  c.drain();
}

// The near heap pops keys in order whichever sift-down it uses, through a
// partly filled last group of children and past its first growth; and the
// AVX-512 sift-down (where the CPU has it, with its 64-way root) pops the
// same events in the same order as the scalar one (8-way throughout), so a
// run's events cannot depend on the machine.
TEST(NearHeap, PopsInKeyOrderWithEitherSiftDown) {
  NearHeap scalar(false);
  NearHeap best;
  EXPECT_FALSE(scalar.uses_avx512());
  EXPECT_EQ(best.uses_avx512(), NearHeap::cpu_has_avx512());
  std::set<uint64_t> ref;
  Nop h;
  Rng rng(23, "near-heap");
  uint64_t seq = 0;
  uint64_t last_popped = 0;
  size_t peak = 0;
  for (int round = 0; round < 400; ++round) {
    // Grows to about 10,000 events (past the initial 4,096), then drains.
    const int pushes = round < 200 ? 60 : 10;
    for (int k = 0; k < pushes; ++k) {
      // Keys at or after the last one popped, as the event queue's are.
      const uint64_t key = (last_popped >> 20 << 20) + (rng.below(1u << 12) << 20) + (++seq & 0xfffff);
      scalar.push(key, &h, static_cast<uint32_t>(seq & 0xff), seq);
      best.push(key, &h, static_cast<uint32_t>(seq & 0xff), seq);
      ref.insert(key);
    }
    peak = std::max(peak, ref.size());
    for (int k = 0; k < 20 && !ref.empty(); ++k) {
      const NearEvent a = scalar.pop();
      const NearEvent b = best.pop();
      ASSERT_EQ(a.key, *ref.begin());
      ASSERT_EQ(b.key, a.key);
      ASSERT_EQ(b.arg, a.arg);
      ASSERT_EQ(a.handler, &h);
      ASSERT_EQ(a.kind, a.arg & 0xff);
      ASSERT_EQ(b.kind, a.kind);
      last_popped = a.key;
      ref.erase(ref.begin());
    }
  }
  EXPECT_GT(peak, 8000U);
  while (!ref.empty()) {
    ASSERT_EQ(scalar.pop().key, *ref.begin());
    ASSERT_EQ(best.pop().key, *ref.begin());
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(scalar.empty());
  EXPECT_TRUE(best.empty());
  // The extreme keys keep their order beside the lane tags the sift-downs
  // add: the largest a push takes stays below the vacant slots.
  for (NearHeap* heap : {&scalar, &best}) {
    for (const uint64_t key :
         {NearHeap::kMaxKey, uint64_t{0}, NearHeap::kMaxKey - 1, uint64_t{7}, uint64_t{8}})
      heap->push(key, &h, 0, key);
    for (const uint64_t key :
         {uint64_t{0}, uint64_t{7}, uint64_t{8}, NearHeap::kMaxKey - 1, NearHeap::kMaxKey}) {
      const NearEvent e = heap->pop();
      EXPECT_EQ(e.key, key);
      EXPECT_EQ(e.arg, key);
    }
    EXPECT_TRUE(heap->empty());
  }
}

}  // namespace
}  // namespace rdmasim
