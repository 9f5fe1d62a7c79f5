#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "net/int_telemetry.h"

namespace rdmasim {
namespace {

IntHop hop(int64_t ns) {
  return IntHop{Time::from_ns(ns), static_cast<uint64_t>(ns), 0, Rate::from_gbps(100), 0};
}

// A stack's depth is kept apart from its hops: a slot handed out again must
// read as empty, and hops beyond kMaxIntHops are counted, not written.
TEST(IntTable, AReusedSlotStartsEmptyAndExtraHopsAreCountedAsOverflow) {
  IntTable t;
  const uint32_t a = t.acquire();
  ASSERT_NE(a, 0U);  // slot 0 means "no telemetry"
  for (int i = 0; i < kMaxIntHops + 2; ++i) t.push(a, hop(i + 1));
  EXPECT_EQ(t.read(a).n, kMaxIntHops);
  EXPECT_EQ(t.read(a).hop[kMaxIntHops - 1].ts, Time::from_ns(kMaxIntHops));
  EXPECT_EQ(t.overflow(), 2U);

  t.release(a);
  const uint32_t b = t.acquire();
  EXPECT_EQ(b, a);  // the free list hands the slot back
  EXPECT_EQ(t.read(b).n, 0);
  t.push(b, hop(42));
  ASSERT_EQ(t.read(b).n, 1);
  EXPECT_EQ(t.read(b).hop[0].ts, Time::from_ns(42));
  EXPECT_EQ(t.in_use(), 1U);
}

// A record keeps 32 bits of queue length: a queue of 4 GiB or more is kept
// as the clipped value and counted (the fabric's invariant check fails the
// run on it); one byte less is neither.
TEST(IntTable, CountsAQueueLengthBeyondThirtyTwoBits) {
  IntTable t;
  const uint32_t a = t.acquire();
  t.push(a, IntHop{Time::from_ns(1), 0, uint64_t{UINT32_MAX} - 1, Rate::from_gbps(100)});
  EXPECT_EQ(t.qlen_clipped(), 0U);
  EXPECT_EQ(t.read(a).hop[0].qlen, UINT32_MAX - 1);
  t.push(a, IntHop{Time::from_ns(2), 0, uint64_t{5} << 30, Rate::from_gbps(100)});  // 5 GiB
  EXPECT_EQ(t.qlen_clipped(), 1U);
  EXPECT_EQ(t.read(a).hop[1].qlen, IntHop::kQlenClipped);
}

// Five hops (a three-tier fat-tree's path) and the depth share three lines.
TEST(IntTable, FiveHopsAndTheDepthFillThreeCacheLines) {
  EXPECT_EQ(sizeof(IntHop), 32U);
  EXPECT_EQ(alignof(IntStack), 64U);
  EXPECT_LE(offsetof(IntStack, hop) + 5 * sizeof(IntHop), 3U * 64U);
}

}  // namespace
}  // namespace rdmasim
