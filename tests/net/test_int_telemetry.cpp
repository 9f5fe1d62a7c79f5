#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rdmasim
