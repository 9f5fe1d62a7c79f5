#include "transport/uet/pds.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/rng.h"
#include "net/flow_hash.h"
#include "net/network.h"
#include "nic/nic.h"

namespace rdmasim {
namespace {

constexpr uint16_t kUetUdpPort = 4793;  // IANA-assigned UET port (UEC 1.0 §3.2)

uint32_t payload_at(int64_t bytes, uint64_t i, uint32_t mtu) {
  return static_cast<uint32_t>(std::clamp<int64_t>(bytes - static_cast<int64_t>(i) * mtu, 0, mtu));
}

// Which direction a packet belongs to: READ response data, and the ACKs and
// NACKs of that stream, carry the read-response flag.
int direction_of(const Packet& p) { return (p.flags & kReadResponse) != 0 ? 1 : 0; }

}  // namespace

UetPds::UetPds(Network& net, PdsConfig cfg, std::function<Time()> base_rtt)
    : net_(net),
      cfg_(cfg),
      mask_(cfg.psn_window - 1),
      feedback_(std::make_unique<NoFeedback>()),
      base_rtt_(std::move(base_rtt)) {
  if (cfg_.psn_window < 64 || (cfg_.psn_window & mask_) != 0)
    throw std::invalid_argument("uet psn_window must be a power of two of at least 64");
}

void UetPds::attach_nics(std::vector<Nic*> nics) {
  nics_ = std::move(nics);
  if (!cfg_.rccc.enabled) return;
  std::vector<Rate> rates;
  rates.reserve(nics_.size());
  for (const Nic* n : nics_) rates.push_back(n->port(0).rate());
  if (!base_rtt_) throw std::logic_error("RCCC needs the fabric's base RTT");
  rccc_ = std::make_unique<RcccScheduler>(cfg_.rccc, base_rtt_(), rates, cfg_.mtu);
}

void UetPds::set_congestion_control(std::unique_ptr<CongestionControl> cc) {
  cc_ = std::move(cc);
  if (cc_) cc_->attach(this);
}

void UetPds::set_path_selector(PathSelector paths) {
  if (!pdcs_.empty()) throw std::logic_error("set_path_selector after the first QP");
  paths_ = std::move(paths);
  learn_ev_ = paths_.learns_per_packet();
  sprays_ = learn_ev_ || paths_.get_if<SprayPaths>() != nullptr;
}

QpId UetPds::create_qp(int src, int dst, CompletionSink* sink, uint8_t tc) {
  Pdc& c = pdcs_.emplace_back();
  c.id = static_cast<uint32_t>(pdcs_.size() - 1);
  c.src = src;
  c.dst = dst;
  c.sink = sink;
  c.tc = tc;
  // The UDP source port is the PDC's entropy value (UEC 1.0 §3.2): a
  // spraying initiator varies it per packet, the switches hash it in ECMP.
  const auto sport =
      static_cast<uint16_t>(49152 + mix64(net_.sim().seed() ^ (0x0e7ull << 40) ^ c.id) % 16384);
  c.flow_hash = udp_flow_hash(src, dst, sport, kUetUdpPort);
  c.rev_hash = udp_flow_hash(dst, src, sport, kUetUdpPort);
  c.src_nic_port = nics_[src]->select_port(dst, c.flow_hash);
  c.dst_nic_port = nics_[dst]->select_port(src, c.rev_hash);
  paths_.connect(c.id, c.flow_hash);
  for (int d = 0; d < 2; ++d) {
    PdsHalf& h = c.half[d];
    if (cfg_.mode != DeliveryMode::kUud) {
      h.state.assign(cfg_.psn_window, 0);
      h.rcvd.assign(cfg_.psn_window / 64, 0);
      if (learn_ev_ && d == 0) h.ev.assign(cfg_.psn_window, 0);
    }
    if (rccc_) h.credit = rccc_->initial_credit();
    h.cc.id = flow(c, d);
    h.cc.host = sender(c, d);
    h.cc.line_rate = nics_[sender(c, d)]->port(sender_port(c, d)).rate();
    if (cc_) cc_->on_connect(cc_view(h));
  }
  return c.id;
}

void UetPds::append(Pdc& c, int d, Opcode op, int64_t bytes, uint64_t wr_id, size_t link) {
  PdsHalf& h = c.half[d];
  PdsMessage m;
  m.wr_id = wr_id;
  m.size = bytes;
  m.op = op;
  m.posted = net_.sim().now();
  m.first_psn = h.snd_end;
  // A READ request is one PSN with no payload; its data comes back on direction 1.
  m.end_psn = h.snd_end + (d == 0 && op == Opcode::kRead ? 1 : packets_for(bytes));
  m.link = link;
  h.snd_end = m.end_psn;
  h.msgs.push_back(m);
  h.arrived.push_back(0);
  if (d == 0) c.read_done.push_back(0);
}

void UetPds::post(QpId qp, Opcode op, int64_t bytes, uint64_t wr_id) {
  if (op == Opcode::kRead && cfg_.mode == DeliveryMode::kUud)
    throw std::invalid_argument("RDMA READ needs an acknowledged UET mode (rud, rod or rudi), not uud");
  Pdc& c = pdcs_[qp];
  append(c, 0, op, bytes, wr_id, 0);
  activate(c, 0, /*doorbell=*/true);
}

void UetPds::activate(Pdc& c, int d, bool doorbell) {
  PdsHalf& h = c.half[d];
  if (h.active) return;
  h.active = true;
  nics_[sender(c, d)]->activate(sender_port(c, d), c.id, d, doorbell);
}

bool UetPds::idle(QpId qp) const {
  const Pdc& c = pdcs_[qp];
  return c.half[0].una_msg == c.half[0].msgs.size() && c.half[1].snd_una == c.half[1].snd_end;
}

size_t UetPds::message_of(const PdsHalf& h, uint64_t psn) {
  const auto it = std::upper_bound(h.msgs.begin(), h.msgs.end(), psn,
                                   [](uint64_t v, const PdsMessage& m) { return v < m.end_psn; });
  return static_cast<size_t>(it - h.msgs.begin());
}

uint32_t UetPds::payload_of(const PdsHalf& h, int d, uint64_t psn) const {
  const PdsMessage& m = h.msgs[message_of(h, psn)];
  if (d == 0 && m.op == Opcode::kRead) return 0;  // a READ request carries no data
  return payload_at(m.size, psn - m.first_psn, cfg_.mtu);
}

bool UetPds::window_open(const PdsHalf& h) const {
  if (h.snd_nxt - h.snd_una >= cfg_.psn_window) return false;  // the receiver could not track it
  if (rccc_ && h.inflight_bytes >= h.credit) return false;     // beyond the receiver's grant
  return h.cc.cwnd_bytes <= 0 || h.inflight_bytes < h.cc.cwnd_bytes;
}

uint32_t UetPds::forward_entropy(Pdc& c, int d, uint64_t psn) {
  PdsHalf& h = c.half[d];
  if (d == 0) {
    // Every transmission takes the selector's next entropy value, a resend
    // included (it should not follow the lost packet's path). ROD keeps one.
    const uint32_t e = paths_.pick(c.id, c.flow_hash, cfg_.mode == DeliveryMode::kRod ? 0 : h.sends);
    if (learn_ev_) h.ev[psn & mask_] = e;
    return e;
  }
  // READ responses spray obliviously where the PDC sprays.
  if (!sprays_ || cfg_.mode == DeliveryMode::kRod) return c.rev_hash;
  return static_cast<uint32_t>(mix64(h.sends * 0x9e3779b97f4a7c15ull ^ c.rev_hash) >> 32);
}

Packet* UetPds::build_data(Pdc& c, int d, uint64_t psn, bool resend) {
  PdsHalf& h = c.half[d];
  const size_t mi =
      h.nxt_msg < h.msgs.size() && psn >= h.msgs[h.nxt_msg].first_psn && psn < h.msgs[h.nxt_msg].end_psn
          ? h.nxt_msg
          : message_of(h, psn);
  const PdsMessage& m = h.msgs[mi];
  const uint64_t k = psn - m.first_psn;
  const bool read_request = d == 0 && m.op == Opcode::kRead;
  const uint32_t payload = read_request ? 0 : payload_at(m.size, k, cfg_.mtu);
  Packet* p = net_.new_packet(PktType::kData);
  p->psn = psn;
  p->payload = static_cast<uint16_t>(payload);
  p->flags = static_cast<uint8_t>(kEct | (k == 0 ? kFirst : 0) | (psn + 1 == m.end_psn ? kLast : 0) |
                                  (d == 1 ? kReadResponse : 0));
  p->wire = static_cast<uint16_t>(net_.framing().data_wire(payload, false));
  p->aux = static_cast<uint32_t>(mi);
  p->opcode = m.op;
  p->dst = receiver(c, d);
  p->conn = c.id;
  p->tc = c.tc;
  p->flow_hash = forward_entropy(c, d, psn);
  ++h.sends;
  ++c.ctr.data_packets_sent;
  ++totals_.data_built;
  if (resend) {
    ++c.ctr.retransmitted_packets;
    c.ctr.retransmitted_bytes += payload;
  }
  return p;
}

Packet* UetPds::next_packet(QpId qp, int role, bool& more) {
  Pdc& c = pdcs_[qp];
  const int d = role;
  PdsHalf& h = c.half[d];
  const Time now = net_.sim().now();
  more = false;
  while (!h.resend.empty() && (st(h, h.resend.front()) & (kAcked | kLost)) != kLost) h.resend.pop_front();
  const bool new_data = h.snd_nxt < h.snd_end;
  Nic& nic = *nics_[sender(c, d)];
  if ((h.resend.empty() && !new_data) || nic.pacer_holds(h.timing, flow(c, d), now)) {
    h.active = false;  // new work, a pacer wake-up or an ACK reactivates it
    return nullptr;
  }
  Packet* p = nullptr;
  if (cfg_.mode == DeliveryMode::kUud) {
    p = build_data(c, d, h.snd_nxt, false);
    ++h.snd_nxt;
    h.snd_max = h.snd_una = h.snd_nxt;  // nothing is ever outstanding
    ++totals_.uud_sent;
    complete_initiator(c);
  } else {
    const bool open = (h.cc.cwnd_bytes <= 0 || h.inflight_bytes < h.cc.cwnd_bytes) &&
                      (!rccc_ || h.inflight_bytes < h.credit);
    uint64_t psn = 0;
    bool resend = false;
    if (!h.resend.empty() && open) {
      psn = h.resend.pop_front();
      resend = true;
    } else if (new_data && window_open(h)) {
      psn = h.snd_nxt++;
      h.snd_max = std::max(h.snd_max, h.snd_nxt);
      while (h.msgs[h.nxt_msg].end_psn <= psn) ++h.nxt_msg;
    } else {
      h.active = false;  // window full: an ACK reopens it
      return nullptr;
    }
    p = build_data(c, d, psn, resend);
    uint8_t& s = st(h, psn);
    s = static_cast<uint8_t>((s & ~kLost) | kSent | kInFlight);
    h.inflight_bytes += p->payload;
    if (!h.established) p->flags |= kFirst;  // SYN rides every packet until the PDC is established
    if (!h.timing.armed) nic.arm_deadline(h.timing, flow(c, d), now + cfg_.rto * (int64_t{1} << h.rto_exp));
  }
  Nic::pacer_sent(h.timing, h.cc.pace_rate, p->wire, now);
  if (cc_) cc_->on_send(cc_view(h), p->payload);
  more = !h.resend.empty() || h.snd_nxt < h.snd_end;
  if (!more) h.active = false;
  return p;
}

void UetPds::on_packet(Nic& /*nic*/, Packet* p) {
  Pdc& c = pdcs_[p->conn];
  const int d = direction_of(*p);
  switch (p->type) {
    case PktType::kData:
      on_data(c, d, p);
      break;
    case PktType::kTrimmed:
      on_trimmed(c, d, p);
      break;
    case PktType::kAck:
      on_ack(c, d, p);
      break;
    case PktType::kNak:
      on_nack(c, d, p);
      break;
    case PktType::kGrant:
      on_grant(c, d, *p);
      break;
    default:
      break;
  }
  net_.deliver(p);
}

// --- Receiver ---------------------------------------------------------------

bool UetPds::has(const PdsHalf& h, uint64_t psn) const {
  if (psn < h.rcv_nxt) return true;
  if (psn - h.rcv_nxt >= cfg_.psn_window) return false;
  const uint64_t slot = psn & mask_;
  return (h.rcvd[slot >> 6] >> (slot & 63)) & 1u;
}

void UetPds::place(Pdc& c, int d, uint64_t psn, uint32_t msg) {
  PdsHalf& h = c.half[d];
  if (cfg_.mode != DeliveryMode::kUud) {
    const uint64_t slot = psn & mask_;
    h.rcvd[slot >> 6] |= uint64_t{1} << (slot & 63);
    if (psn != h.rcv_nxt) ++c.ctr.out_of_order_placed;
    // The cumulative point moves over what has arrived; its bits are cleared
    // so the slots serve the PSNs one window later.
    while (has(h, h.rcv_nxt) && h.rcv_nxt < h.snd_end) {
      const uint64_t s = h.rcv_nxt & mask_;
      h.rcvd[s >> 6] &= ~(uint64_t{1} << (s & 63));
      ++h.rcv_nxt;
      h.rod_nack_sent = false;
    }
  } else {
    h.rcv_nxt = std::max(h.rcv_nxt, psn + 1);
  }
  ++h.arrived[msg];
  // A READ request starts its response stream as soon as it lands, whatever
  // the order; WRITE and SEND arrivals are reported in posting order.
  const PdsMessage& m = h.msgs[msg];
  if (d == 0 && m.op == Opcode::kRead) {
    const size_t link = c.half[1].msgs.size();
    h.msgs[msg].link = link;
    append(c, 1, Opcode::kRead, m.size, m.wr_id, msg);
    activate(c, 1, /*doorbell=*/true);  // the target's NIC takes it as new work
  }
  while (h.recv_msg < h.msgs.size()) {
    const PdsMessage& r = h.msgs[h.recv_msg];
    if (h.arrived[h.recv_msg] < r.end_psn - r.first_psn) break;
    ++h.recv_msg;
    delivered(c, d, r);
  }
}

void UetPds::delivered(Pdc& c, int d, const PdsMessage& m) {
  if (d == 1) {
    c.read_done[m.link] = 1;  // the READ's data is all at the initiator
    complete_initiator(c);
    return;
  }
  if (m.op == Opcode::kRead) return;  // a READ is not a receive at the target
  if (c.sink != nullptr)
    c.sink->on_receive(Completion{c.id, m.wr_id, m.op, m.size, m.posted, net_.sim().now()});
}

void UetPds::on_data(Pdc& c, int d, Packet* p) {
  PdsHalf& h = c.half[d];
  ++totals_.data_received;
  if (!h.opened) {
    h.opened = true;  // the first packet (SYN) creates the receiver's half of the PDC
    if (d == 0) ++totals_.pdcs_opened;
  }
  const uint64_t psn = p->psn;
  if (cfg_.mode == DeliveryMode::kUud) {
    place(c, d, psn, p->aux);
    return;
  }
  h.ce_pending = h.ce_pending || (p->flags & kCe) != 0;
  if (has(h, psn)) {
    // Its ACK was lost or late, or the sender resent it on a timeout:
    // acknowledge again. An idempotent (rudi) target applies it again.
    ++totals_.duplicates;
    send_ack(c, d, *p);
    return;
  }
  if (psn - h.rcv_nxt >= cfg_.psn_window) {
    ++totals_.out_of_window;
    send_nack(c, d, psn, NackCode::kOutOfWindow, *p);
    return;
  }
  if (cfg_.mode == DeliveryMode::kRod && psn != h.rcv_nxt) {
    ++c.ctr.out_of_order_discards;
    if (!h.rod_nack_sent) {
      h.rod_nack_sent = true;
      ++totals_.rod_ooo_nacks;
      send_nack(c, d, h.rcv_nxt, NackCode::kRodOutOfOrder, *p);
    }
    return;
  }
  const bool in_order = psn == h.rcv_nxt;
  place(c, d, psn, p->aux);
  // A resend that fills a hole moves the cumulative PSN over packets the
  // sender still counts in flight (beyond the SACK bitmap): it is acknowledged
  // at once, as TCP does, or a window full of them waits for the timeout.
  const bool filled_hole = h.rcv_nxt > psn + 1;
  if (rccc_)
    rccc_->on_arrival(receiver(c, d), flow(c, d), h.snd_end - h.rcv_nxt,
                      [this](uint32_t f, int64_t bytes) { send_grant(f, bytes); });
  ++h.since_ack;
  if (h.since_ack >= cfg_.ack_every || !in_order || filled_hole || (p->flags & kLast) ||
      cfg_.mode == DeliveryMode::kRudi)
    send_ack(c, d, *p);
}

void UetPds::on_trimmed(Pdc& c, int d, Packet* p) {
  PdsHalf& h = c.half[d];
  ++totals_.trimmed_received;
  if (cfg_.mode == DeliveryMode::kUud) return;  // nobody resends it
  if (!h.opened) {
    h.opened = true;
    if (d == 0) ++totals_.pdcs_opened;
  }
  if (has(h, p->psn)) {
    ++totals_.trimmed_after_arrival;  // a copy already arrived (a resend overtook it)
    return;
  }
  send_nack(c, d, p->psn, NackCode::kTrimmed, *p);
  ++totals_.trim_nacks_sent;
}

// The acknowledgements of a sprayed PDC are sprayed too: each ACK or NACK
// takes the next of its entropies back, so a broken reverse path (which the
// receiver cannot see) costs some ACKs, and the cumulative PSN and SACK
// bitmap of the next ones carry what they said. An unsprayed PDC keeps one.
uint32_t UetPds::reverse_entropy(const Pdc& c, int d) const {
  const uint32_t base = d == 0 ? c.rev_hash : c.flow_hash;
  if (!sprays_ || cfg_.mode == DeliveryMode::kRod) return base;
  return static_cast<uint32_t>(mix64(acks_sent_ * 0x9e3779b97f4a7c15ull ^ base) >> 32);
}

void UetPds::send_ack(Pdc& c, int d, const Packet& trigger) {
  PdsHalf& h = c.half[d];
  // The SACK bitmap: bit i reports PSN rcv_nxt + 1 + offset + i. A data
  // packet beyond the 64 after the cumulative PSN moves the bitmap to end at
  // it: with a deep hole (a resend still on its way) the initiator would
  // otherwise never hear of what arrived and keep it counted in flight.
  uint64_t offset = 0;
  if (trigger.type == PktType::kData && trigger.psn > h.rcv_nxt + 64)
    offset = std::min<uint64_t>(trigger.psn - 64 - h.rcv_nxt, kMaxSackOffset);
  const uint64_t pos = (h.rcv_nxt + 1 + offset) & mask_;
  const size_t w = pos >> 6;
  const unsigned off = pos & 63;
  uint64_t bits = h.rcvd[w] >> off;
  if (off != 0) bits |= h.rcvd[(w + 1) % h.rcvd.size()] << (64 - off);
  Packet* a = net_.new_packet(PktType::kAck);
  a->psn = bits;
  a->payload = static_cast<uint16_t>(offset);
  a->aux = static_cast<uint32_t>(h.rcv_nxt);
  a->sent_at = trigger.sent_at;
  a->flags = static_cast<uint8_t>((h.ce_pending ? kCe : 0) | (d == 1 ? kReadResponse : 0));
  h.ce_pending = false;
  h.since_ack = 0;
  a->dst = sender(c, d);
  a->conn = c.id;
  a->tc = cfg_.ack_tc;
  a->flow_hash = reverse_entropy(c, d);
  a->wire = static_cast<uint16_t>(net_.framing().ack_wire());
  ++acks_sent_;
  ++c.ctr.acks_sent;
  nics_[receiver(c, d)]->send_control(receiver_port(c, d), a);
}

void UetPds::send_nack(Pdc& c, int d, uint64_t psn, NackCode code, const Packet& trigger) {
  // A trimmed header is itself the congestion signal.
  const bool ce = code == NackCode::kTrimmed || (trigger.flags & kCe) != 0;
  Packet* n = net_.new_packet(PktType::kNak);
  n->psn = psn;
  n->aux = static_cast<uint32_t>(code);
  n->flags = static_cast<uint8_t>((ce ? kCe : 0) | (d == 1 ? kReadResponse : 0));
  n->dst = sender(c, d);
  n->conn = c.id;
  n->tc = cfg_.ack_tc;
  n->flow_hash = reverse_entropy(c, d);
  n->wire = static_cast<uint16_t>(net_.framing().frame(net_.framing().nack_header));
  ++acks_sent_;
  ++c.ctr.naks_sent;
  nics_[receiver(c, d)]->send_control(receiver_port(c, d), n);
}

// A grant from `flow`'s receiver to its sender: a control packet in the ACK class.
void UetPds::send_grant(uint32_t f, int64_t bytes) {
  Pdc& c = pdcs_[f >> 1];
  const int d = static_cast<int>(f & 1);
  Packet* g = net_.new_packet(PktType::kGrant);
  g->psn = static_cast<uint64_t>(bytes);
  g->flags = d == 1 ? kReadResponse : 0;
  g->dst = sender(c, d);
  g->conn = c.id;
  g->tc = cfg_.ack_tc;
  g->flow_hash = reverse_entropy(c, d);
  g->wire = static_cast<uint16_t>(net_.framing().frame(net_.framing().nack_header));
  ++acks_sent_;
  ++totals_.grants_sent;
  nics_[receiver(c, d)]->send_control(receiver_port(c, d), g);
}

// --- Sender -----------------------------------------------------------------

void UetPds::on_grant(Pdc& c, int d, const Packet& p) {
  c.half[d].credit = static_cast<int64_t>(p.psn);
  activate(c, d);
}

void UetPds::acknowledge(Pdc& c, int d, uint64_t psn, int64_t& bytes, bool marked) {
  PdsHalf& h = c.half[d];
  uint8_t& s = st(h, psn);
  if ((s & kSent) == 0 || (s & kAcked) != 0) return;
  if (learn_ev_ && d == 0) paths_.on_ev(c.id, h.ev[psn & mask_], marked);
  const uint32_t payload = payload_of(h, d, psn);
  if (s & kInFlight) h.inflight_bytes -= payload;
  bytes += payload;
  s = static_cast<uint8_t>((s | kAcked) & ~(kInFlight | kLost));
}

void UetPds::mark_lost(Pdc& c, int d, uint64_t psn) {
  PdsHalf& h = c.half[d];
  uint8_t& s = st(h, psn);
  if ((s & kSent) == 0 || (s & (kAcked | kLost)) != 0) return;
  if (s & kInFlight) h.inflight_bytes -= payload_of(h, d, psn);
  s = static_cast<uint8_t>((s | kLost) & ~kInFlight);
  h.resend.push_back(psn);
}

// Completions at the initiator, in posting order: a WRITE or SEND once every
// packet is acknowledged, a READ once its response has all arrived.
void UetPds::complete_initiator(Pdc& c) {
  PdsHalf& h = c.half[0];
  const Time now = net_.sim().now();
  while (h.una_msg < h.msgs.size()) {
    const PdsMessage& m = h.msgs[h.una_msg];
    const bool done = m.op == Opcode::kRead ? c.read_done[h.una_msg] != 0 : m.end_psn <= h.snd_una;
    if (!done) break;
    ++h.una_msg;
    if (c.sink != nullptr) c.sink->on_complete(Completion{c.id, m.wr_id, m.op, m.size, m.posted, now});
  }
}

void UetPds::advance(Pdc& c, int d) {
  PdsHalf& h = c.half[d];
  while (h.snd_una < h.snd_max && (st(h, h.snd_una) & kAcked)) {
    st(h, h.snd_una) = 0;  // the slot serves the PSN one window later
    ++h.snd_una;
  }
  h.loss_scan = std::max(h.loss_scan, h.snd_una);
  if (d == 0) complete_initiator(c);
}

void UetPds::on_ack(Pdc& c, int d, Packet* p) {
  PdsHalf& h = c.half[d];
  h.established = true;
  // Widen the wire's 32-bit cumulative PSN against the oldest unacked one.
  const auto delta = static_cast<int32_t>(p->aux - static_cast<uint32_t>(h.snd_una));
  const uint64_t cack = delta > 0 ? h.snd_una + static_cast<uint64_t>(delta) : h.snd_una;
  const uint64_t base = h.snd_una + static_cast<uint64_t>(static_cast<int64_t>(delta)) + 1 + p->payload;
  const uint64_t old_una = h.snd_una;
  const bool ece = (p->flags & kCe) != 0;
  int64_t bytes = 0;
  for (uint64_t psn = h.snd_una; psn < cack && psn < h.snd_max; ++psn) acknowledge(c, d, psn, bytes, ece);
  for (uint64_t bits = p->psn; bits != 0; bits &= bits - 1) {
    const uint64_t psn = base + static_cast<uint64_t>(__builtin_ctzll(bits));
    if (psn < h.snd_una || psn >= h.snd_max) continue;
    acknowledge(c, d, psn, bytes, ece);
    h.highest_sacked = std::max(h.highest_sacked, psn + 1);
  }
  advance(c, d);
  // Loss inference from the bitmap: a PSN this far behind the highest SACKed one is presumed lost.
  bool lost = false;
  if (cfg_.mode != DeliveryMode::kRod && h.highest_sacked > h.snd_una + cfg_.sack_loss_threshold) {
    const uint64_t limit = h.highest_sacked - cfg_.sack_loss_threshold;
    for (uint64_t psn = h.loss_scan; psn < limit; ++psn) {
      if ((st(h, psn) & (kInFlight | kAcked)) == kInFlight) {
        mark_lost(c, d, psn);
        ++totals_.sack_retransmits;
        lost = true;
      }
    }
    h.loss_scan = std::max(h.loss_scan, limit);
  }
  const Time now = net_.sim().now();
  // The timeout guards against silence: any packet newly acknowledged,
  // cumulatively or selectively, shows the PDC is moving (as a per-packet
  // timer restarted by each resend would).
  if (bytes > 0) Nic::push_deadline(h.timing, now + cfg_.rto * (int64_t{1} << h.rto_exp));
  if (h.snd_una > old_una) h.rto_exp = 0;
  if (cc_) {
    if (lost) cc_->on_loss(cc_view(h));
    const AckSample a{cack > 0 ? cack - 1 : 0, p->sent_at, ece, nullptr, bytes};
    cc_->on_ack(cc_view(h), a);
  }
  if (d == 0) paths_.on_ack(c.id, PathAck{h.snd_una, h.snd_nxt, ece, h.snd_una < h.snd_max});
  activate(c, d);
}

void UetPds::on_nack(Pdc& c, int d, Packet* p) {
  PdsHalf& h = c.half[d];
  h.established = true;
  ++c.ctr.naks_received;
  const uint64_t psn = p->psn;
  switch (static_cast<NackCode>(p->aux)) {
    case NackCode::kTrimmed:
      if (psn >= h.snd_una && psn < h.snd_max && (st(h, psn) & kInFlight)) {
        if (learn_ev_ && d == 0) paths_.on_ev(c.id, h.ev[psn & mask_], /*marked=*/true);  // a congested path
        mark_lost(c, d, psn);
        ++totals_.trim_retransmits;
        // Its resend leaves now: the NACK restarts the timeout as an ACK would.
        Nic::push_deadline(h.timing, net_.sim().now() + cfg_.rto * (int64_t{1} << h.rto_exp));
      }
      if (cc_) cc_->on_trim(cc_view(h));
      break;
    case NackCode::kRodOutOfOrder:
      // Go back N: everything from the expected PSN on is resent in order.
      for (uint64_t q = std::max(psn, h.snd_una); q < h.snd_max; ++q) mark_lost(c, d, q);
      if (cc_) cc_->on_loss(cc_view(h));
      break;
    case NackCode::kOutOfWindow:
      mark_lost(c, d, psn);
      break;
  }
  activate(c, d);
}

void UetPds::on_rto(Pdc& c, int d) {
  PdsHalf& h = c.half[d];
  ++c.ctr.timeouts;
  h.rto_exp = std::min(h.rto_exp + 1, cfg_.rto_max_backoff);
  if (d == 0) paths_.on_rto(c.id);
  for (uint64_t psn = h.snd_una; psn < h.snd_max; ++psn)
    if ((st(h, psn) & (kInFlight | kAcked)) == kInFlight) {
      mark_lost(c, d, psn);
      ++totals_.rto_retransmits;
    }
  if (cc_) cc_->on_rto(cc_view(h));
  activate(c, d);
  if (!h.timing.armed)
    nics_[sender(c, d)]->arm_deadline(h.timing, flow(c, d),
                                      net_.sim().now() + cfg_.rto * (int64_t{1} << h.rto_exp));
}

void UetPds::on_timer(QpId f, uint32_t kind, uint32_t tag) {
  Pdc& c = pdcs_[f >> 1];
  const int d = static_cast<int>(f & 1);
  switch (kind) {
    case Nic::kDeadline:
      on_rto(c, d);
      break;
    case Nic::kPaceWake:
      activate(c, d);
      break;
    case kCcTimer:
      if (cc_) cc_->on_timer(cc_view(c.half[d]), tag);
      activate(c, d);
      break;
    default:
      break;
  }
}

Time UetPds::now() const { return net_.sim().now(); }

void UetPds::schedule_cc_timer(CcFlow& f, Time at, uint32_t tag) {
  nics_[static_cast<size_t>(f.host)]->schedule_transport_timer(at, f.id, kCcTimer, tag);
}

// --- Questions ------------------------------------------------------------

uint32_t UetPds::forward_wire(Opcode op, int64_t bytes, uint64_t i) const {
  if (op == Opcode::kRead) return net_.framing().data_wire(0, false);  // the request: headers only
  return net_.framing().data_wire(payload_at(bytes, i, cfg_.mtu), false);
}

uint32_t UetPds::back_wire(Opcode op, int64_t bytes, uint64_t i) const {
  if (op == Opcode::kRead) return net_.framing().data_wire(payload_at(bytes, i, cfg_.mtu), false);
  return net_.framing().ack_wire();
}

QpPath UetPds::path(QpId qp) const {
  const Pdc& c = pdcs_[qp];
  const uint32_t entropy =
      paths_.entropy(qp, c.flow_hash, cfg_.mode == DeliveryMode::kRod ? 0 : c.half[0].sends);
  return QpPath{c.src, c.dst, c.src_nic_port, c.dst_nic_port, entropy, c.rev_hash, c.tc};
}

QpStats UetPds::stats(QpId qp) const {
  const Pdc& c = pdcs_[qp];
  QpStats s = c.ctr;
  s.in_order_received = c.half[0].rcv_nxt;
  return s;
}

std::string UetPds::check_invariants() const {
  const auto& led = net_.ledger();
  const auto data = static_cast<int>(PktType::kData);
  const auto trimmed = static_cast<int>(PktType::kTrimmed);
  if (led.created[data] != totals_.data_built)
    return "uet: the network created " + std::to_string(led.created[data]) + " data packets, the PDS built " +
           std::to_string(totals_.data_built);
  if (led.delivered[data] != totals_.data_received)
    return "uet: the network delivered " + std::to_string(led.delivered[data]) +
           " data packets, the receivers took " + std::to_string(totals_.data_received);
  if (led.delivered[trimmed] != totals_.trimmed_received)
    return "uet: the network delivered " + std::to_string(led.delivered[trimmed]) +
           " trimmed headers, the receivers took " + std::to_string(totals_.trimmed_received);
  if (cfg_.mode != DeliveryMode::kUud &&
      totals_.trim_nacks_sent + totals_.trimmed_after_arrival != totals_.trimmed_received)
    return "uet: " + std::to_string(totals_.trimmed_received) + " trimmed headers received, " +
           std::to_string(totals_.trim_nacks_sent) + " NACKed and " +
           std::to_string(totals_.trimmed_after_arrival) + " already placed";
  if (cfg_.mode != DeliveryMode::kUud && totals_.trim_retransmits > totals_.trim_nacks_sent)
    return "uet: more trim retransmissions (" + std::to_string(totals_.trim_retransmits) +
           ") than trim NACKs (" + std::to_string(totals_.trim_nacks_sent) + ")";
  for (const Pdc& c : pdcs_) {
    for (int d = 0; d < 2; ++d) {
      const PdsHalf& h = c.half[d];
      const std::string who = "uet PDC " + std::to_string(c.id) + (d == 0 ? "" : " (READ responses)") + ": ";
      if (h.snd_una > h.snd_nxt || h.snd_nxt > h.snd_end || h.snd_max != h.snd_nxt)
        return who + "PSN order broken (una " + std::to_string(h.snd_una) + ", nxt " +
               std::to_string(h.snd_nxt) + ", max " + std::to_string(h.snd_max) + ", end " +
               std::to_string(h.snd_end) + ")";
      if (cfg_.mode == DeliveryMode::kUud) continue;
      if (h.snd_una > h.rcv_nxt)
        return who + "cumulatively acknowledged PSN " + std::to_string(h.snd_una) + " beyond what arrived (" +
               std::to_string(h.rcv_nxt) + ")";
      if (h.snd_max - h.snd_una > cfg_.psn_window) return who + "more PSNs outstanding than the PSN window";
      int64_t inflight = 0;
      for (uint64_t psn = h.snd_una; psn < h.snd_max; ++psn) {
        const uint8_t s = st(h, psn);
        if ((s & kAcked) && !has(h, psn))
          return who + "PSN " + std::to_string(psn) + " is SACKed but never reached the receiver";
        if ((s & kAcked) && (s & (kInFlight | kLost)))
          return who + "PSN " + std::to_string(psn) + " acked and lost";
        if (s & kInFlight) inflight += payload_of(h, d, psn);
      }
      if (inflight != h.inflight_bytes)
        return who + "bytes in flight " + std::to_string(h.inflight_bytes) +
               " != " + std::to_string(inflight) + " counted over its PSNs";
    }
  }
  return {};
}

void UetPds::report(nlohmann::ordered_json& results) const {
  auto& u = results["uet"];
  u["mode"] = delivery_mode_name(cfg_.mode);
  u["pdcs_opened"] = totals_.pdcs_opened;
  u["trimmed_received"] = totals_.trimmed_received;
  u["trim_nacks_sent"] = totals_.trim_nacks_sent;
  u["trimmed_after_arrival"] = totals_.trimmed_after_arrival;
  u["trim_retransmits"] = totals_.trim_retransmits;
  u["sack_retransmits"] = totals_.sack_retransmits;
  u["rto_retransmits"] = totals_.rto_retransmits;
  u["rod_ooo_nacks"] = totals_.rod_ooo_nacks;
  u["out_of_window"] = totals_.out_of_window;
  u["duplicates"] = totals_.duplicates;
  if (cfg_.mode == DeliveryMode::kUud) u["uud_sent"] = totals_.uud_sent;
  if (rccc_) u["rccc_grants"] = totals_.grants_sent;
}

}  // namespace rdmasim
