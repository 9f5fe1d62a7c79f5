// IEEE 802.1Qbb priority flow control at one MAC: a received PAUSE frame
// stops the named priority for `quanta` x 512 bit times at this link's rate
// (0 quanta resumes at once). The XOFF/XON this port's node sends upstream is
// decided by the switch buffer (Mmu thresholds per priority group), not here:
// the part only applies what the peer sent.
#pragma once

#include <array>
#include <cstdint>

#include "engine/units.h"
#include "link/no_op_hooks.h"
#include "net/packet.h"
#include "net/tc_scheduler.h"

namespace rdmasim {

class PfcFlowControl : public NoOpLinkHooks {
 public:
  // Event kind of the "a pause may have expired" timer on the port.
  static constexpr uint32_t kResume = 1;

  // Bit per traffic class whose pause has expired at `now`.
  [[nodiscard]] uint32_t eligible(Time now) const noexcept {
    if (pause_seen_ == 0) return 0xff;
    uint32_t m = 0xff;
    for (int tc = 0; tc < kNumTcs; ++tc)
      if (((pause_seen_ >> tc) & 1u) && paused_until_[tc] > now) m &= ~(1u << tc);
    return m;
  }

  template <class P>
  Packet* next(P& port, Time now) {
    const uint32_t e = eligible(now);
    Packet* p = port.dequeue(e);
    return p != nullptr ? p : port.pull(e);
  }

  template <class P>
  bool on_receive(P& port, Packet* p) {
    if (p->type != PktType::kPfc) return false;
    port.counters().pfc_rx_frames[p->tc] += 1;
    apply_pause(port, p->tc, static_cast<uint32_t>(p->psn));
    port.net().deliver(p);
    return true;
  }

  template <class P>
  void apply_pause(P& port, uint8_t tc, uint32_t quanta) {
    const Time now = port.now();
    // One quantum is 512 bit times = 64 bytes at this port's rate.
    const Time until = now + port.rate().tx_time(Bytes(int64_t{64} * quanta));
    // Keep paused_ps equal to the paused time granted so far, counting an
    // early XON or a refresh as cutting short or extending the last grant.
    auto& paused_ps = port.counters().pfc_paused_ps[tc];
    if (paused_until_[tc] > now) paused_ps -= (paused_until_[tc] - now).ps();
    paused_ps += (until - now).ps();
    paused_until_[tc] = until;
    pause_seen_ |= static_cast<uint8_t>(1u << tc);
    if (until > now)
      port.schedule_timer(until, kResume, tc);
    else
      port.kick();
  }

  template <class P>
  void on_timer(P& port, uint32_t /*kind*/, uint64_t tc) {
    if (paused_until_[tc] > port.now()) return;  // refreshed since
    port.kick();
  }

  // Pause granted beyond `now` (not yet spent).
  [[nodiscard]] Time pause_left(uint8_t tc, Time now) const noexcept {
    return paused_until_[tc] > now ? paused_until_[tc] - now : Time::zero();
  }
  [[nodiscard]] uint64_t credit_bytes(uint8_t /*cls*/) const noexcept { return 0; }

 private:
  std::array<Time, kNumTcs> paused_until_{};
  uint8_t pause_seen_ = 0;  // bit per class that has ever been paused (fast path)
};

}  // namespace rdmasim
