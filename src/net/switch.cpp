#include "net/switch.h"

#include <cassert>

#include "net/network.h"

namespace rdmasim {

Time Switch::now() const { return net_.sim().now(); }

IntTable& Switch::telemetry() { return net_.telemetry(); }

void Switch::set_port_mtu(uint16_t port, uint32_t bytes) {
  ports_[port]->set_max_payload(bytes);
  mtu_limited_ = true;
}

bool Switch::drop_oversize(Port& in, Port& out, Packet* p) {
  const auto over = [&](const Port& port) {
    // Only data carries payload (a UET ACK's field holds its SACK offset).
    return port.max_payload() != 0 && p->type == PktType::kData && p->payload > port.max_payload();
  };
  Port* at = over(in) ? &in : over(out) ? &out : nullptr;
  if (at == nullptr) return false;
  ++ctr_.oversize_drops;
  at->counters().oversize_drop_packets += 1;
  in.release(p->tc, p->wire);  // it held ingress buffer since arrival
  net_.drop(p);
  return true;
}

void Switch::on_event(uint32_t /*kind*/, uint64_t arg) {
  receive(reinterpret_cast<Packet*>(arg) /* NOLINT(performance-no-int-to-ptr) */);
}

void Switch::receive(Packet* p) {
  Port& in = *ports_[p->in_port];
  if (in.receive_frame(p)) return;
  if (p->type == PktType::kSharp && aggregation_ != nullptr) [[unlikely]] {
    aggregation_->on_packet(*this, in, p);
    return;
  }
  const int out_idx = fwd_.select(*this, *p);
  if (out_idx < 0) {
    ++ctr_.no_route_drops;
    in.counters().drop_packets[p->tc] += 1;
    in.counters().drop_bytes[p->tc] += p->wire;
    in.release(p->tc, p->wire);  // it held ingress buffer since arrival
    net_.drop(p);
    return;
  }
  Port& out = *ports_[out_idx];
  if (mtu_limited_ && drop_oversize(in, out, p)) [[unlikely]]
    return;
  if (trims_) points_.before_admit(*this, *p, out);
  // By the index the route gave, not out.index(): the egress port's state is
  // usually cold here, and the MMU's accounting need not wait for it.
  const auto out_port = static_cast<uint16_t>(out_idx);
  assert(out.index() == out_port);
  Mmu::Verdict v = mmu_.admit(p->in_port, out_port, p->tc, p->wire);
  if (v != Mmu::Verdict::kAdmit && points_.on_overflow(*this, *p, out) == OverflowAction::kForward)
    v = mmu_.admit(p->in_port, out_port, p->tc, p->wire);  // the packet as a point rewrote it
  if (v != Mmu::Verdict::kAdmit) {
    buffer_drop(in, out, p, v);
    return;
  }
  points_.on_enqueue(*this, *p, out);
  in.flow_control().on_buffered(in, p->tc);
  out.enqueue(p);
}

void Switch::retype(Packet& p, PktType t) { net_.retype(&p, t); }

void Switch::buffer_drop(Port& in, Port& out, Packet* p, Mmu::Verdict v) {
  ++ctr_.buffer_drops;
  out.counters().drop_packets[p->tc] += 1;
  out.counters().drop_bytes[p->tc] += p->wire;
  if (v == Mmu::Verdict::kDropLossless) {
    ++ctr_.lossless_drops;
    out.counters().lossless_drop_packets[p->tc] += 1;
  }
  in.release(p->tc, p->wire);  // it held ingress buffer since arrival
  net_.drop(p);
}

bool Switch::reroute_queued(Packet& p, uint16_t dead) {
  // An aggregation result belongs to its tree's links: it is lost with them.
  if (!reroute_queued_ || p.type == PktType::kSharp) return false;
  const int out_idx = fwd_.select(*this, p);
  if (out_idx < 0 || out_idx == dead || !ports_[out_idx]->up()) return false;
  // Out of the dead port's share of the buffer and into the new one's; the
  // ingress port still holds it, as before.
  Port& out = *ports_[out_idx];
  mmu_.release(p.in_port, dead, p.tc, p.wire);
  points_.on_dequeue(*this, p, *ports_[dead], false);
  const Mmu::Verdict v = mmu_.admit(p.in_port, out.index(), p.tc, p.wire);
  if (v != Mmu::Verdict::kAdmit) {
    Port& in = *ports_[p.in_port];
    const uint8_t tc = p.tc;
    buffer_drop(in, out, &p, v);
    in.flow_control().on_left_buffer(in, tc);  // it had entered the ingress buffer
    return true;
  }
  points_.on_enqueue(*this, p, out);
  out.enqueue(&p);
  return true;
}

void Switch::on_dequeue(Packet& p, uint16_t out, bool departs) {
  if (p.type == PktType::kSharp) [[unlikely]] {
    aggregate_bytes_ -= p.wire;  // never in the shared buffer (emit_aggregate)
    return;
  }
  mmu_.release(p.in_port, out, p.tc, p.wire);
  points_.on_dequeue(*this, p, *ports_[out], departs);
  Port& in = *ports_[p.in_port];
  in.release(p.tc, p.wire);
  in.flow_control().on_left_buffer(in, p.tc);
}

}  // namespace rdmasim
