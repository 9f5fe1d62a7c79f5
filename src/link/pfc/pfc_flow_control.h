// IEEE 802.1Qbb priority flow control at one MAC, both directions:
// - a received PAUSE frame stops the named priority for `quanta` x 512 bit
//   times at this link's rate (0 quanta resumes at once);
// - at a switch port, XOFF goes upstream when the priority group of the
//   packets that arrived here crosses the buffer's XOFF threshold (the Mmu
//   decides: static or dynamic thresholds, headroom), is refreshed while it
//   stays above, and XON follows when it falls below the XON threshold.
// What the PFC watchdog and a stuck receiver (net/pfc_watch.h) need of it:
// when each class's current pause began, a class whose pauses are ignored
// (watchdog action forward), and a NIC end that asserts XOFF forever.
#pragma once

#include <array>
#include <cstdint>

#include "engine/units.h"
#include "link/no_op_hooks.h"
#include "net/packet.h"
#include "net/tc_scheduler.h"

namespace rdmasim {

// What this end sends upstream (the thresholds live in MmuConfig).
struct PfcConfig {
  // Quanta carried by XOFF (max 0xFFFF; one quantum = 512 bit times).
  uint32_t quanta = 0xFFFF;
  // A paused PG re-sends XOFF when this share of the pause time has elapsed,
  // so the upstream never resumes while we are still congested.
  double refresh_fraction = 0.5;
};

class PfcFlowControl : public NoOpLinkHooks {
 public:
  // Event kinds of the port timers: a pause we obey may have expired; a
  // pause we sent is due for a refresh.
  static constexpr uint32_t kResume = 1;
  static constexpr uint32_t kRefresh = 2;

  PfcFlowControl() = default;
  explicit PfcFlowControl(PfcConfig cfg) : cfg_(cfg) {}

  // Bit per traffic class whose pause has expired at `now`.
  [[nodiscard]] uint32_t eligible(Time now) const noexcept {
    if (pause_seen_ == 0) return 0xff;
    uint32_t m = 0xff;
    for (int tc = 0; tc < kNumTcs; ++tc)
      if (((pause_seen_ >> tc) & 1u) && paused_until_[tc] > now) m &= ~(1u << tc);
    return m | ignored_;
  }

  template <class P>
  Packet* next(P& port, Time now) {
    const uint32_t e = eligible(now);
    Packet* p = port.dequeue(e);
    return p != nullptr ? p : port.pull(e);
  }

  template <class P>
  bool on_receive(P& port, Packet* p) {
    if (p->type != PktType::kPfc) {
      if (stuck_ == 0) [[likely]]
        return false;
      // A stuck receiver's MAC still acts on PAUSE, but nothing it receives
      // reaches the host: what arrives after its XOFF is discarded.
      port.counters().fault_drop_packets += 1;
      port.net().drop(p);
      return true;
    }
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
    if (paused_until_[tc] > now)
      paused_ps -= (paused_until_[tc] - now).ps();
    else if (until > now)
      paused_since_[tc] = now;  // a new pause, not a refresh of one in force
    paused_ps += (until - now).ps();
    paused_until_[tc] = until;
    pause_seen_ |= static_cast<uint8_t>(1u << tc);
    set_active(port, tc, until > now);
    if (until > now)
      port.schedule_timer(until, kResume, tc);
    else
      port.kick();
  }

  // A packet of class `tc` that arrived on this (switch) port was admitted
  // to the buffer: XOFF upstream if its priority group crossed the threshold.
  template <class P>
  void on_buffered(P& port, uint8_t tc) {
    auto& buffer = port.buffer();
    if (!buffer.lossless(port.index(), tc) || !buffer.should_pause(port.index(), tc)) return;
    buffer.set_paused(port.index(), tc, true);
    send_pause(port, tc, cfg_.quanta);
  }
  // Such a packet left the buffer: XON if the group fell below XON.
  template <class P>
  void on_left_buffer(P& port, uint8_t tc) {
    auto& buffer = port.buffer();
    if (!buffer.lossless(port.index(), tc) || !buffer.should_resume(port.index(), tc)) return;
    buffer.set_paused(port.index(), tc, false);
    send_pause(port, tc, 0);
  }

