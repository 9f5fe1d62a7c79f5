#include "net/switch.h"

#include "net/network.h"

namespace rdmasim {

void Switch::configure(const PfcConfig& pfc, const EcnConfig& ecn) {
  pfc_ = pfc;
  ecn_ = ecn;
  ecn_thresholds_.resize(ports_.size());
  refresh_at_.assign(ports_.size(), {});
  for (size_t i = 0; i < ports_.size(); ++i) {
    double scale = 1.0;
    if (ecn.reference_rate.bps() > 0)
      scale = static_cast<double>(ports_[i]->rate().bps()) / static_cast<double>(ecn.reference_rate.bps());
    ecn_thresholds_[i] = {static_cast<uint64_t>(static_cast<double>(ecn.kmin_bytes) * scale),
                          static_cast<uint64_t>(static_cast<double>(ecn.kmax_bytes) * scale)};
  }
}

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

void Switch::maybe_mark(Packet* p, const Port& out) {
  if (!(p->flags & kEct) || !((ecn_.tc_mask >> p->tc) & 1u)) return;
  // InfiniBand FECN: only a root of congestion marks, not a port that is
  // merely starved of credit by congestion further on (Annex A10 victim mask).
  if (out.credit() != nullptr) {
    const Packet* head = out.queues().head(p->tc);
    if (!out.credit()->congestion_root(p->tc, head != nullptr ? head->wire : 0)) return;
  }
  const uint64_t q = mmu_.egress_bytes(out.index(), p->tc);
  const auto [kmin, kmax] = ecn_thresholds_[out.index()];
  bool mark = false;
  if (q > kmax)
    mark = true;
  else if (q > kmin)
    mark =
        ecn_rng_.uniform01() < ecn_.pmax * static_cast<double>(q - kmin) / static_cast<double>(kmax - kmin);
  if (mark) {
    p->flags |= kCe;
    ++ctr_.ecn_marked;
    ports_[out.index()]->counters().ecn_marked_packets[p->tc] += 1;
  }
}

// The least-loaded equal-cost port: bytes waiting to leave it (queued, and
// the rest of the packet on the wire) less the credit its downstream buffer
// still offers on the packet's VL. Ties keep the LFT port, so an idle fabric
// routes exactly as the static LFT does.
int Switch::adaptive_port(const Packet& p) const {
  const auto group = routes_.ports(p.dst);
  if (group.empty()) return -1;
  const Time now = net_.sim().now();
  int best = group[0];
  int64_t best_score = INT64_MAX;
  for (const uint16_t i : group) {
    const Port& o = *ports_[i];
    if (!o.up()) continue;
    int64_t score = static_cast<int64_t>(o.queues().total_bytes());
    if (o.busy_until() > now) score += o.rate().bytes_in(o.busy_until() - now).count();
    if (o.credit() != nullptr) score -= static_cast<int64_t>(o.credit()->available(p.tc) * kCreditBlockBytes);
    if (score < best_score) {
      best_score = score;
      best = i;
    }
  }
  return best;
}

void Switch::receive(Packet* p) {
  Port& in = *ports_[p->in_port];
  if (in.receive_frame(p)) return;
  const int out_idx = adaptive_ ? adaptive_port(*p) : routes_.select(p->dst, p->flow_hash, ecmp_seed_);
  if (out_idx < 0) {
    ++ctr_.no_route_drops;
    in.counters().drop_packets[p->tc] += 1;
    in.counters().drop_bytes[p->tc] += p->wire;
    if (in.credit() != nullptr) in.credit_release(p->tc, p->wire);  // it held ingress buffer since arrival
    net_.drop(p);
    return;
  }
  Port& out = *ports_[out_idx];
  const Mmu::Verdict v = mmu_.admit(p->in_port, out.index(), p->tc, p->wire);
  if (v != Mmu::Verdict::kAdmit) {
    ++ctr_.buffer_drops;
    out.counters().drop_packets[p->tc] += 1;
    out.counters().drop_bytes[p->tc] += p->wire;
    if (v == Mmu::Verdict::kDropLossless) {
      ++ctr_.lossless_drops;
      out.counters().lossless_drop_packets[p->tc] += 1;
    }
    if (in.credit() != nullptr) in.credit_release(p->tc, p->wire);  // as for a packet without a route
    net_.drop(p);
    return;
  }
  if (ecn_.enabled && !ecn_.mark_on_dequeue) maybe_mark(p, out);
  if (mmu_.lossless(p->tc) && mmu_.should_pause(p->in_port, p->tc)) {
    mmu_.set_paused(p->in_port, p->tc, true);
    send_pause(p->in_port, p->tc, pfc_.quanta);
  }
  out.enqueue(p);
}

void Switch::on_dequeue(Packet& p, uint16_t out, bool departs) {
  mmu_.release(p.in_port, out, p.tc, p.wire);
  if (departs && ecn_.enabled && ecn_.mark_on_dequeue) maybe_mark(&p, *ports_[out]);
  Port& in = *ports_[p.in_port];
  if (in.credit() != nullptr) in.credit_release(p.tc, p.wire);
  if (p.int_slot != 0 && p.type == PktType::kData) {
    // HPCC's INT record at egress (ACKs carry their stack back untouched): the port's tx counter including
    // this packet and the queue it leaves behind (all classes).
    const Port& port = this->port(out);
    net_.telemetry().push(
        p.int_slot, IntHop{net_.sim().now(), port.counters().tx_bytes + p.wire, port.queues().total_bytes(),
                           port.rate(), static_cast<uint64_t>(id()) << 16 | out});
  }
  if (mmu_.lossless(p.tc) && mmu_.should_resume(p.in_port, p.tc)) {
    mmu_.set_paused(p.in_port, p.tc, false);
    send_pause(p.in_port, p.tc, 0);
  }
}

}  // namespace rdmasim
