// InfiniBand credit-based link flow control (IBTA Vol.1 §7.9) at one port:
// as a sender it starts a packet only when the peer has advertised room for
// it on the packet's VL, choosing among ready VLs by VL arbitration; as a
// receiver it counts what arrives (ABR) and returns credit with flow-control
// packets (FCPs) as its node frees the buffer. The link never drops for lack
// of buffer. The counters and their meaning, and why an FCP is not an event,
// are in link/credit.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "engine/units.h"
#include "link/credit.h"
#include "net/counters.h"
#include "net/packet.h"

namespace rdmasim {

class CreditFlowControl {
 public:
  // Event kinds on the port: the credit-update batching timer; the landing
  // of the FCP a port blocked for credit waits for.
  static constexpr uint32_t kBatch = 2;
  static constexpr uint32_t kWake = 3;

  // `capacity_blocks`: this port's receive buffer per VL; `max_packet_bytes`:
  // the largest packet a NIC source may hand the port. `cfg` must outlive the part.
  CreditFlowControl(const CreditConfig* cfg, uint64_t capacity_blocks, uint32_t max_packet_bytes)
      : cs_(std::make_unique<CreditState>()) {
    cs_->cfg = cfg;
    cs_->capacity = capacity_blocks;
    cs_->arbiter.set_config(cfg);
    for (auto& l : cs_->lane) l.reported = capacity_blocks;
    max_packet_blocks_ = credit_blocks(max_packet_bytes);
  }

  // Link-up: all of the peer's receive buffer is credit.
  void connect_peer(CreditFlowControl& peer) noexcept {
    cs_->peer = peer.cs_.get();
    cs_->peer_capacity = peer.cs_->capacity;
    for (auto& l : cs_->lane) l.fccl = l.fctbs + cs_->peer_capacity;
  }
  // Link retrained (IBTA Vol.1 §7.9.4.3): both ends re-synchronise, so credits
  // lost with the link come back. Call on both ends once both are up.
  void resync(const CreditFlowControl& peer) noexcept {
    for (int vl = 0; vl < kNumVls; ++vl) {
      cs_->lane[vl].fctbs = peer.cs_->lane[vl].abr;
      cs_->lane[vl].fccl = peer.cs_->advertise(vl);
    }
    for (int vl = 0; vl < kNumVls; ++vl) cs_->lane[vl].reported = cs_->advertise(vl);
  }

  // VL arbitration among the VLs whose head packet has credit; a NIC's own
  // packets are pulled only for SLs whose VL has credit for a full-size packet.
  template <class P>
  Packet* next(P& port, Time now) {
    const auto& queues = port.queues();
    const uint32_t queued = queues.nonempty_mask();
    uint32_t ready = 0;
    for (uint32_t m = queued; m != 0; m &= m - 1) {
      const int vl = __builtin_ctz(m);
      const uint32_t blocks = credit_blocks(queues.head(vl)->wire);
      if (cs_->available(vl) < blocks) cs_->refresh(vl, now);
      if (cs_->available(vl) >= blocks) ready |= 1u << vl;
    }
    Packet* p = nullptr;
    const int vl = cs_->arbiter.pick(ready, [&](int v) { return queues.head(v)->wire; });
    if (vl >= 0) {
      p = port.dequeue_class(vl);
    } else if (port.has_source()) {
      uint32_t vl_ok = 0;
      for (int v = 0; v < kNumVls; ++v) {
        if (cs_->available(v) < max_packet_blocks_) cs_->refresh(v, now);
        if (cs_->available(v) >= max_packet_blocks_) vl_ok |= 1u << v;
      }
      uint32_t sl_ok = 0xff;  // the NIC's fast path: every class may send
      if (vl_ok != 0xffu) {
        sl_ok = 0;
        for (int sl = 0; sl < kNumSls; ++sl)
          if ((vl_ok >> cs_->cfg->sl2vl[sl]) & 1u) sl_ok |= 1u << sl;
      }
      if (sl_ok != 0) p = port.pull(sl_ok);
      if (p != nullptr) {
        p->sl = p->tc;
        p->tc = cs_->cfg->sl2vl[p->sl & 15];
      }
    }
    const bool has_data = queued != 0 || port.source_has_more();
    note_wait(queued & ~ready, p == nullptr && has_data, now);
    if (p == nullptr && has_data) {
      await_credit(port, queued & ~ready);
    } else if (cs_->awaiting) {
      cs_->awaiting = false;
      cs_->peer->wait = 0;
    }
    return p;
  }

