#include "net/port.h"

#include <algorithm>

#include "net/network.h"
#include "net/node.h"
#include "net/switch.h"

namespace rdmasim {

void Port::enqueue(Packet* p) {
  queues_.push(p);
  const uint64_t depth = queues_.bytes(p->tc);
  if (depth > ctr_.queue_watermark_bytes[p->tc]) ctr_.queue_watermark_bytes[p->tc] = depth;
  kick();
}

void Port::send_control_frame(Packet* p) {
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

void Port::kick() {
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
  const uint32_t eligible = eligible_mask(now);
  p = queues_.pop(eligible);
  if (p != nullptr) {
    if (sw_ != nullptr) sw_->on_dequeue(*p, index_);
  } else if (source_ != nullptr) {
    p = source_->pull(*this, eligible);
  }
  if (p != nullptr) transmit(p, now);
}

void Port::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kResume) {
    if (paused_until_[arg] > net_.sim().now()) return;  // refreshed since
    kick();
    return;
  }
  tx_pending_ = false;
  kick();
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
  if (p->hops == 0 && p->type != PktType::kAck) p->sent_at = start;  // an ACK carries an echo
  ++p->hops;
  p->in_port = peer_index_;
  Node* peer = peer_;
  // PAUSE frames act at the receiving MAC; only forwarded packets pay the
  // peer's pipeline latency.
  const Time in_latency = p->type == PktType::kPfc ? Time::zero() : peer->ingress_latency();
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
