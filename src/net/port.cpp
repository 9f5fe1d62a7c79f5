#include "net/port.h"

#include <algorithm>
#include <cmath>

#include "net/network.h"
#include "net/node.h"
#include "net/switch.h"

namespace rdmasim {

Time Port::now() const { return net_.sim().now(); }

void Port::set_switch(Switch* sw) {
  sw_ = sw;
  mmu_ = sw != nullptr ? &sw->mmu() : nullptr;
}

void Port::note_pause_sent(bool xoff) {
  if (sw_ != nullptr) sw_->note_pause_sent(xoff);  // a stuck NIC's XOFF is its port's count only
}

void Port::schedule_timer(Time at, uint32_t kind, uint64_t arg) { net_.sim().schedule(at, this, kind, arg); }

Packet* Port::dequeue(uint32_t eligible) {
  Packet* p = queues_.pop(eligible);
  if (p != nullptr && sw_ != nullptr) sw_->on_dequeue(*p, index_, true);
  return p;
}

Packet* Port::dequeue_class(int cls) {
  Packet* p = queues_.take_head(cls);
  if (sw_ != nullptr) sw_->on_dequeue(*p, index_, true);
  return p;
}

CreditState* Port::credit() {
  CreditFlowControl* c = fc_.credit();
  return c != nullptr ? &c->state() : nullptr;
}

const CreditState* Port::credit() const {
  const CreditFlowControl* c = fc_.credit();
  return c != nullptr ? &c->state() : nullptr;
}

Time Port::xmit_wait(Time now) const {
  const CreditFlowControl* c = fc_.credit();
  return c != nullptr ? c->xmit_wait(now) : Time::zero();
}

Time Port::vl_xmit_wait(int vl, Time now) const {
  const CreditFlowControl* c = fc_.credit();
  return c != nullptr ? c->vl_xmit_wait(vl, now) : Time::zero();
}

void Port::fault_drop(Packet* p) {
  ctr_.fault_drop_packets += 1;
  fc_.on_fault_drop(*p);
  net_.drop(p);
}

void Port::set_up(bool up) {
  if (up == up_) return;
  up_ = up;
  if (!up) {
    fc_.on_link_down(*this);
    while (ctrl_head_ != nullptr) {
      Packet* p = ctrl_head_;
      ctrl_head_ = p->next;
      fault_drop(p);
    }
    ctrl_tail_ = nullptr;
    for (uint32_t m = queues_.nonempty_mask(); m != 0; m = queues_.nonempty_mask()) {
      Packet* p = queues_.take_head(__builtin_ctz(m));
      if (sw_ != nullptr && sw_->reroute_queued(*p, index_)) continue;
      if (sw_ != nullptr) sw_->on_dequeue(*p, index_, false);
      fault_drop(p);
    }
    return;
  }
  fc_.resync(peer_->port(peer_index_).flow_control());
  kick();
}

void Port::watchdog_drop(Packet* p) {
  ctr_.pfc_wd_drop_packets[p->tc] += 1;
  if (sw_ != nullptr) sw_->on_dequeue(*p, index_, false);
  net_.drop(p);
}

void Port::set_watchdog_drop(uint8_t tc, bool on) {
  const auto bit = static_cast<uint8_t>(1u << tc);
  wd_drop_ = on ? (wd_drop_ | bit) : (wd_drop_ & ~bit);
  if (!on) return;
  while (queues_.head(tc) != nullptr) watchdog_drop(queues_.take_head(tc));
}

void Port::enqueue(Packet* p) {
  if (!up_) {
    // Routed to a failed link before the fabric has rerouted around it.
    if (sw_ != nullptr) sw_->on_dequeue(*p, index_, false);
    fault_drop(p);
    return;
  }
  if (((wd_drop_ >> p->tc) & 1u) != 0) [[unlikely]] {
    watchdog_drop(p);
    return;
  }
  fc_.on_enqueue(*this, p);
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

bool Port::receive_frame(Packet* p) {
  // The MAC drops a frame that failed its FCS check before anything else
  // sees it: it counts as a receive error, not as a received packet. A
  // cut-through switch would have started forwarding it and stomped its
  // FCS; dropping it here loses the same frame one hop earlier.
  if ((p->flags & kWireLoss) != 0) [[unlikely]] {
    ctr_.corrupt_drop_packets += 1;
    fc_.on_corrupt(*this, *p);
    net_.drop(p);
    return true;
  }
  ctr_.rx_packets += 1;
  ctr_.rx_bytes += p->wire;
  return fc_.on_receive(*this, p);
}

bool Port::paused(uint8_t tc) const { return fc_.pause_left(tc, net_.sim().now()) > Time::zero(); }

void Port::apply_pause(uint8_t tc, uint32_t quanta) {
  if (PfcFlowControl* pfc = fc_.pfc()) pfc->apply_pause(*this, tc, quanta);
}

Time Port::paused_time(uint8_t tc, Time now) const {
  return Time::from_ps(ctr_.pfc_paused_ps[tc]) - fc_.pause_left(tc, now);
}

void Port::kick() {
  if (!up_) return;
  const Time now = net_.sim().now();
  if (now < busy_until_) {
    if (!tx_pending_) {
      tx_pending_ = true;
      net_.sim().schedule(busy_until_, this, kTxDone, decision_hint());
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
  p = fc_.next(*this, now);
  if (p != nullptr) transmit(p, now);
}

void Port::connect(Node* peer, uint16_t peer_index) {
  peer_ = peer;
  peer_index_ = peer_index;
  peer_latency_ = peer != nullptr ? peer->ingress_latency() : Time::zero();
  peer_ct_bytes_ = peer != nullptr ? peer->cut_through_bytes() : 0;
  peer_routes_ =
      peer != nullptr && peer->kind() == NodeKind::kSwitch ? &static_cast<Switch*>(peer)->routes() : nullptr;
}

void Port::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kWireArrive) {
    // The peer switch routes this frame next; its route entry is usually
    // cold, so start loading it before this port's own bookkeeping.
    // NOLINTNEXTLINE(performance-no-int-to-ptr): arg is the frame's address
    if (peer_routes_ != nullptr) peer_routes_->prefetch(reinterpret_cast<const Packet*>(arg)->dst);
    wire_.pop_front();  // arg is its packet (the engine prefetched it)
    if (!wire_.empty()) {
      const InFlight& next = wire_.front();
      net_.sim().schedule_at_seq(next.at, next.seq, this, kWireArrive, reinterpret_cast<uint64_t>(next.p));
    }
    peer_->on_event(Node::kArrive, arg);
    return;
  }
  if (kind != kTxDone) {
    fc_.on_timer(*this, kind, arg);
    return;
  }
  tx_pending_ = false;
  kick();
}

Port& Port::peer_port() const { return peer_->port(peer_index_); }

Time Port::wire_clear_at() const {
  return busy_until_ + delay_ + peer_latency_;  // zero without a peer
}

void Port::transmit(Packet* p, Time now) {
  const Time ser = ser_time(p->wire);
  // Cut-through cannot send faster than the packet arrives: if this port is
  // faster than the one it came in on, hold the start so the last bit leaves
  // no earlier than it arrived.
  Time start = now;
  if (p->tail_ready > now + ser) start = p->tail_ready - ser;
  if (hold_until_ > start) start = hold_until_;  // behind an InfiniBand FCP
  busy_until_ = start + ser;
  ctr_.tx_packets += 1;
  ctr_.tx_bytes += p->wire;
  ctr_.busy_ps += static_cast<uint64_t>(ser.ps());
  if (p->type == PktType::kData) ctr_.tx_data_payload_bytes += p->payload;
  fc_.on_transmit(*this, p);
  // After the flow control, which may still set fields of the frame.
  if (tap_ != nullptr) [[unlikely]]
    tap_->on_transmit(*this, *p, start);
  if (p->hops == 0 && p->type != PktType::kAck) p->sent_at = start;  // an ACK carries an echo
  ++p->hops;
  p->in_port = peer_index_;
  Node* peer = peer_;
  // PAUSE frames act at the receiving MAC; only forwarded packets pay the
  // peer's pipeline latency.
  const bool at_mac = p->type == PktType::kPfc;
  assert(peer_latency_ == peer->ingress_latency() && peer_ct_bytes_ == peer->cut_through_bytes());
  const Time in_latency = at_mac ? Time::zero() : peer_latency_;
  const Time last_bit_in = busy_until_ + delay_ + in_latency;
  Time arrive = last_bit_in;
  const uint32_t ct = peer_ct_bytes_;
  if (ct != 0 && ct < p->wire) {
    arrive = start + ser_time(ct) + delay_ + in_latency;
    p->tail_ready = last_bit_in;
  } else {
    p->tail_ready = Time::zero();
  }
  // A lost frame still takes its time on the wire and reaches the peer, whose
  // MAC discards it (receive_frame); no draw at all on a loss-free link.
  if (loss_ > 0.0 && loss_rng_.uniform01() < loss_) {
    p->flags |= kWireLoss;
  } else if (ber_log_ < 0.0 && p->type != PktType::kPfc) [[unlikely]] {
    // Bit errors: the frame survives only if all its bits do, (1 - ber)^bits.
    if (loss_rng_.uniform01() < -std::expm1(ber_log_ * 8.0 * p->wire)) p->flags |= kWireLoss;
  }
  if (at_mac || (!wire_.empty() && arrive < wire_last_)) [[unlikely]] {
    // PAUSE frames skip the ingress latency and may overtake the
    // frames on the wire: an event of their own (as would anything else that
    // arrived ahead of the wire's last frame, which the timing above rules out).
    net_.sim().schedule(arrive, peer, Node::kArrive, reinterpret_cast<uint64_t>(p));
  } else {
    const uint64_t seq = net_.sim().take_seq();
    if (wire_.empty())
      net_.sim().schedule_at_seq(arrive, seq, this, kWireArrive, reinterpret_cast<uint64_t>(p));
    wire_.push_back(InFlight{arrive, seq, p});
    wire_last_ = arrive;
  }
  if (ctrl_head_ != nullptr || !queues_.empty() || (source_ != nullptr && source_->has_more(*this))) {
    tx_pending_ = true;
    net_.sim().schedule(busy_until_, this, kTxDone, decision_hint());
  }
}

}  // namespace rdmasim