  // Reads every FCP that has landed by `now` and counts them as received
  // (FCPs are counted here, not one by one: the run's end calls it).
  template <class P>
  void settle(P& port, Time now) {
    if (cs_->peer == nullptr) return;
    for (int vl = 0; vl < kNumVls; ++vl) cs_->refresh(vl, now);
    const uint64_t landed = cs_->peer->landed_count - cs_->ctr.fcp_received;
    cs_->ctr.fcp_received += landed;
    port.counters().rx_packets += landed;
    port.counters().rx_bytes += landed * kFcpBytes;
  }

  template <class P>
  bool on_receive(P& port, Packet* p) {
    const uint8_t vl = p->tc;
    CreditLane& l = cs_->lane[vl];
    l.abr += credit_blocks(p->wire);
    l.held += credit_blocks(p->wire);
    if (l.held > cs_->capacity) ++cs_->ctr.buffer_overruns;
    l.rcv_pkts += 1;
    l.rcv_data_bytes += p->wire;
    // A NIC moves what arrives straight to host memory: the buffer frees now.
    if (!port.at_switch()) on_release(port, vl, p->wire);
    return false;
  }

  // A NIC's control packet: the transport stamped its SL in tc.
  template <class P>
  void on_enqueue(P& port, Packet* p) noexcept {
    if (port.at_switch()) return;
    p->sl = p->tc;
    p->tc = cs_->cfg->sl2vl[p->sl & 15];
  }

  template <class P>
  void on_transmit(P& /*port*/, Packet* p) noexcept {
    const uint8_t vl = p->tc;
    const uint32_t blocks = credit_blocks(p->wire);
    if (cs_->available(vl) < blocks) ++cs_->ctr.sent_without_credit;
    CreditLane& l = cs_->lane[vl];
    last_vl_ = vl;
    l.fctbs += blocks;
    l.xmit_pkts += 1;
    l.xmit_data_bytes += p->wire;
  }

  // A packet that arrived on this port left the node's buffer: its blocks are
  // free and go back upstream, at once or batched by the update period.
  template <class P>
  void on_release(P& port, uint8_t vl, uint32_t wire) {
    cs_->lane[vl].held -= credit_blocks(wire);
    const Time period = cs_->cfg->update_period;
    if (period == Time::zero() || cs_->lane[vl].held == 0) {
      queue_fcp(port, vl);
    } else if (!((cs_->batch_armed >> vl) & 1u)) {
      cs_->batch_armed |= static_cast<uint8_t>(1u << vl);
      port.schedule_timer(port.now() + period, kBatch, vl);
    }
  }

  // A corrupted packet never takes buffer here, but the sender counted its
  // blocks (FCTBS). The sender's next FCP carries FCTBS and the receiver sets
  // ABR to it (IBTA Vol.1 §7.9.4.2), so the blocks come back; modelled at
  // once, with an FCP so the sender learns of them.
  template <class P>
  void on_corrupt(P& port, const Packet& p) {
    cs_->lane[p.tc].abr += credit_blocks(p.wire);
    queue_fcp(port, p.tc);
  }

  // Credits are this part's only signal: the switch buffer's thresholds play
  // no part in an InfiniBand link's flow control.
  template <class P>
  void on_buffered(P& /*port*/, uint8_t /*vl*/) noexcept {}
  template <class P>
  void on_left_buffer(P& /*port*/, uint8_t /*vl*/) noexcept {}

