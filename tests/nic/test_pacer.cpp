// The NIC's per-QP pacer (nic/nic.h): the gap after a packet is its wire
// time at the QP's rate, and a new rate re-times that gap at once, as a
// hardware rate limiter (and the HPCC simulator's RdmaHw::ChangeRate) does.
#include <gtest/gtest.h>

#include "nic/nic.h"

namespace rdmasim {
namespace {

TEST(Pacer, AGapIsTheWireTimeAtTheRate) {
  QpTiming t;
  const Time now = Time::from_us(10);
  Nic::pacer_sent(t, Rate::from_gbps(400), 4158, now);
  EXPECT_EQ(t.next_send, now + Time::from_ps(83160));  // 4158 B x 8 / 400 Gb/s
  // Back to back: the next gap starts where the last one ended.
  Nic::pacer_sent(t, Rate::from_gbps(400), 4158, now);
  EXPECT_EQ(t.next_send, now + Time::from_ps(2 * 83160));
  // Unpaced (rate 0): the pacer lets everything through.
  QpTiming u;
  Nic::pacer_sent(u, Rate(), 4158, now);
  EXPECT_EQ(u.next_send, Time::zero());
}

// DCQCN's floor is 1 Mb/s: one 4 KiB packet's gap there is 33 ms. Once the
// rate is back at 200 Gb/s the gap is 166 ns, whatever rate the packet left
// under; a QP held for the old gap must wake at the new one.
TEST(Pacer, ANewRateRetimesTheGapAtOnce) {
  QpTiming t;
  const Time sent = Time::from_us(100);
  Nic::pacer_sent(t, Rate::from_bps(1'000'000), 4158, sent);
  EXPECT_EQ(t.next_send, sent + Time::from_ps(33'264'000'000));
  t.wake_pending = true;  // held: a wake-up event is due at the old gap's end
  t.wake_at = t.next_send;
  EXPECT_TRUE(Nic::pacer_retime(t, Rate::from_gbps(200)));
  EXPECT_EQ(t.next_send, sent + Time::from_ps(166320));
  t.wake_at = t.next_send;  // Nic::pacer_rate_changed schedules the earlier wake-up
  EXPECT_FALSE(Nic::pacer_retime(t, Rate::from_gbps(200)));  // same rate: nothing to do
  // A cut stretches the gap; the wake-up already due still comes first.
  EXPECT_FALSE(Nic::pacer_retime(t, Rate::from_gbps(100)));
  EXPECT_EQ(t.next_send, sent + Time::from_ps(332640));
  // Line rate (unpaced): the QP may send at once.
  Nic::pacer_retime(t, Rate());
  EXPECT_EQ(t.next_send, sent);
}

}  // namespace
}  // namespace rdmasim
