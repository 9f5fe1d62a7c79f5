#include "net/switch.h"

#include "net/network.h"

namespace rdmasim {

void Switch::configure(const PfcConfig& pfc) {
  pfc_ = pfc;
  refresh_at_.assign(ports_.size(), {});
}

Time Switch::now() const { return net_.sim().now(); }

IntTable& Switch::telemetry() { return net_.telemetry(); }

void Switch::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kPfcRefresh) {
    const auto port = static_cast<uint16_t>(arg >> 3);
    const auto tc = static_cast<uint8_t>(arg & 7);
    if (refresh_at_[port][tc] != net_.sim().now() || !mmu_.paused(port, tc)) return;
    send_pause(port, tc, pfc_.quanta);
    return;
  }
  receive(reinterpret_cast<Packet*>(arg) /* NOLINT(performance-no-int-to-ptr) */);
}

void Switch::send_pause(uint16_t port, uint8_t tc, uint32_t quanta) {
  Port& p = *ports_[port];
  Packet* f = net_.new_packet(PktType::kPfc);
  f->tc = tc;
  f->psn = quanta;
  f->wire = static_cast<uint16_t>(net_.framing().pfc_wire());
  p.counters().pfc_tx_frames[tc] += 1;
  if (quanta == 0) {
    ++ctr_.pfc_xon_sent;
    refresh_at_[port][tc] = Time::never();
  } else {
    ++ctr_.pfc_xoff_sent;
    const Time pause = p.rate().tx_time(Bytes(int64_t{64} * quanta));
    const Time at =
        net_.sim().now() + Time::from_ps(static_cast<int64_t>(pfc_.refresh_fraction * pause.ps()));
    refresh_at_[port][tc] = at;
    net_.sim().schedule(at, this, kPfcRefresh, static_cast<uint64_t>(port) << 3 | tc);
  }
  p.send_control_frame(f);
}

void Switch::receive(Packet* p) {
  Port& in = *ports_[p->in_port];
  if (in.receive_frame(p)) return;
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
  Mmu::Verdict v = mmu_.admit(p->in_port, out.index(), p->tc, p->wire);
  if (v != Mmu::Verdict::kAdmit && points_.on_overflow(*this, *p, out) == OverflowAction::kForward)
    v = mmu_.admit(p->in_port, out.index(), p->tc, p->wire);  // the packet as a point rewrote it
  if (v != Mmu::Verdict::kAdmit) {
    ++ctr_.buffer_drops;
    out.counters().drop_packets[p->tc] += 1;
    out.counters().drop_bytes[p->tc] += p->wire;
    if (v == Mmu::Verdict::kDropLossless) {
      ++ctr_.lossless_drops;
      out.counters().lossless_drop_packets[p->tc] += 1;
    }
    in.release(p->tc, p->wire);  // as for a packet without a route
    net_.drop(p);
    return;
  }
  points_.on_enqueue(*this, *p, out);
  if (mmu_.lossless(p->tc) && mmu_.should_pause(p->in_port, p->tc)) {
    mmu_.set_paused(p->in_port, p->tc, true);
    send_pause(p->in_port, p->tc, pfc_.quanta);
  }
  out.enqueue(p);
}

void Switch::on_dequeue(Packet& p, uint16_t out, bool departs) {
  mmu_.release(p.in_port, out, p.tc, p.wire);
  points_.on_dequeue(*this, p, *ports_[out], departs);
  ports_[p.in_port]->release(p.tc, p.wire);
  if (mmu_.lossless(p.tc) && mmu_.should_resume(p.in_port, p.tc)) {
    mmu_.set_paused(p.in_port, p.tc, false);
    send_pause(p.in_port, p.tc, 0);
  }
}

}  // namespace rdmasim