  template <class P>
  void on_timer(P& port, uint32_t kind, uint64_t arg) {
    if (kind == kWake) {
      CreditState& r = *cs_->peer;
      if (arg != static_cast<uint64_t>(r.wake_at.ps())) return;  // superseded by an earlier one
      r.wake_at = Time::never();
      port.kick();
      return;
    }
    const auto vl = static_cast<uint8_t>(arg);
    cs_->batch_armed &= static_cast<uint8_t>(~(1u << vl));
    if (cs_->advertise(vl) != cs_->lane[vl].reported) queue_fcp(port, vl);
  }

  // FCPs still waiting for the wire are lost with the link (those on it land).
  template <class P>
  void on_link_down(P& port) noexcept {
    cs_->ctr.link_downed += 1;
    const Time now = port.now();
    for (int vl = 0; vl < kNumVls; ++vl) {
      auto& q = cs_->lane[vl].in_flight;
      if (q.empty() || cs_->lane[vl].last_leave <= now) continue;
      q.pop_back();
      cs_->lane[vl].last_leave = now;  // what stays in flight has left
      cs_->ctr.fcp_sent -= 1;
      PortCounters& pc = port.counters();
      pc.tx_packets -= 1;
      pc.tx_bytes -= kFcpBytes;
      pc.busy_ps -= static_cast<uint64_t>(port.rate().tx_time(Bytes(kFcpBytes)).ps());
      cs_->ctr.fcp_lost += 1;
      count_fault_drop(port);
    }
  }
  void on_fault_drop(const Packet& /*p*/) noexcept { cs_->ctr.fault_drop_packets += 1; }
  [[nodiscard]] Time pause_left(uint8_t /*tc*/, Time /*now*/) const noexcept { return Time::zero(); }
  // Room the peer advertises on `vl` by `now`.
  [[nodiscard]] uint64_t credit_bytes(uint8_t vl, Time now) const noexcept {
    return cs_->available_at(vl, now) * kCreditBlockBytes;
  }

  // PortXmitWait up to `now`, counting a wait still in progress.
  [[nodiscard]] Time xmit_wait(Time now) const noexcept {
    int64_t ps = cs_->ctr.xmit_wait_ps;
    if (cs_->port_waiting) ps += (now - cs_->port_wait_since).ps();
    return Time::from_ps(ps);
  }
  [[nodiscard]] Time vl_xmit_wait(int vl, Time now) const noexcept {
    int64_t ps = cs_->ctr.vl_xmit_wait_ps[vl];
    if ((cs_->vl_waiting >> vl) & 1u) ps += (now - cs_->vl_wait_since[vl]).ps();
    return Time::from_ps(ps);
  }

  // The lane of the VL this port sent on last: its next decision reads it.
  [[nodiscard]] uint64_t decision_hint() const noexcept {
    return reinterpret_cast<uint64_t>(&cs_->lane[last_vl_]);
  }
  [[nodiscard]] CreditState& state() noexcept { return *cs_; }
  [[nodiscard]] const CreditState& state() const noexcept { return *cs_; }

 private:
  // Returns the newest limit on `vl` to the peer: the FCP leaves after the
  // frame on the wire and any FCP before it, ahead of queued data (IBTA
  // Vol.1 §7.9.4: flow control is never blocked by data), and holds the wire
  // for its 6 bytes. While one waits to leave, it carries every later update.
  template <class P>
  void queue_fcp(P& port, uint8_t vl) {
    CreditState& r = *cs_;
    CreditLane& l = r.lane[vl];
    const Time now = port.now();
    const uint64_t limit = r.advertise(vl);
    auto& in = l.in_flight;
    // Landed FCPs leave the queue only when it is full: every reader of the
    // limit folds or scans it (refresh, limit_at), and reading the oldest
    // entry here, one credit loop after it was written, was this function's
    // largest cache miss.
    if (in.full()) r.fold(vl, now);
    if (!in.empty() && l.last_leave > now) {
      in.back().fccl = limit;
      l.reported = limit;
    } else {
      if (!port.up()) {
        cs_->ctr.fcp_lost += 1;
        count_fault_drop(port);
        return;
      }
      const Time ser = port.rate().tx_time(Bytes(kFcpBytes));
      const Time leave = std::max(now, port.wire_free_at());
      port.hold_wire(leave + ser);
      port.note_link_frame(leave);
      in.push_back(PendingCredit{leave + ser + port.delay(), limit});
      l.last_leave = leave;
      l.reported = limit;
      cs_->ctr.fcp_sent += 1;
      PortCounters& pc = port.counters();
      pc.tx_packets += 1;
      pc.tx_bytes += kFcpBytes;
      pc.busy_ps += static_cast<uint64_t>(ser.ps());
    }
    // The peer waits for this limit and has no earlier timer: wake it when it lands.
    const PendingCredit& c = in.back();
    if (((r.wait >> vl) & 1u) != 0 && c.fccl >= l.need && c.arrive < r.wake_at) {
      r.wake_at = c.arrive;
      port.peer_port().schedule_timer(c.arrive, kWake, static_cast<uint64_t>(c.arrive.ps()));
    }
  }

