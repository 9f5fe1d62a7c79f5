#include "net/port.h"

#include <algorithm>

#include "net/network.h"
#include "net/node.h"
#include "net/switch.h"

namespace rdmasim {

void Port::fault_drop(Packet* p) {
  ctr_.fault_drop_packets += 1;
  if (credit_ != nullptr) credit_->ctr.fault_drop_packets += 1;
  if (p->type == PktType::kCredit) credit_->fcp_queued &= static_cast<uint8_t>(~(1u << p->tc));
  net_.drop(p);
}

void Port::set_up(bool up) {
  if (up == up_) return;
  up_ = up;
  if (!up) {
    if (credit_ != nullptr) credit_->ctr.link_downed += 1;
    while (ctrl_head_ != nullptr) {
      Packet* p = ctrl_head_;
      ctrl_head_ = p->next;
      fault_drop(p);
    }
    ctrl_tail_ = nullptr;
    for (uint32_t m = queues_.nonempty_mask(); m != 0; m = queues_.nonempty_mask()) {
      Packet* p = queues_.take_head(__builtin_ctz(m));
      if (sw_ != nullptr) sw_->on_dequeue(*p, index_, false);
      fault_drop(p);
    }
    return;
  }
  if (credit_ != nullptr) {
    const CreditState& r = *peer_->port(peer_index_).credit();
    for (int vl = 0; vl < kNumVls; ++vl) {
      credit_->fctbs[vl] = r.abr[vl];
      credit_->fccl[vl] = r.advertise(vl);
    }
    for (int vl = 0; vl < kNumVls; ++vl) credit_->reported[vl] = credit_->advertise(vl);
  }
  kick();
}

void Port::enqueue(Packet* p) {
  if (!up_) {
    // Routed to a failed link before the fabric has rerouted around it.
    if (sw_ != nullptr) sw_->on_dequeue(*p, index_, false);
    fault_drop(p);
    return;
  }
  if (credit_ != nullptr && sw_ == nullptr) {
    // A NIC's control packet: the transport stamped its SL in tc.
    p->sl = p->tc;
    p->tc = credit_->cfg->sl2vl[p->sl & 15];
  }
  queues_.push(p);
  const uint64_t depth = queues_.bytes(p->tc);
  if (depth > ctr_.queue_watermark_bytes[p->tc]) ctr_.queue_watermark_bytes[p->tc] = depth;
  kick();
}

void Port::send_control_frame(Packet* p) {
  if (!up_) {
    fault_drop(p);
    return;
  }
  p->next = nullptr;
  if (ctrl_tail_ != nullptr)
    ctrl_tail_->next = p;
  else
    ctrl_head_ = p;
  ctrl_tail_ = p;
  kick();
}

uint32_t Port::eligible_mask(Time now) const {
  if (pause_seen_ == 0) return 0xff;
  uint32_t m = 0xff;
  for (int tc = 0; tc < kNumTcs; ++tc)
    if (((pause_seen_ >> tc) & 1u) && paused_until_[tc] > now) m &= ~(1u << tc);
  return m;
}

bool Port::receive_frame(Packet* p) {
  ctr_.rx_packets += 1;
  ctr_.rx_bytes += p->wire;
  if (credit_ != nullptr) {
    if (p->type == PktType::kCredit) {
      credit_arrival(p);
      return true;
    }
    CreditState& cs = *credit_;
    const uint8_t vl = p->tc;
    cs.abr[vl] += credit_blocks(p->wire);
    cs.held[vl] += credit_blocks(p->wire);
    if (cs.held[vl] > cs.capacity) ++cs.ctr.buffer_overruns;
    cs.ctr.rcv_pkts[vl] += 1;
    cs.ctr.rcv_data_bytes[vl] += p->wire;
    // A NIC moves what arrives straight to host memory: the buffer frees now.
    if (sw_ == nullptr) credit_release(vl, p->wire);
    return false;
  }
  if (p->type != PktType::kPfc) return false;
  ctr_.pfc_rx_frames[p->tc] += 1;
  apply_pause(p->tc, static_cast<uint32_t>(p->psn));
  net_.deliver(p);
  return true;
}

bool Port::paused(uint8_t tc) const { return paused_until_[tc] > net_.sim().now(); }

void Port::apply_pause(uint8_t tc, uint32_t quanta) {
  const Time now = net_.sim().now();
  // One quantum is 512 bit times = 64 bytes at this port's rate.
  const Time until = now + rate_.tx_time(Bytes(int64_t{64} * quanta));
  // Keep paused_ps equal to the paused time granted so far, counting an
  // early XON or a refresh as cutting short or extending the last grant.
  if (paused_until_[tc] > now) ctr_.pfc_paused_ps[tc] -= (paused_until_[tc] - now).ps();
  ctr_.pfc_paused_ps[tc] += (until - now).ps();
  paused_until_[tc] = until;
  pause_seen_ |= static_cast<uint8_t>(1u << tc);
  if (until > now)
    net_.sim().schedule(until, this, kResume, tc);
  else
    kick();
}

Time Port::paused_time(uint8_t tc, Time now) const {
  int64_t ps = ctr_.pfc_paused_ps[tc];
  if (paused_until_[tc] > now) ps -= (paused_until_[tc] - now).ps();
  return Time::from_ps(ps);
}

void Port::enable_credit(const CreditConfig* cfg, uint64_t capacity_blocks, uint32_t max_packet_bytes) {
  credit_ = std::make_unique<CreditState>();
  credit_->cfg = cfg;
  credit_->capacity = capacity_blocks;
  credit_->arbiter.set_config(cfg);
  for (int vl = 0; vl < kNumVls; ++vl) credit_->reported[vl] = capacity_blocks;
  max_packet_blocks_ = credit_blocks(max_packet_bytes);
}

void Port::init_peer_credit(uint64_t peer_capacity_blocks) {
  credit_->peer_capacity = peer_capacity_blocks;
  for (int vl = 0; vl < kNumVls; ++vl) credit_->fccl[vl] = credit_->fctbs[vl] + peer_capacity_blocks;
}

void Port::credit_arrival(Packet* p) {
  CreditState& cs = *credit_;
  // FCPs travel in order on one link, so each carries a limit at least as new
  // as the last; max() keeps that true even if a test injects one late.
  cs.fccl[p->tc] = std::max(cs.fccl[p->tc], p->psn);
  cs.ctr.fcp_received += 1;
  net_.deliver(p);
  kick();
}

void Port::credit_release(uint8_t vl, uint32_t wire) {
  CreditState& cs = *credit_;
  cs.held[vl] -= credit_blocks(wire);
  const Time period = cs.cfg->update_period;
  if (period == Time::zero() || cs.held[vl] == 0) {
    queue_fcp(vl);
  } else if (!((cs.batch_armed >> vl) & 1u)) {
    cs.batch_armed |= static_cast<uint8_t>(1u << vl);
    net_.sim().schedule_in(period, this, kCreditBatch, vl);
  }
}

void Port::queue_fcp(uint8_t vl) {
  CreditState& cs = *credit_;
  if ((cs.fcp_queued >> vl) & 1u) return;  // the waiting FCP will carry the newest FCCL
  cs.fcp_queued |= static_cast<uint8_t>(1u << vl);
  Packet* f = net_.new_packet(PktType::kCredit);
  f->tc = vl;
  f->wire = kFcpBytes;
  send_control_frame(f);
}

void Port::note_wait(uint32_t blocked_vls, bool port_blocked, Time now) {
  CreditState& cs = *credit_;
  const auto blocked = static_cast<uint8_t>(blocked_vls);
  for (uint32_t m = blocked & ~cs.vl_waiting & 0xffu; m != 0; m &= m - 1)
    cs.vl_wait_since[__builtin_ctz(m)] = now;
  for (uint32_t m = cs.vl_waiting & ~blocked & 0xffu; m != 0; m &= m - 1) {
    const int vl = __builtin_ctz(m);
    cs.ctr.vl_xmit_wait_ps[vl] += (now - cs.vl_wait_since[vl]).ps();
  }
  cs.vl_waiting = blocked;
  if (port_blocked && !cs.port_waiting) {
    cs.port_waiting = true;
    cs.port_wait_since = now;
  } else if (!port_blocked && cs.port_waiting) {
    cs.port_waiting = false;
    cs.ctr.xmit_wait_ps += (now - cs.port_wait_since).ps();
  }
}

Time Port::xmit_wait(Time now) const {
  if (credit_ == nullptr) return Time::zero();
  int64_t ps = credit_->ctr.xmit_wait_ps;
  if (credit_->port_waiting) ps += (now - credit_->port_wait_since).ps();
  return Time::from_ps(ps);
}

Time Port::vl_xmit_wait(int vl, Time now) const {
  if (credit_ == nullptr) return Time::zero();
  int64_t ps = credit_->ctr.vl_xmit_wait_ps[vl];
  if ((credit_->vl_waiting >> vl) & 1u) ps += (now - credit_->vl_wait_since[vl]).ps();
  return Time::from_ps(ps);
}

// The credit-mode transmitter decision: VL arbitration among the VLs whose
// head packet has credit; a NIC's own packets are pulled only for SLs whose
// VL has credit for a full-size packet.
void Port::kick_credit(Time now) {
  CreditState& cs = *credit_;
  const uint32_t queued = queues_.nonempty_mask();
  uint32_t ready = 0;
  for (uint32_t m = queued; m != 0; m &= m - 1) {
    const int vl = __builtin_ctz(m);
    if (cs.available(vl) >= credit_blocks(queues_.head(vl)->wire)) ready |= 1u << vl;
  }
  Packet* p = nullptr;
  const int vl = cs.arbiter.pick(ready, [&](int v) { return queues_.head(v)->wire; });
  if (vl >= 0) {
    p = queues_.take_head(vl);
    if (sw_ != nullptr) sw_->on_dequeue(*p, index_, true);
  } else if (source_ != nullptr) {
    uint32_t vl_ok = 0;
    for (int v = 0; v < kNumVls; ++v)
      if (cs.available(v) >= max_packet_blocks_) vl_ok |= 1u << v;
    uint32_t sl_ok = 0xff;  // the NIC's fast path: every class may send
    if (vl_ok != 0xffu) {
      sl_ok = 0;
      for (int sl = 0; sl < kNumSls; ++sl)
        if ((vl_ok >> cs.cfg->sl2vl[sl]) & 1u) sl_ok |= 1u << sl;
    }
    if (sl_ok != 0) p = source_->pull(*this, sl_ok);
    if (p != nullptr) {
      p->sl = p->tc;
      p->tc = cs.cfg->sl2vl[p->sl & 15];
    }
  }
  const bool has_data = queued != 0 || (source_ != nullptr && source_->has_more(*this));
  note_wait(queued & ~ready, p == nullptr && has_data, now);
  if (p != nullptr) transmit(p, now);
}

void Port::kick() {
  if (!up_) return;
  const Time now = net_.sim().now();
  if (now < busy_until_) {
    if (!tx_pending_) {
      tx_pending_ = true;
      net_.sim().schedule(busy_until_, this, kTxDone);
    }
    return;
  }
  if (tx_pending_) return;  // a TxDone at `now` is already queued and will send
  Packet* p = ctrl_head_;
  if (p != nullptr) {
    ctrl_head_ = p->next;
    if (ctrl_head_ == nullptr) ctrl_tail_ = nullptr;
    transmit(p, now);
    return;
  }
  if (credit_ != nullptr) {
    kick_credit(now);
    return;
  }
  const uint32_t eligible = eligible_mask(now);
  p = queues_.pop(eligible);
  if (p != nullptr) {
    if (sw_ != nullptr) sw_->on_dequeue(*p, index_, true);
  } else if (source_ != nullptr) {
    p = source_->pull(*this, eligible);
  }
  if (p != nullptr) transmit(p, now);
}

void Port::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kCreditBatch) {
    const auto vl = static_cast<uint8_t>(arg);
    credit_->batch_armed &= static_cast<uint8_t>(~(1u << vl));
    if (credit_->advertise(vl) != credit_->reported[vl]) queue_fcp(vl);
    return;
  }
  if (kind == kResume) {
    if (paused_until_[arg] > net_.sim().now()) return;  // refreshed since
    kick();
    return;
  }
  tx_pending_ = false;
  kick();
}