  template <class P>
  void on_timer(P& port, uint32_t kind, uint64_t arg) {
    const auto tc = static_cast<uint8_t>(arg);
    if (kind == kRefresh) {
      // Only the latest refresh counts, and only while still paused. A stuck
      // NIC has no buffer to consult: it stays paused until released.
      if (refresh_at_[tc] == port.now() &&
          (((stuck_ >> tc) & 1u) != 0 || (port.at_switch() && port.buffer().paused(port.index(), tc)))) {
        send_pause(port, tc, cfg_.quanta);
        // A pause long enough to need refreshing: when a deadlock is looked for.
        port.net().note_pause_refreshed();
      }
      return;
    }
    if (paused_until_[tc] > port.now()) return;  // refreshed since
    set_active(port, tc, false);
    port.kick();
  }

  // Pause granted beyond `now` (not yet spent).
  [[nodiscard]] Time pause_left(uint8_t tc, Time now) const noexcept {
    return paused_until_[tc] > now ? paused_until_[tc] - now : Time::zero();
  }
  // When the pause in force for `tc` began (refreshes extend it; meaningless
  // unless pause_left > 0).
  [[nodiscard]] Time paused_since(uint8_t tc) const noexcept { return paused_since_[tc]; }
  // When the last pause for `tc` ran out or was lifted by XON.
  [[nodiscard]] Time paused_until(uint8_t tc) const noexcept { return paused_until_[tc]; }

  // PFC watchdog action forward: this end transmits class `tc` whatever its
  // peer's PAUSE frames say (they are still counted and timed).
  template <class P>
  void set_ignore_pause(P& port, uint8_t tc, bool on) {
    const auto bit = static_cast<uint8_t>(1u << tc);
    ignored_ = on ? (ignored_ | bit) : (ignored_ & ~bit);
    if (on) port.kick();
  }

  // A NIC end whose host stopped draining: XOFF on every class of `mask`,
  // refreshed for as long as it stays stuck; released with XON.
  template <class P>
  void set_stuck(P& port, uint8_t mask, bool on) {
    for (int c = 0; c < kNumTcs; ++c) {
      if (((mask >> c) & 1u) == 0) continue;
      const auto tc = static_cast<uint8_t>(c);
      const bool was = ((stuck_ >> c) & 1u) != 0;
      if (on == was) continue;
      stuck_ = on ? (stuck_ | (1u << c)) : (stuck_ & ~(1u << c));
      send_pause(port, tc, on ? cfg_.quanta : 0);
    }
  }
  [[nodiscard]] uint8_t stuck() const noexcept { return stuck_; }
  [[nodiscard]] uint64_t credit_bytes(uint8_t /*cls*/, Time /*now*/) const noexcept { return 0; }

 private:
  template <class P>
  void send_pause(P& port, uint8_t tc, uint32_t quanta) {
    Packet* f = port.net().new_packet(PktType::kPfc);
    f->tc = tc;
    f->psn = quanta;
    f->wire = static_cast<uint16_t>(port.net().framing().pfc_wire());
    port.counters().pfc_tx_frames[tc] += 1;
    port.note_pause_sent(quanta != 0);
    if (quanta == 0) {
      refresh_at_[tc] = Time::never();
    } else {
      const Time pause = port.rate().tx_time(Bytes(int64_t{64} * quanta));
      const Time at = port.now() + Time::from_ps(static_cast<int64_t>(cfg_.refresh_fraction * pause.ps()));
      refresh_at_[tc] = at;
      port.schedule_timer(at, kRefresh, tc);
    }
    port.send_control_frame(f);
  }

  // Tells the network when this port starts or stops having any class
  // paused: congestion spreading is counted in ports, as operators see it.
  template <class P>
  void set_active(P& port, uint8_t tc, bool on) {
    const auto bit = static_cast<uint8_t>(1u << tc);
    const uint8_t before = active_;
    active_ = on ? (active_ | bit) : (active_ & ~bit);
    if ((before == 0) != (active_ == 0)) port.net().note_port_paused(active_ != 0);
  }

  PfcConfig cfg_;
  std::array<Time, kNumTcs> refresh_at_{};  // when the pending XOFF refresh is due
  std::array<Time, kNumTcs> paused_until_{};
  std::array<Time, kNumTcs> paused_since_{};
  uint8_t pause_seen_ = 0;  // bit per class that has ever been paused (fast path)
  uint8_t active_ = 0;      // bit per class paused now, as last seen by a frame or timer
  uint8_t ignored_ = 0;     // watchdog action forward: pauses not obeyed
  uint8_t stuck_ = 0;       // stuck receiver: classes held in XOFF
};

}  // namespace rdmasim