  template <class P>
  void count_fault_drop(P& port) noexcept {
    cs_->ctr.fault_drop_packets += 1;
    port.counters().fault_drop_packets += 1;
  }

  // The port is blocked for credit on the VLs in `blocked` (their head
  // packets) and, when its NIC has more, on every VL without room for a
  // full-size packet: a timer for the first FCP in flight that unblocks one.
  // FCPs sent later set it themselves (queue_fcp).
  template <class P>
  void await_credit(P& port, uint32_t blocked) {
    if (cs_->peer == nullptr) return;
    CreditState& r = *cs_->peer;
    uint8_t wait = 0;
    for (uint32_t m = blocked; m != 0; m &= m - 1) {
      const int vl = __builtin_ctz(m);
      wait |= static_cast<uint8_t>(1u << vl);
      r.lane[vl].need = cs_->lane[vl].fctbs + credit_blocks(port.queues().head(vl)->wire);
    }
    if (port.source_has_more())
      for (int vl = 0; vl < kNumVls; ++vl)
        if (((wait >> vl) & 1u) == 0 && cs_->available(vl) < max_packet_blocks_) {
          wait |= static_cast<uint8_t>(1u << vl);
          r.lane[vl].need = cs_->lane[vl].fctbs + max_packet_blocks_;
        }
    r.wait = wait;
    cs_->awaiting = wait != 0;
    Time at = Time::never();
    for (uint32_t m = wait; m != 0; m &= m - 1) {
      const int vl = __builtin_ctz(m);
      const auto& q = r.lane[vl].in_flight;
      for (size_t i = 0; i < q.size() && q[i].arrive < at; ++i)
        if (q[i].fccl >= r.lane[vl].need) {
          at = q[i].arrive;
          break;
        }
    }
    if (at < r.wake_at) {
      r.wake_at = at;
      port.schedule_timer(at, kWake, static_cast<uint64_t>(at.ps()));
    }
  }

  void note_wait(uint32_t blocked_vls, bool port_blocked, Time now) noexcept {
    const auto blocked = static_cast<uint8_t>(blocked_vls);
    for (uint32_t m = blocked & ~cs_->vl_waiting & 0xffu; m != 0; m &= m - 1)
      cs_->vl_wait_since[__builtin_ctz(m)] = now;
    for (uint32_t m = cs_->vl_waiting & ~blocked & 0xffu; m != 0; m &= m - 1) {
      const int vl = __builtin_ctz(m);
      cs_->ctr.vl_xmit_wait_ps[vl] += (now - cs_->vl_wait_since[vl]).ps();
    }
    cs_->vl_waiting = blocked;
    if (port_blocked && !cs_->port_waiting) {
      cs_->port_waiting = true;
      cs_->port_wait_since = now;
    } else if (!port_blocked && cs_->port_waiting) {
      cs_->port_waiting = false;
      cs_->ctr.xmit_wait_ps += (now - cs_->port_wait_since).ps();
    }
  }

  // On the heap: the state is large, and keeping it out of line keeps every
  // port's LinkFlowControl (and the Port's hot fields) as small as PFC's.
  std::unique_ptr<CreditState> cs_;
  uint32_t max_packet_blocks_ = 0;
  uint8_t last_vl_ = 0;
};

}  // namespace rdmasim