Time Port::wire_clear_at() const {
  return busy_until_ + delay_ + (peer_ != nullptr ? peer_->ingress_latency() : Time::zero());
}

void Port::transmit(Packet* p, Time now) {
  const Time ser = rate_.tx_time(Bytes(p->wire));
  // Cut-through cannot send faster than the packet arrives: if this port is
  // faster than the one it came in on, hold the start so the last bit leaves
  // no earlier than it arrived.
  Time start = now;
  if (p->tail_ready > now + ser) start = p->tail_ready - ser;
  busy_until_ = start + ser;
  ctr_.tx_packets += 1;
  ctr_.tx_bytes += p->wire;
  ctr_.busy_ps += static_cast<uint64_t>(ser.ps());
  if (p->type == PktType::kData) ctr_.tx_data_payload_bytes += p->payload;
  if (credit_ != nullptr) {
    CreditState& cs = *credit_;
    const uint8_t vl = p->tc;
    if (p->type == PktType::kCredit) {
      // Sent with the newest limit, not the one current when it was queued.
      p->psn = cs.advertise(vl);
      cs.reported[vl] = p->psn;
      cs.fcp_queued &= static_cast<uint8_t>(~(1u << vl));
      cs.ctr.fcp_sent += 1;
    } else {
      const uint32_t blocks = credit_blocks(p->wire);
      if (cs.available(vl) < blocks) ++cs.ctr.sent_without_credit;
      cs.fctbs[vl] += blocks;
      cs.ctr.xmit_pkts[vl] += 1;
      cs.ctr.xmit_data_bytes[vl] += p->wire;
    }
  }
  if (p->hops == 0 && p->type != PktType::kAck) p->sent_at = start;  // an ACK carries an echo
  ++p->hops;
  p->in_port = peer_index_;
  Node* peer = peer_;
  // PAUSE frames act at the receiving MAC; only forwarded packets pay the
  // peer's pipeline latency.
  const Time in_latency =
      p->type == PktType::kPfc || p->type == PktType::kCredit ? Time::zero() : peer->ingress_latency();
  const Time last_bit_in = busy_until_ + delay_ + in_latency;
  Time arrive = last_bit_in;
  const uint32_t ct = peer->cut_through_bytes();
  if (ct != 0 && ct < p->wire) {
    arrive = start + rate_.tx_time(Bytes(ct)) + delay_ + in_latency;
    p->tail_ready = last_bit_in;
  } else {
    p->tail_ready = Time::zero();
  }
  net_.sim().schedule(arrive, peer, Node::kArrive, reinterpret_cast<uint64_t>(p));
  if (ctrl_head_ != nullptr || !queues_.empty() || (source_ != nullptr && source_->has_more(*this))) {
    tx_pending_ = true;
    net_.sim().schedule(busy_until_, this, kTxDone);
  }
}

}  // namespace rdmasim
