#include "net/port.h"

#include <algorithm>

#include "net/mmu.h"
#include "net/network.h"
#include "net/node.h"

namespace rdmasim {

void Port::enqueue(Packet* p) {
  queues_.push(p);
  const uint64_t depth = queues_.bytes(p->tc);
  if (depth > ctr_.queue_watermark_bytes[p->tc]) ctr_.queue_watermark_bytes[p->tc] = depth;
  kick();
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
  Packet* p = queues_.pop();
  if (p != nullptr) {
    if (mmu_ != nullptr) mmu_->release(index_, p->tc, p->wire);
  } else if (source_ != nullptr) {
    p = source_->pull(*this);
  }
  if (p != nullptr) transmit(p, now);
}

void Port::on_event(uint32_t /*kind*/, uint64_t /*arg*/) {
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
  if (p->hops == 0) p->sent_at = start;
  ++p->hops;
  p->in_port = peer_index_;
  Node* peer = peer_;
  const Time last_bit_in = busy_until_ + delay_ + peer->ingress_latency();
  Time arrive = last_bit_in;
  const uint32_t ct = peer->cut_through_bytes();
  if (ct != 0 && ct < p->wire) {
    arrive = start + rate_.tx_time(Bytes(ct)) + delay_ + peer->ingress_latency();
    p->tail_ready = last_bit_in;
  } else {
    p->tail_ready = Time::zero();
  }
  net_.sim().schedule(arrive, peer, Node::kArrive, reinterpret_cast<uint64_t>(p));
  if (!queues_.empty() || (source_ != nullptr && source_->has_more(*this))) {
    tx_pending_ = true;
    net_.sim().schedule(busy_until_, this, kTxDone);
  }
}

}  // namespace rdmasim
